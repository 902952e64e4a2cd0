"""``resolve(intent, machine) -> Plan``: the one place that decides torch version, tier and Python.

Why these rules (compat.md, anchors.md §5.2): uv and light-the-torch stop at the driver floor,
so a GTX 1080 Ti with a new driver gets cu128 wheels without sm_6x code. Here a build must pass
the driver floor of its tier *and* carry code for every visible GPU, the Python must have
wheels, stable tiers beat experimental ones, and an explicit pin is honoured or refused (with
alternatives that pass every check), never silently changed. Each decision leaves a reason a
new user can read.
"""
from __future__ import annotations

from typing import Any

from .. import kb
from ..errors import IntentError, PlanRefused
from ..intent.model import Intent
from ..machine import Machine
from .alternatives import alternatives, as_flags, as_words
from .machine_view import MachineView, view
from .packages import planned_packages
from .plan import Plan
from .python_choice import choose_python
from .search import Candidate, Constraints, Outcome, Rejection, _policy_words, matching_releases, search

MAX_NEWER_RELEASE_LINES = 3
MAX_REFUSAL_REASONS = 8


def resolve(intent: Intent, machine: Machine, *, prefer_python: str | None = None,
            sources_overrides: Any = None) -> Plan:
    mv = view(machine)
    cons = constraints(intent)
    if not matching_releases(cons.spec):
        raise _unknown_version(cons, mv)
    outcome = search(cons, mv)
    if outcome.found is None:
        raise _refusal(cons, mv, outcome)
    return _plan(intent, machine, mv, cons, outcome, prefer_python, sources_overrides)


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
          prefer_python: str | None, sources_overrides: Any) -> Plan:
    c = outcome.found
    assert c is not None
    rel, tier = c.release, c.tier
    info = kb.tier_info(tier)
    kind = info.kind if info else "cpu"
    reasons = [mv.summary()]
    warnings = list(mv.warnings) + list(c.notes)

    what = f"matching {cons.spec!r} " if cons.spec else ""
    reasons.append(f"torch {rel.version}: the newest release {what}that fits this machine")
    reasons += _newer_releases(outcome, rel.version)
    reasons += [r.text for r in outcome.rejections if r.release == rel.version]
    reasons += _tier_reasons(c, mv, cons)

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
        why = "asked for explicitly" if cons.tier != "auto" else (
            "allowed by allow_experimental" if cons.allow_experimental else "no stable tier fits")
        warnings.append(f"{tier} is an experimental tier for torch {rel.version} ({why})")

    py = choose_python(rel, machine, cons.python, prefer_python)
    reasons.append(py.reason)
    if py.warning:
        warnings.append(py.warning)

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


def _newer_releases(outcome: Outcome, chosen: str) -> list[str]:
    """One line per newer release that was skipped (the first few), so "why not the latest?" is answered."""
    newer = [v for v in outcome.considered if kb.vtuple(v) > kb.vtuple(chosen)]
    lines = []
    for v in newer[:MAX_NEWER_RELEASE_LINES]:
        texts = [r.text for r in outcome.rejections if r.release == v]
        if texts:
            lines.append(f"torch {v} not chosen: " + "; ".join(texts))
    if len(newer) > MAX_NEWER_RELEASE_LINES:
        kinds = sorted({r.kind for r in outcome.rejections if r.release in newer[MAX_NEWER_RELEASE_LINES:]})
        lines.append(f"{len(newer) - MAX_NEWER_RELEASE_LINES} more newer releases skipped "
                     f"({', '.join(kinds) or 'same reasons'})")
    return lines


def _tier_reasons(c: Candidate, mv: MachineView, cons: Constraints) -> list[str]:
    tier = c.tier
    out = []
    asked = f"asked for (cuda = \"{tier}\"); " if cons.tier != "auto" else ""
    if c.matches:
        if len(c.matches) == 1:
            out.append(f"{tier} chosen: {asked}{c.matches[0][1].explain()}")
        else:
            per = "; ".join(f"{label}: {m.explain()}" for label, m in c.matches)
            out.append(f"{tier} chosen: {asked}runs on every GPU -- {per}")
        if c.floor and mv.driver:
            out.append(f"driver {mv.driver} >= {c.floor}, the floor of {tier} "
                       f"({_policy_words(tier, cons.policy)})")
    elif tier.startswith("cu") and mv.mode != "cuda":
        out.append(f"{tier} chosen: {asked}no NVIDIA GPU is visible, so neither driver nor GPU code was checked")
    elif tier.startswith("rocm"):
        out.append(f"{tier} chosen: {asked}the newest ROCm build of this release"
                   + (f" carrying {', '.join(mv.gfx)}" if mv.gfx and kb.rocm_gfx(tier) else ""))
    elif tier == "cpu":
        if cons.tier == "cpu" and mv.mode in ("cuda", "rocm"):
            out.append("cpu chosen: asked for (cuda = \"cpu\"); the GPU will not be used")
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
    backend = intent.env.backend
    if backend != "auto":
        return backend, f"{backend}: set by the project (env.backend)"
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


def _with_release(r: Rejection) -> str:
    return r.text if r.text.startswith("torch ") else f"torch {r.release}: {r.text}"


def _refusal(cons: Constraints, mv: MachineView, outcome: Outcome) -> PlanRefused:
    reasons = [mv.summary()]
    seen: set[str] = set()
    for r in outcome.rejections:
        key = r.kind if r.kind == "jetson" else r.text      # the Jetson reason is the same for every tier
        if key in seen:
            continue
        seen.add(key)
        reasons.append(_with_release(r))
        if len(reasons) > MAX_REFUSAL_REASONS:
            reasons.append(f"... {len(outcome.rejections) - MAX_REFUSAL_REASONS} more candidates skipped")
            break
    reasons += list(mv.warnings)
    alts = alternatives(cons, mv)
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
    if any(r.kind == "jetson" for r in outcome.rejections):
        hint = ("on Jetson install NVIDIA's JetPack build of torch for your JetPack version; "
                "torchenv can still plan the cpu build (--cuda cpu)")
    return PlanRefused(message, reasons=reasons, alternatives=alts, hint=hint)


def _unknown_version(cons: Constraints, mv: MachineView) -> PlanRefused:
    known = [r.version for r in kb.releases()]
    alts = alternatives(cons, mv)
    message = (f"torchenv's knowledge base has no torch release matching {cons.spec!r} "
               f"(it knows {known[-1]} to {known[0]})")
    if alts:
        message += "; would work instead: " + "; ".join(as_words(a) for a in alts[:3])
    return PlanRefused(message, reasons=[mv.summary(), f"known releases: {', '.join(reversed(known))}"],
                       alternatives=alts,
                       hint="pin a known release, or add the release to recipes/releases.toml")
