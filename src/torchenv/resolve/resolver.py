"""``resolve(intent, machine) -> Plan``: the one place that decides torch version, tier and Python.

Why these rules (compat.md, anchors.md §5.2): uv and light-the-torch stop at the driver floor,
so a GTX 1080 Ti with a new driver gets cu128 wheels without sm_6x code. Here a build must pass
the driver floor of its tier *and* carry code for every visible GPU, the Python must have
wheels, stable tiers beat experimental ones, and an explicit pin is honoured or refused (with
alternatives that pass every check), never silently changed. Each decision leaves a reason a
new user can read.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import kb
from ..errors import IntentError, PlanRefused
from ..intent.model import Intent
from ..machine import Machine
from .alternatives import alternatives, as_flags, as_words
from .machine_view import MachineView, view
from .packages import planned_packages
from .plan import Plan
from .python_choice import choose_python
from .search import Candidate, Constraints, Outcome, Rejection, matching_releases, policy_words, search

if TYPE_CHECKING:
    from ..options import SourceOverrides

MAX_NEWER_RELEASE_LINES = 3
MAX_REFUSAL_REASONS = 8


def resolve(intent: Intent, machine: Machine, *, prefer_python: str | None = None,
            sources_overrides: SourceOverrides | None = None, check_index: bool = False) -> Plan:
    """``check_index``: read the tier indexes the plan would use, when reachable (``plan``/``up`` do; see
    ``index_check``); otherwise the recipes alone answer."""
    mv = view(machine)
    cons = constraints(intent)
    if not matching_releases(cons.spec):
        raise _unknown_version(cons, mv)
    if cons.tier != "auto" and not _tier_known(cons):
        raise _unknown_tier(cons, mv)
    index = None
    if check_index:
        from .index_check import check

        index = check(intent, cons, mv, sources_overrides)
    outcome = search(cons, mv, index)
    if outcome.found is None:
        raise _refusal(cons, mv, outcome)
    plan = _plan(intent, machine, mv, cons, outcome, prefer_python, sources_overrides)
    return _with_index_facts(plan, index, outcome.found) if index is not None else plan


def _with_index_facts(plan: Plan, index: Any, found: Candidate) -> Plan:
    """The index check's own lines: what was read, what could not be, what its variants.json says."""
    from dataclasses import replace

    from .index_check import variant_lines

    reasons, warnings = list(plan.reasons), list(plan.warnings)
    seen = index.reason(found.release, found.tier)
    if seen:
        reasons.append(seen)
    if index.unreachable:
        reasons.append(f"could not check the tier index ({'; '.join(index.unreachable)}): the recipes answer")
    gap = index.lacks(found.release, found.tier, plan.python)
    if gap is not None:                       # the Python was chosen after the search: say it, do not hide it
        warnings.append(gap.text.replace(" skipped:", ":", 1) + f"; `up` will fail unless Python {plan.python}'s "
                        "wheel appears there (pick another with --python)")
    more_reasons, more_warnings = variant_lines(index, found, plan.machine)
    return replace(plan, reasons=tuple(reasons + more_reasons),
                   warnings=tuple(dict.fromkeys(warnings + more_warnings)))


def constraints(intent: Intent) -> Constraints:
    """The intent's torch section in normalised form (tolerates un-normalised values in hand-built intents)."""
    from ..intent.versions import InvalidValue, normalise_python, normalise_tier, normalise_torch_spec

    t = intent.torch
    file = str(intent.file) if intent.file else None
    try:
        tier = normalise_tier(t.cuda or "auto")
    except InvalidValue as exc:
        raise IntentError(exc.reason, file=file, key="torch.cuda", hint=exc.hint) from None
    try:
        spec = normalise_torch_spec(t.version) if t.version else None
    except InvalidValue as exc:
        raise IntentError(exc.reason, file=file, key="torch.version", hint=exc.hint) from None
    try:
        python = normalise_python(t.python) if t.python else None
    except InvalidValue as exc:
        raise IntentError(exc.reason, file=file, key="torch.python", hint=exc.hint) from None
    if t.policy not in ("compat", "strict"):
        raise IntentError(f"unknown driver policy {t.policy!r}", file=file, key="torch.policy",
                          hint='write "compat" (NVIDIA minor-version floors) or "strict" (toolkit drivers)')
    return Constraints(spec=spec, tier=tier, python=python, policy=t.policy,
                       allow_experimental=t.allow_experimental)


# -- success -------------------------------------------------------------------------------------------------
def _plan(intent: Intent, machine: Machine, mv: MachineView, cons: Constraints, outcome: Outcome,
          prefer_python: str | None, sources_overrides: SourceOverrides | None) -> Plan:
    c = outcome.found
    assert c is not None
    rel, tier = c.release, c.tier
    info = kb.tier_info(tier)
    kind = info.kind if info else "cpu"
    reasons = [mv.summary()]
    warnings = list(mv.warnings) + list(c.notes)

    from .origins import who

    what = f"matching {cons.spec!r} (set by {who(intent, 'torch.version')}) " if cons.spec else ""
    reasons.append(f"torch {rel.version}: the newest release {what}that fits this machine")
    if rel.origin == "overlay":
        reasons.append(f"torch {rel.version} is known from `torchenv recipes refresh` ({rel.source}): index facts "
                       "only, arch lists and experimental status are inferred")
    reasons += _newer_releases(outcome, rel.version)
    reasons += [r.text for r in outcome.rejections if r.release == rel.version]
    reasons += _tier_reasons(c, mv, cons, who(intent, "torch.cuda"))

    pypi_tier = kb.pypi_default_tier(rel, mv.platform)
    pypi = pypi_tier == tier
    if pypi:
        reasons.append(f"{tier} is PyPI's own build of torch {rel.version} on {mv.platform}: the torch family comes "
                       "from PyPI, exactly pinned (no local version tag)")
    elif pypi_tier:
        reasons.append(f"PyPI's build of torch {rel.version} on {mv.platform} is {pypi_tier}, so the {tier} build "
                       f"comes from the {tier} torch index, pinned with its local tag (+{tier})")
    if kind == "cuda" and mv.mode != "cuda":
        warnings.append(f"no NVIDIA GPU is visible: the {tier} build installs, but torch will run on the CPU only")
    if kind == "rocm" and mv.mode != "rocm":
        warnings.append(f"no AMD ROCm GPU was found: the {tier} build installs, but torch will run on the CPU only")
    if c.status == "experimental":
        why = f"set by {who(intent, 'torch.cuda')}" if cons.tier != "auto" else (
            "allowed by allow_experimental" if cons.allow_experimental else "no stable tier fits")
        warnings.append(f"{tier} is an experimental tier for torch {rel.version} ({why})")

    requires = project_requires_python(intent)
    py = choose_python(rel, machine, cons.python, prefer_python, mv.platform,
                       wanted_by=who(intent, "torch.python"), requires=requires)
    reasons.append(py.reason)
    if py.warning:
        warnings.append(py.warning)
    if py.version.endswith("t"):
        warnings.append(f"Python {py.version} is a free-threaded build (cp{py.version.replace('.', '')} wheels), "
                        "which RELEASE.md calls experimental; extensions without free-threaded wheels will not "
                        "install")

    packages = planned_packages(rel, tier, mv.platform, tuple(intent.torch.with_))
    backend, backend_reason = _backend(intent, py.path, py.present)

    from ..sources.select import select_sources

    sources = select_sources(intent, tier=tier, platform=mv.platform, overrides=sources_overrides)
    expects_gpu = (kind == "cuda" and mv.mode == "cuda") or (kind == "rocm" and mv.mode == "rocm") or \
        (mv.mode == "mps" and kb.vtuple(rel.version) >= (1, 12))
    if kind == "cpu" and mv.mode == "mps":
        reasons.append("on Apple silicon the cpu build includes MPS: verify expects the 'mps' device")
    compiled = c.archs.labels() if c.archs else (kb.rocm_gfx(tier) if kind == "rocm" else ())
    needs = kb.import_needs(rel.version)
    if needs:
        reasons.append(f"also installed: {', '.join(needs)}, which torch {rel.version}'s import needs without "
                       "requiring it (unless the project's requirements name it; left out, and said, when the "
                       "PyPI side cannot serve it)")
    return Plan(
        torch_version=rel.version, tier=tier, tier_status=c.status,
        cuda_version=kb.cuda_version(tier) if kind == "cuda" else None,
        python=py.version, backend=backend, installer=intent.env.installer, platform=mv.platform,
        packages=packages, pypi_default_build=pypi, reasons=tuple(reasons), machine=machine, intent=intent,
        sources=sources, python_path=py.path, warnings=tuple(dict.fromkeys(warnings)), expects_gpu=expects_gpu,
        compiled_archs=tuple(compiled), backend_reason=backend_reason, import_requirements=needs)


def project_requires_python(intent: Intent) -> tuple[str, str] | None:
    """(``requires-python``, where) of the project's pyproject.toml: the chosen Python must satisfy it, since
    installing the project fails outside it."""
    from ..fileio import tomllib_module

    path = intent.project_dir / "pyproject.toml"
    try:
        data = tomllib_module().loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    project = data.get("project")
    spec = project.get("requires-python") if isinstance(project, dict) else None
    return (spec, "pyproject.toml") if isinstance(spec, str) and spec.strip() else None


def _newer_releases(outcome: Outcome, chosen: str) -> list[str]:
    """One line per group of newer releases skipped for the same reasons (the first few), so "why not the
    latest?" is answered once per fact, not once per patch release."""
    newer = [v for v in outcome.considered if kb.vtuple(v) > kb.vtuple(chosen)]
    groups: list[tuple[list[str], tuple[str, ...]]] = []
    for v in newer:
        facts = tuple(_fact(r) for r in outcome.rejections if r.release == v)
        if groups and groups[-1][1] == facts:
            groups[-1][0].append(v)
        else:
            groups.append(([v], facts))
    lines = []
    for versions, facts in groups[:MAX_NEWER_RELEASE_LINES]:
        if facts:
            span = _span(versions, outcome.considered)
            lines.append(f"torch {span} not chosen: " + "; ".join(f.replace(_VERSION, span) for f in facts))
    rest = [v for versions, _ in groups[MAX_NEWER_RELEASE_LINES:] for v in versions]
    if rest:
        kinds = sorted({r.kind for r in outcome.rejections if r.release in rest})
        lines.append(f"{len(rest)} more newer releases skipped ({', '.join(kinds) or 'same reasons'})")
    return lines


_VERSION = "\0"


def _fact(r: Rejection) -> str:
    """The rejection's sentence with its release (and series) blanked out: the same fact for 2.13.0 and 2.14.1."""
    series = ".".join(r.release.split(".")[:2])
    return r.text.replace(f"torch {r.release}", f"torch {_VERSION}").replace(f"torch {series} ", f"torch {_VERSION} ")


def _span(versions: list[str], considered: list[str]) -> str:
    """``2.14.0-2.14.1`` when the versions are a run of consecutive considered releases, else a list."""
    if len(versions) == 1:
        return versions[0]
    ordered = sorted(versions, key=kb.vtuple)
    idx = sorted(considered.index(v) for v in versions if v in considered)
    if len(idx) == len(versions) and idx[-1] - idx[0] == len(idx) - 1:
        return f"{ordered[0]}-{ordered[-1]}"
    return ", ".join(ordered)


def _tier_reasons(c: Candidate, mv: MachineView, cons: Constraints, by: str) -> list[str]:
    tier = c.tier
    out = []
    asked = f"set by {by} (cuda = \"{tier}\"); " if cons.tier != "auto" else ""
    if c.matches:
        if len(c.matches) == 1:
            out.append(f"{tier} chosen: {asked}{c.matches[0][1].explain()}")
        else:
            per = "; ".join(f"{label}: {m.explain()}" for label, m in c.matches)
            out.append(f"{tier} chosen: {asked}runs on every GPU -- {per}")
        if c.floor and mv.driver:
            out.append(f"driver {mv.driver} >= {c.floor}, the floor of {tier} "
                       f"({policy_words(tier, cons.policy)})")
    elif tier.startswith("cu") and mv.mode != "cuda":
        out.append(f"{tier} chosen: {asked}no NVIDIA GPU is visible, so neither driver nor GPU code was checked")
    elif tier.startswith("rocm"):
        out.append(f"{tier} chosen: {asked}the newest ROCm build of this release"
                   + (f" carrying {', '.join(mv.gfx)}" if mv.gfx and kb.rocm_gfx(tier) else ""))
    elif tier == "cpu":
        if cons.tier == "cpu" and mv.mode in ("cuda", "rocm"):
            out.append(f"cpu chosen: set by {by} (cuda = \"cpu\"); the GPU will not be used")
        elif mv.mode == "mps":
            out.append("cpu build chosen: macOS wheels are CPU builds, with MPS on Apple silicon")
        else:
            out.append("cpu chosen: no usable GPU on this machine")
    if mv.mode == "cuda" and tier.startswith("cu") and mv.driver:
        for g in mv.gpus:
            need = kb.gpu_driver_floor(g.cc) if g.cc else None
            if need and not kb.driver_ok(mv.driver, need):
                out.append(f"note: {g.label} ({kb.gpu_family(g.cc or '')}) needs an R{need}+ driver [unverified]")
    return out


def _backend(intent: Intent, python_path: str | None, present: bool) -> tuple[str, str]:
    from .origins import who

    backend = intent.env.backend
    if backend != "auto":
        by = who(intent, "env.backend")
        if by == "the caller" and backend == "venv":
            return backend, f"{backend}: torchenv's default (env.backend is not set)"
        return backend, f"{backend}: set by {by} (env.backend)"
    if intent.conda.packages:
        return "conda", "conda: the project lists conda packages ([conda] packages)"
    if not present:
        return "conda", "conda: the planned Python is not on this machine, and conda can provide it"
    return "venv", f"venv: the planned Python is on this machine ({python_path or 'assumed'})"


# -- refusals ------------------------------------------------------------------------------------------------
def _describe(cons: Constraints) -> str:
    parts = [f"torch {cons.spec}" if cons.spec else "any torch release"]
    if cons.tier != "auto":
        parts.append(f"tier {cons.tier}")
    if cons.python:
        parts.append(f"Python {cons.python}")
    if cons.policy == "strict":
        parts.append("driver policy strict")
    return ", ".join(parts)


def _grouped(outcome: Outcome) -> list[tuple[str, str]]:
    """``(line, kind)`` per fact: rejections that differ only in their patch release are merged into one line
    naming the releases."""
    groups: dict[str, list[Rejection]] = {}
    for r in outcome.rejections:
        key = r.kind if r.kind == "jetson" else _fact(r)     # the Jetson reason is the same for every tier
        groups.setdefault(key, []).append(r)
    lines = []
    for key, rs in groups.items():
        span = _span(list(dict.fromkeys(r.release for r in rs)), outcome.considered)
        text = rs[0].text if key == "jetson" else key.replace(_VERSION, span)
        lines.append((text if text.startswith("torch ") else f"torch {span}: {text}", rs[0].kind))
    return lines


# Rejection kinds that say "torchenv's recipes lack a fact", not "the machine cannot run it".
_RECIPE_GAPS = frozenset({"unknown-archs", "unknown-tiers"})


def _refusal(cons: Constraints, mv: MachineView, outcome: Outcome) -> PlanRefused:
    reasons = [mv.summary()]
    lines = _grouped(outcome)
    reasons += [line for line, _ in lines[:MAX_REFUSAL_REASONS]]
    if len(lines) > MAX_REFUSAL_REASONS:
        more_kinds = sorted({kind for _, kind in lines[MAX_REFUSAL_REASONS:]})
        reasons.append(f"... {len(lines) - MAX_REFUSAL_REASONS} more reasons of kind {', '.join(more_kinds)} "
                       "(narrow the search with --torch or --cuda to see them)")
    reasons += list(mv.warnings)
    alts = alternatives(cons, mv)
    kinds = {r.kind for r in outcome.rejections} - {"experimental"}
    if kinds and kinds <= _RECIPE_GAPS:
        message = (f"torchenv's recipes do not know the builds of {_describe(cons)} that a {mv.mode} machine "
                   f"needs ({mv.platform}), so they cannot be checked against this machine")
    else:
        message = f"no torch build for {_describe(cons)} runs on this machine ({mv.platform})"
    if alts:
        message += "; would work instead: " + "; ".join(as_words(a) for a in alts[:4])
    else:
        message += "; no nearby alternative passes every check either"
    hint = f"try {as_flags(alts[0])}" if alts else "see the reasons above; `torchenv plan --json` lists them"
    blocked = {r.text.split("; ", 1)[-1].split(" is sm_")[0] for r in outcome.rejections if r.kind == "arch"}
    if len(blocked) > 1 and len(mv.gpus) > 1:
        reasons.append("no build carries code for every GPU of this machine: "
                       "plan for some of them by hiding the others with CUDA_VISIBLE_DEVICES")
    if any(g.jetson for g in mv.gpus):
        if not any(r.kind == "jetson" for r in outcome.rejections):
            reasons.append(_JETSON_REASON.format(gpu=next(g for g in mv.gpus if g.jetson).describe()))
        hint = _JETSON_HINT
    return PlanRefused(message, reasons=reasons, alternatives=alts, hint=hint)


_JETSON_REASON = ("{gpu} is a Jetson (integrated) GPU: the aarch64 torch wheels on PyPI and download.pytorch.org "
                  "are SBSA (server) builds, and Jetson boards need NVIDIA's JetPack builds of torch")
_JETSON_HINT = ("on Jetson install NVIDIA's JetPack build of torch for your JetPack version; "
                "torchenv can still plan the cpu build (--cuda cpu)")


def _tier_known(cons: Constraints) -> bool:
    """Do the recipes know tier ``cons.tier`` for any release matching the intent's version?"""
    return any(cons.tier in tiers for rel in matching_releases(cons.spec) for tiers in rel.platforms.values())


def _unknown_tier(cons: Constraints, mv: MachineView) -> PlanRefused:
    """A tier the recipes never list for the wanted torch: a gap in torchenv's knowledge, not the machine's fault."""
    rels = matching_releases(cons.spec)
    which = f"torch {cons.spec}" if cons.spec else "any torch release"
    known = list(dict.fromkeys(t for r in rels for t in r.tiers(mv.platform)))
    alts = alternatives(cons, mv)
    message = (f"torchenv's recipes do not know tier {cons.tier} for {which} (newest known release "
               f"{rels[0].version})")
    if alts:
        message += "; would work instead: " + "; ".join(as_words(a) for a in alts[:3])
    reasons = [mv.summary(), f"tiers the recipes know for {which} on {mv.platform}: {', '.join(known) or 'none'}"]
    return PlanRefused(message, reasons=reasons, alternatives=alts,
                       hint=(f"if the {cons.tier} index has this release, `torchenv recipes refresh --tier "
                             f"{cons.tier}` records it (recipes/releases.toml holds the shipped facts); otherwise "
                             "pick a known tier" + (f", e.g. {as_flags(alts[0])}" if alts else "")))


def _unknown_version(cons: Constraints, mv: MachineView) -> PlanRefused:
    known = [r.version for r in kb.releases()]
    alts = alternatives(cons, mv)
    message = (f"torchenv's recipes do not know a torch release matching {cons.spec!r} "
               f"(they know {known[-1]} to {known[0]}); this says nothing about the machine")
    if alts:
        message += "; would work instead: " + "; ".join(as_words(a) for a in alts[:3])
    return PlanRefused(message, reasons=[mv.summary(), f"known releases: {', '.join(reversed(known))}"],
                       alternatives=alts,
                       hint="if it is released, `torchenv recipes refresh` (or `--from` a mirror or folder) "
                            "teaches torchenv its builds; otherwise pin a known release")
