"""The search: walk torch releases (newest first) and their tiers, keep the first that fits.

Why separate from ``resolver.py``: refusals compute their alternatives by running this same
search with one constraint relaxed (tier, version, Python, driver, experimental, policy), so
the search must be a pure function of (constraints, machine view) that also returns *why*
every skipped candidate was skipped.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from .. import kb
from ..kb.archs import ArchMatch, describe, match, why_not
from ..reasons import MACHINE, Joined, Reason, reason
from .machine_view import MachineView

if TYPE_CHECKING:
    from .index_check import IndexView


@dataclass(frozen=True)
class Constraints:
    spec: str | None = None            # normalised PEP 440 spec ("==2.4.*"), None = any
    tier: str = "auto"                 # auto | cpu | cuXYZ | rocmX.Y
    python: str | None = None
    policy: str = "compat"
    allow_experimental: bool = False
    check_driver: bool = True          # False only when computing a "newer driver" alternative

    def relax(self, **changes: Any) -> Constraints:   # field name -> new value
        return replace(self, **changes)


@dataclass(frozen=True)
class Rejection:
    release: str
    tier: str | None
    kind: str        # driver | arch | jetson | python | glibc | experimental | rocm | platform | index | unknown-archs
    #                  | unknown-tiers (the last two: gaps in the recipes, not the machine's fault)
    text: Reason


@dataclass(frozen=True)
class Candidate:
    release: kb.Release
    tier: str
    status: str
    archs: kb.ArchSet | None
    matches: tuple[tuple[str, ArchMatch], ...] = ()      # (gpu label, how it runs)
    floor: str | None = None
    notes: tuple[Reason, ...] = ()                       # warnings specific to this candidate


@dataclass
class Outcome:
    found: Candidate | None
    rejections: list[Rejection] = field(default_factory=list)
    considered: list[str] = field(default_factory=list)  # release versions matching the spec, newest first


def matching_releases(spec: str | None) -> list[kb.Release]:
    if not spec:
        return list(kb.releases())
    from ..intent.versions import torch_spec

    s = torch_spec(spec)
    return [r for r in kb.releases() if s.contains(r.version, prereleases=True)]


def _tier_order(rel: kb.Release, platform: str, mode: str) -> list[str]:
    """Tiers worth trying on this machine, preferred first (newest CUDA/ROCm first)."""
    tiers = rel.tiers(platform)
    if mode == "cuda":
        cuda = [t for t in tiers if t.startswith("cu")]
        # RELEASE.md's own tiers first (newest CUDA first), then builds it does not list (cu129 of 2.9-2.13),
        # then tiers whose driver floors `recipes refresh` had to infer
        return sorted(cuda, key=lambda t: (_floors_known(t), t not in rel.learnt, t not in rel.unlisted,
                                           kb.vtuple(kb.cuda_version(t) or "0")), reverse=True)
    if mode == "rocm":
        return sorted((t for t in tiers if t.startswith("rocm")),
                      key=lambda t: (t not in rel.learnt, kb.vtuple(t[4:])), reverse=True)
    return ["cpu"] if "cpu" in tiers else []


def python_gap(rel: kb.Release, python: str, platform: str) -> Reason:
    """Why ``rel`` has no wheel for ``python`` on ``platform``, naming where such wheels do exist."""
    free = python.endswith("t")
    anywhere = rel.pythons(freethreaded=free)
    if python in anywhere:
        where = ", ".join(rel.python_platforms.get(python, ())) or reason("words.other_platforms")
        return reason("python.no_wheels_here", version=rel.version, python=python, platform=platform, where=where)
    if free:
        have = ", ".join(anywhere) or reason("words.none")
        return reason("python.no_free_threaded", version=rel.version, python=python, have=have)
    here = rel.pythons(platform)
    return reason("python.no_wheels", version=rel.version, python=python, first=here[0], last=here[-1])


def _floors_known(tier: str) -> bool:
    info = kb.tier_info(tier)
    return info is not None and info.origin == "recipes"


def policy_words(tier: str, policy: str) -> Reason:
    cuda = kb.cuda_version(tier) or "?"
    if policy == "strict":
        return reason("policy.strict", cuda=cuda)
    major = cuda.split(".")[0]
    return (reason("policy.minor_compat", major=major) if int(major) >= 11
            else reason("policy.no_minor_compat", cuda=cuda))


def check(rel: kb.Release, tier: str, mv: MachineView, cons: Constraints) -> Candidate | Rejection:
    """Does ``rel`` built for ``tier`` run on this machine under ``cons``? Each "no" says why in plain words.

    The checks run in order: the platform (Python wheels, glibc), the tier being known, then the tier kind's
    own rules (cpu: none; ROCm: the GPU's gfx; CUDA: Jetson, the driver floor, every GPU's compiled code).
    """
    refused = _platform_rejection(rel, tier, mv, cons)
    if refused is not None:
        return refused
    info = kb.tier_info(tier)
    notes = _provenance_notes(rel, tier, info)
    if info is None and tier != "cpu":
        return Rejection(rel.version, tier, "unknown-tiers", reason("skip.unknown_tier", tier=tier))
    if info is None or info.kind == "cpu":
        return Candidate(rel, tier, rel.status(tier), None, notes=tuple(notes))
    if info.kind == "rocm":
        return _check_rocm(rel, tier, mv, info, notes)
    return _check_cuda(rel, tier, mv, cons, notes)


def _platform_rejection(rel: kb.Release, tier: str, mv: MachineView, cons: Constraints) -> Rejection | None:
    if cons.python and not rel.has_python(cons.python, mv.platform):
        return Rejection(rel.version, tier, "python", python_gap(rel, cons.python, mv.platform))
    if mv.platform.startswith("linux") and mv.glibc:
        need = rel.min_glibc_aarch64 if mv.platform.endswith("aarch64") else rel.min_glibc
        if need and kb.vtuple(mv.glibc) < kb.vtuple(need):
            return Rejection(rel.version, tier, "glibc", reason("skip.glibc", MACHINE, version=rel.version,
                                                                need=need, glibc=mv.glibc))
    return None


def _provenance_notes(rel: kb.Release, tier: str, info: Any) -> list[Reason]:
    """Where the facts about ``rel``/``tier`` come from, when not from the shipped recipes."""
    notes: list[Reason] = []
    if info is not None and info.origin == "overlay":
        notes.append(reason("note.tier_learnt", tier=tier, source=info.source))
    if tier in rel.seen_on_index:
        notes.append(reason("note.seen_on_index", version=rel.version, tier=tier))
    elif tier in rel.learnt:
        notes.append(reason("note.learnt", version=rel.version, tier=tier))
    if tier in rel.unlisted:
        notes.append(reason("note.unlisted", version=rel.version, tier=tier))
    return notes


def _check_rocm(rel: kb.Release, tier: str, mv: MachineView, info: Any,
                notes: list[Reason]) -> Candidate | Rejection:
    gfx = kb.rocm_gfx(tier)
    if mv.mode == "rocm" and gfx:
        missing = [g for g in mv.gfx if g not in gfx]
        if missing:
            return Rejection(rel.version, tier, "rocm", reason("skip.rocm_gfx", MACHINE, tier=tier,
                                                               gfx=", ".join(gfx), missing=", ".join(missing)))
        if not info.verified:
            notes.append(reason("note.rocm_unverified", tier=tier, source=info.source))
    elif mv.mode == "rocm":
        notes.append(reason("note.rocm_unknown", tier=tier))
    return Candidate(rel, tier, rel.status(tier), None, notes=tuple(notes))


def _check_cuda(rel: kb.Release, tier: str, mv: MachineView, cons: Constraints,
                notes: list[Reason]) -> Candidate | Rejection:
    series = rel.series
    archs = kb.compiled_archs(rel, tier, mv.platform)
    if mv.mode != "cuda":
        return Candidate(rel, tier, rel.status(tier), archs, notes=tuple(notes))
    jetson = [g for g in mv.gpus if g.jetson]
    if jetson:
        return Rejection(rel.version, tier, "jetson", reason("skip.jetson", MACHINE, tier=tier,
                                                             gpu=jetson[0].describe()))
    floor = kb.driver_floor(tier, mv.driver_os, cons.policy)
    if cons.check_driver and floor and mv.driver and not kb.driver_ok(mv.driver, floor):
        return _driver_rejection(rel, tier, mv, cons, floor, archs)
    if archs is None:
        return Rejection(rel.version, tier, "unknown-archs", reason("skip.unknown_archs", tier=tier, series=series))
    matches = []
    for g in mv.gpus:
        cc = g.cc
        if not cc:   # a GPU whose compute capability is unknown is not checked here
            continue
        m = match(cc, archs)
        if m is None:
            return Rejection(rel.version, tier, "arch", reason(
                "skip.arch", MACHINE, tier=tier, series=series, archs=describe(archs), gpu=g.label,
                sm=cc.replace(".", ""), family=kb.gpu_family(cc), why=why_not(cc, archs)))
        matches.append((g.label, m))
        if m.kind == "ptx":
            notes.append(reason("note.ptx_only", MACHINE, gpu=g.label, series=series, tier=tier,
                                code=m.code.replace(".", "")))
    if not archs.verified:
        notes.append(reason("note.archs_unverified", series=series, tier=tier, platform=mv.platform,
                            source=archs.source))
    return Candidate(rel, tier, rel.status(tier), archs, tuple(matches), floor, tuple(notes))


def _driver_rejection(rel: kb.Release, tier: str, mv: MachineView, cons: Constraints, floor: str,
                      archs: Any) -> Rejection:
    """The driver is below the tier's floor; say too when a newer driver would not help (no code for the GPU)."""
    also: Reason | str = ""
    if archs is not None:
        blocked = [g for g in mv.gpus if g.cc and match(g.cc, archs) is None]
        if blocked:
            also = reason("skip.driver_no_help", MACHINE, archs=describe(archs), gpus=Joined(tuple(
                reason("gpu.sm", MACHINE, gpu=g.label, sm=g.cc.replace(".", "")) for g in blocked if g.cc)))
    return Rejection(rel.version, tier, "driver", reason("skip.driver", MACHINE, tier=tier, floor=floor,
                                                         policy=policy_words(tier, cons.policy), driver=mv.driver,
                                                         also=also))


_KIND_WORDS = {"rocm": "ROCm", "cuda": "CUDA"}


def _no_tiers(rel: kb.Release, mv: MachineView) -> Rejection:
    if mv.mode in rel.unknown_kinds:
        return Rejection(rel.version, None, "unknown-tiers", reason(
            "skip.unknown_kind", kind=_KIND_WORDS.get(mv.mode, mv.mode), version=rel.version))
    return Rejection(rel.version, None, "platform", reason("skip.no_mode_wheels", version=rel.version, mode=mv.mode,
                                                           platform=mv.platform))


def _tiers_to_try(rel: kb.Release, cons: Constraints, mv: MachineView) -> list[str] | Rejection:
    """The tiers of ``rel`` to try in order (the named one, or the machine's preference), else why none."""
    if mv.platform not in rel.platforms:
        return Rejection(rel.version, None, "platform", reason("skip.no_platform_wheels", version=rel.version,
                                                               platform=mv.platform))
    if cons.tier == "auto":
        tiers = _tier_order(rel, mv.platform, mv.mode)
        return tiers if tiers else _no_tiers(rel, mv)
    if cons.tier in rel.tiers(mv.platform):
        return [cons.tier]
    return Rejection(rel.version, cons.tier, "platform", reason(
        "skip.no_tier_wheels", version=rel.version, tier=cons.tier, platform=mv.platform,
        tiers=", ".join(rel.tiers(mv.platform))))


def _try_tier(rel: kb.Release, tier: str, cons: Constraints, mv: MachineView, index: IndexView | None,
              with_experimental: bool) -> Candidate | Rejection:
    """``check``, after the experimental gate of this pass and what the tier index lacks."""
    if not with_experimental and rel.status(tier) == "experimental":
        return Rejection(rel.version, tier, "experimental", reason("skip.experimental", tier=tier,
                                                                   version=rel.version))
    gap = index.lacks(rel, tier, cons.python) if index is not None else None
    return gap or check(rel, tier, mv, cons)


def _first_fit(rels: list[kb.Release], cons: Constraints, mv: MachineView, index: IndexView | None,
               with_experimental: bool, rejections: list[Rejection]) -> Candidate | None:
    """The first (release, tier) that fits, newest release first; each one that does not is added to
    ``rejections`` with why."""
    for rel in rels:
        tiers = _tiers_to_try(rel, cons, mv)
        if isinstance(tiers, Rejection):
            rejections.append(tiers)
            continue
        for tier in tiers:
            verdict = _try_tier(rel, tier, cons, mv, index, with_experimental)
            if isinstance(verdict, Candidate):
                return verdict
            rejections.append(verdict)
    return None


def search(cons: Constraints, mv: MachineView, index: IndexView | None = None) -> Outcome:
    """First fitting (release, tier): newest release first; within it the preferred tier.

    Experimental tiers are tried only when no stable tier of any matching release fits, unless
    ``allow_experimental`` (or the tier was named explicitly, which is always honoured).
    ``index``: what the tier indexes hold (``index_check``): builds they hold are added, builds
    they lack are skipped.
    """
    rels = matching_releases(cons.spec)
    if index is not None:
        rels = [index.extend(r, mv.mode) for r in rels]
    out = Outcome(found=None, considered=[r.version for r in rels])
    passes = [True] if (cons.allow_experimental or cons.tier != "auto") else [False, True]
    for with_experimental in passes:
        out.rejections = []
        found = _first_fit(rels, cons, mv, index, with_experimental, out.rejections)
        if found is not None:
            out.found = found
            return out
    return out
