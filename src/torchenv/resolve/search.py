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
    text: str


@dataclass(frozen=True)
class Candidate:
    release: kb.Release
    tier: str
    status: str
    archs: kb.ArchSet | None
    matches: tuple[tuple[str, ArchMatch], ...] = ()      # (gpu label, how it runs)
    floor: str | None = None
    notes: tuple[str, ...] = ()                          # warnings specific to this candidate


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


def python_gap(rel: kb.Release, python: str, platform: str) -> str:
    """Why ``rel`` has no wheel for ``python`` on ``platform``, naming where such wheels do exist."""
    free = python.endswith("t")
    anywhere = rel.pythons(freethreaded=free)
    if python in anywhere:
        where = ", ".join(rel.python_platforms.get(python, ())) or "other platforms"
        return f"torch {rel.version} has no Python {python} wheels for {platform} (only for {where})"
    if free:
        have = ", ".join(anywhere) or "none"
        return f"torch {rel.version} has no free-threaded Python {python} wheels (free-threaded builds: {have})"
    here = rel.pythons(platform)
    return f"torch {rel.version} has no wheels for Python {python} (it has {here[0]}-{here[-1]})"


def _floors_known(tier: str) -> bool:
    info = kb.tier_info(tier)
    return info is not None and info.origin == "recipes"


def policy_words(tier: str, policy: str) -> str:
    cuda = kb.cuda_version(tier) or "?"
    if policy == "strict":
        return f"the CUDA {cuda} toolkit's own driver, policy strict"
    major = cuda.split(".")[0]
    return (f"CUDA {major}.x minor-version compatibility" if int(major) >= 11
            else f"CUDA {cuda} has no minor-version compatibility")


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
        return Rejection(rel.version, tier, "unknown-tiers",
                         f"{tier} skipped: torchenv's recipes do not know tier {tier} (recipes/tiers.toml)")
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
            return Rejection(rel.version, tier, "glibc",
                             f"torch {rel.version} wheels need glibc >= {need} (manylinux tag); "
                             f"this machine has {mv.glibc}")
    return None


def _provenance_notes(rel: kb.Release, tier: str, info: Any) -> list[str]:
    """Where the facts about ``rel``/``tier`` come from, when not from the shipped recipes."""
    notes: list[str] = []
    if info is not None and info.origin == "overlay":
        notes.append(f"tier {tier} was learnt by `torchenv recipes refresh`; its driver floors are inferred "
                     f"({info.source})")
    if tier in rel.seen_on_index:
        notes.append(f"torch {rel.version} {tier} is on the {tier} index although the recipes do not list it: "
                     "its GPU code list and floors are inferred")
    elif tier in rel.learnt:
        notes.append(f"torch {rel.version} {tier} was seen on the index by `torchenv recipes refresh`; the shipped "
                     "recipes do not list it")
    if tier in rel.unlisted:
        notes.append(f"torch {rel.version} {tier} is on the {tier} index but not in RELEASE.md's table "
                     "(a limited release; compat.md §8b)")
    return notes


def _check_rocm(rel: kb.Release, tier: str, mv: MachineView, info: Any, notes: list[str]) -> Candidate | Rejection:
    gfx = kb.rocm_gfx(tier)
    if mv.mode == "rocm" and gfx:
        missing = [g for g in mv.gfx if g not in gfx]
        if missing:
            return Rejection(rel.version, tier, "rocm",
                             f"{tier} skipped: its wheels carry {', '.join(gfx)}; this GPU is {', '.join(missing)}")
        if not info.verified:
            notes.append(f"the GPU architecture list of {tier} is unverified ({info.source})")
    elif mv.mode == "rocm":
        notes.append(f"the GPU architectures of {tier} are not in the knowledge base: not checked")
    return Candidate(rel, tier, rel.status(tier), None, notes=tuple(notes))


def _check_cuda(rel: kb.Release, tier: str, mv: MachineView, cons: Constraints,
                notes: list[str]) -> Candidate | Rejection:
    series = rel.series
    archs = kb.compiled_archs(rel, tier, mv.platform)
    if mv.mode != "cuda":
        return Candidate(rel, tier, rel.status(tier), archs, notes=tuple(notes))
    jetson = [g for g in mv.gpus if g.jetson]
    if jetson:
        return Rejection(rel.version, tier, "jetson",
                         f"{tier} skipped: {jetson[0].describe()} is a Jetson (integrated) GPU; the aarch64 torch "
                         "wheels on PyPI and download.pytorch.org are SBSA (server) builds, and Jetson boards need "
                         "NVIDIA's JetPack builds of torch")
    floor = kb.driver_floor(tier, mv.driver_os, cons.policy)
    if cons.check_driver and floor and mv.driver and not kb.driver_ok(mv.driver, floor):
        return _driver_rejection(rel, tier, mv, cons, floor, archs)
    if archs is None:
        return Rejection(rel.version, tier, "unknown-archs",
                         f"{tier} skipped: the GPU code in torch {series} {tier} wheels is not in the knowledge "
                         "base (recipes/archs.toml)")
    matches = []
    for g in mv.gpus:
        cc = g.cc
        if not cc:   # a GPU whose compute capability is unknown is not checked here
            continue
        m = match(cc, archs)
        if m is None:
            return Rejection(rel.version, tier, "arch",
                             f"{tier} skipped: torch {series} {tier} wheels carry {describe(archs)}; {g.label} is "
                             f"sm_{cc.replace('.', '')} ({kb.gpu_family(cc)}): {why_not(cc, archs)} "
                             "-> 'no kernel image is available'")
        matches.append((g.label, m))
        if m.kind == "ptx":
            notes.append(f"{g.label} runs torch {series} {tier} only through PTX JIT (compute_"
                         f"{m.code.replace('.', '')}): the first start compiles kernels and some library "
                         "kernels may be missing")
    if not archs.verified:
        notes.append(f"the GPU code list of torch {series} {tier} on {mv.platform} is unverified "
                     f"({archs.source})")
    return Candidate(rel, tier, rel.status(tier), archs, tuple(matches), floor, tuple(notes))


def _driver_rejection(rel: kb.Release, tier: str, mv: MachineView, cons: Constraints, floor: str,
                      archs: Any) -> Rejection:
    """The driver is below the tier's floor; say too when a newer driver would not help (no code for the GPU)."""
    also = ""
    if archs is not None:
        blocked = [g for g in mv.gpus if g.cc and match(g.cc, archs) is None]
        if blocked:
            also = (f"; a newer driver would not help: its wheels carry {describe(archs)}, no code for "
                    + ", ".join(f"{g.label} (sm_{g.cc.replace('.', '')})" for g in blocked if g.cc))
    return Rejection(rel.version, tier, "driver",
                     f"{tier} skipped: needs NVIDIA driver >= {floor} ({policy_words(tier, cons.policy)}); "
                     f"this machine has {mv.driver}{also}")


_KIND_WORDS = {"rocm": "ROCm", "cuda": "CUDA"}


def _no_tiers(rel: kb.Release, mv: MachineView) -> Rejection:
    if mv.mode in rel.unknown_kinds:
        return Rejection(rel.version, None, "unknown-tiers",
                         f"torchenv's recipes do not know which {_KIND_WORDS.get(mv.mode, mv.mode)} builds torch {rel.version} has "
                         "(no source lists them; recipes/releases.toml)")
    return Rejection(rel.version, None, "platform", f"torch {rel.version} has no {mv.mode} wheels for {mv.platform}")


def _tiers_to_try(rel: kb.Release, cons: Constraints, mv: MachineView) -> list[str] | Rejection:
    """The tiers of ``rel`` to try in order (the named one, or the machine's preference), else why none."""
    if mv.platform not in rel.platforms:
        return Rejection(rel.version, None, "platform", f"torch {rel.version} has no wheels for {mv.platform}")
    if cons.tier == "auto":
        tiers = _tier_order(rel, mv.platform, mv.mode)
        return tiers if tiers else _no_tiers(rel, mv)
    if cons.tier in rel.tiers(mv.platform):
        return [cons.tier]
    return Rejection(rel.version, cons.tier, "platform",
                     f"torch {rel.version} has no {cons.tier} wheels for {mv.platform} "
                     f"(it has {', '.join(rel.tiers(mv.platform))})")


def _try_tier(rel: kb.Release, tier: str, cons: Constraints, mv: MachineView, index: IndexView | None,
              with_experimental: bool) -> Candidate | Rejection:
    if not with_experimental and rel.status(tier) == "experimental":
        return Rejection(rel.version, tier, "experimental",
                         f"{tier} not considered: experimental for torch {rel.version} "
                         "(allow_experimental = true, or --experimental, to use it)")
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
