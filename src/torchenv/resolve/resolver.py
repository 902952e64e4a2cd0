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
from ..reasons import MACHINE, PROJECT, SOURCES, TORCHENV, Joined, Reason, reason
from .alternatives import alternatives, as_flags, as_words
from .machine_view import MachineView, view
from .origins import who
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
        reasons.append(reason("index.unchecked", SOURCES, hosts=Joined(index.unreachable, "; ")))
    gap = index.lacks(found.release, found.tier, plan.python)
    if gap is not None and gap.text.id == "index.no_python_wheel":   # the Python was chosen after the search:
        warnings.append(Reason("index.python_gap", gap.text.params, SOURCES))   # say it, do not hide it
    more_reasons, more_warnings = variant_lines(index, found, plan.machine)
    return replace(plan, reasons=(*reasons, *more_reasons),
                   warnings=tuple(dict.fromkeys([*warnings, *more_warnings])))


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
    """The plan of the candidate the search found; each helper adds the reasons and warnings of one decision."""
    c = outcome.found
    assert c is not None
    rel, tier = c.release, c.tier
    info = kb.tier_info(tier)
    kind = info.kind if info else "cpu"
    reasons = [mv.summary(), *_release_reasons(intent, cons, outcome, c), *_tier_reasons(c, mv, cons, intent)]
    warnings = [*mv.warnings, *c.notes, *_gpu_warnings(c, kind, mv, cons, intent)]
    pypi_tier = kb.pypi_default_tier(rel, mv.platform)
    reasons += _pypi_reasons(rel.version, tier, pypi_tier, mv.platform)
    py = choose_python(rel, machine, cons.python, prefer_python, mv.platform,
                       wanted_by=who(intent, "torch.python"), requires=project_requires_python(intent))
    reasons.append(py.reason)
    warnings += _python_warnings(py)
    backend, backend_reason = _backend(intent, py.path, py.present)

    from ..sources.select import select_sources

    sources = select_sources(intent, tier=tier, platform=mv.platform, overrides=sources_overrides)
    reasons += _build_reasons(kind, mv, rel)
    compiled = c.archs.labels() if c.archs else (kb.rocm_gfx(tier) if kind == "rocm" else ())
    needs = kb.import_needs(rel.version)
    return Plan(
        torch_version=rel.version, tier=tier, tier_status=c.status,
        cuda_version=kb.cuda_version(tier) if kind == "cuda" else None,
        python=py.version, backend=backend, installer=intent.env.installer, platform=mv.platform,
        packages=planned_packages(rel, tier, mv.platform, tuple(intent.torch.with_)),
        pypi_default_build=pypi_tier == tier, reasons=tuple(reasons), machine=machine, intent=intent,
        sources=sources, python_path=py.path, warnings=tuple(dict.fromkeys(warnings)),
        expects_gpu=_expects_gpu(kind, mv, rel.version), compiled_archs=tuple(compiled),
        backend_reason=backend_reason, import_requirements=needs)


def _release_reasons(intent: Intent, cons: Constraints, outcome: Outcome, c: Candidate) -> list[Reason]:
    """Why this release: the newest that fits (within the asked spec), and what newer ones lack."""
    rel = c.release
    if cons.spec:
        by = who(intent, "torch.version")
        out = [reason("release.newest_matching", by.decided_by, version=rel.version, spec=repr(cons.spec), who=by)]
    else:
        out = [reason("release.newest", version=rel.version)]
    if rel.origin == "overlay":
        out.append(reason("release.refreshed", version=rel.version, source=rel.source))
    out += _newer_releases(outcome, rel.version)
    out += [r.text for r in outcome.rejections if r.release == rel.version]
    return out


def _pypi_reasons(version: str, tier: str, pypi_tier: str | None, platform: str) -> list[Reason]:
    """Where the torch family comes from: PyPI (exactly pinned) when PyPI's build is this tier, else its index."""
    if pypi_tier == tier:
        return [reason("source.pypi_build", tier=tier, version=version, platform=platform)]
    if pypi_tier:
        return [reason("source.tier_index", tier=tier, version=version, platform=platform, pypi_tier=pypi_tier)]
    return []


def _gpu_warnings(c: Candidate, kind: str, mv: MachineView, cons: Constraints, intent: Intent) -> list[Reason]:
    """A GPU build on a machine whose GPU is not seen, and an experimental tier (who allowed it)."""
    out = []
    if kind in ("cuda", "rocm") and mv.mode != kind:
        out.append(reason(f"warn.no_{kind}_gpu", MACHINE, tier=c.tier))
    if c.status == "experimental":
        if cons.tier != "auto":
            by = who(intent, "torch.cuda")
            why, decided = reason("set_by", by.decided_by, who=by), by.decided_by
        else:
            why = reason("experimental.allowed" if cons.allow_experimental else "experimental.no_stable")
            decided = TORCHENV
        out.append(reason("warn.experimental_tier", decided, tier=c.tier, version=c.release.version, why=why))
    return out


def _python_warnings(py: Any) -> list[Reason]:
    out = [py.warning] if py.warning else []
    if py.version.endswith("t"):
        out.append(reason("warn.free_threaded", python=py.version, abi=py.version.replace(".", "")))
    return out


def _build_reasons(kind: str, mv: MachineView, rel: kb.Release) -> list[Reason]:
    """What the chosen build brings along: MPS in the macOS cpu build, packages torch's import needs."""
    out = []
    if kind == "cpu" and mv.mode == "mps":
        out.append(reason("build.mps", MACHINE))
    needs = kb.import_needs(rel.version)
    if needs:
        out.append(reason("build.import_needs", packages=", ".join(needs), version=rel.version))
    return out


def _expects_gpu(kind: str, mv: MachineView, version: str) -> bool:
    """Should verify find a CUDA/ROCm/MPS device with this build on this machine?"""
    if kind in ("cuda", "rocm"):
        return mv.mode == kind
    return mv.mode == "mps" and kb.vtuple(version) >= (1, 12)


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


def _newer_releases(outcome: Outcome, chosen: str) -> list[Reason]:
    """One line per group of newer releases skipped for the same reasons (the first few), so "why not the
    latest?" is answered once per fact, not once per patch release."""
    groups = _fact_groups(outcome, [v for v in outcome.considered if kb.vtuple(v) > kb.vtuple(chosen)])
    lines = []
    for versions, facts in groups[:MAX_NEWER_RELEASE_LINES]:
        if facts:
            span = _span(versions, outcome.considered)
            lines.append(reason("release.not_chosen", version=span,
                                why=Joined(tuple(_spanned(f, span) for f in facts), "; ")))
    rest = [v for versions, _ in groups[MAX_NEWER_RELEASE_LINES:] for v in versions]
    if rest:
        kinds = sorted({r.kind for r in outcome.rejections if r.release in rest})
        lines.append(reason("release.more_skipped", count=len(rest),
                            kinds=", ".join(kinds) if kinds else reason("release.same_reasons")))
    return lines


def _fact_groups(outcome: Outcome, newer: list[str]) -> list[tuple[list[str], tuple[Reason, ...]]]:
    """Runs of ``newer`` releases skipped for the same facts, each with those facts."""
    groups: list[tuple[list[str], tuple[Reason, ...]]] = []
    for v in newer:
        facts = tuple(_fact(r) for r in outcome.rejections if r.release == v)
        if groups and groups[-1][1] == facts:
            groups[-1][0].append(v)
        else:
            groups.append(([v], facts))
    return groups


_VERSION = "\0"


def _fact(r: Rejection) -> Reason:
    """The rejection's sentence with its release (and series) blanked out: the same fact for 2.13.0 and 2.14.1."""
    return r.text.with_params(version=_VERSION, series=_VERSION)


def _spanned(fact: Reason, span: str) -> Reason:
    """A blanked fact (``_fact``) naming the releases ``span`` again."""
    return fact.with_params(**{k: span for k, v in fact.params if v == _VERSION})


def _span(versions: list[str], considered: list[str]) -> str:
    """``2.14.0-2.14.1`` when the versions are a run of consecutive considered releases, else a list."""
    if len(versions) == 1:
        return versions[0]
    ordered = sorted(versions, key=kb.vtuple)
    idx = sorted(considered.index(v) for v in versions if v in considered)
    if len(idx) == len(versions) and idx[-1] - idx[0] == len(idx) - 1:
        return f"{ordered[0]}-{ordered[-1]}"
    return ", ".join(ordered)


def _tier_reasons(c: Candidate, mv: MachineView, cons: Constraints, intent: Intent) -> list[Reason]:
    """Why this tier: set by someone (and checked), or the first that runs on every GPU; the driver floor."""
    by = who(intent, "torch.cuda")
    out = [_tier_choice(c, mv, cons, by)]
    if c.matches and c.floor and mv.driver:
        out.append(reason("tier.driver_floor", MACHINE, driver=mv.driver, floor=c.floor, tier=c.tier,
                          policy=policy_words(c.tier, cons.policy)))
    if mv.mode == "cuda" and c.tier.startswith("cu") and mv.driver:
        for g in mv.gpus:
            need = kb.gpu_driver_floor(g.cc) if g.cc else None
            if need and not kb.driver_ok(mv.driver, need):
                out.append(reason("tier.gpu_driver_note", gpu=g.label, family=kb.gpu_family(g.cc or ""), floor=need))
    return [r for r in out if r is not None]


def _tier_choice(c: Candidate, mv: MachineView, cons: Constraints, by: Reason) -> Reason | None:
    tier = c.tier
    if tier == "cpu" and not c.matches:
        return _cpu_choice(mv, cons, by)
    why = _tier_why(c, mv)
    if why is None:
        return None
    if cons.tier != "auto":
        return reason("tier.chosen_asked", by.decided_by, tier=tier, who=by, asked=tier, why=why)
    return reason("tier.chosen", why.decided_by, tier=tier, why=why)


def _tier_why(c: Candidate, mv: MachineView) -> Reason | None:
    """How the tier runs here: each GPU's match, no GPU to check, or the newest ROCm build."""
    if c.matches:
        if len(c.matches) == 1:
            return c.matches[0][1].explain()
        return reason("tier.every_gpu", MACHINE, per_gpu=Joined(
            tuple(reason("tier.gpu_match", label=label, how=m.explain()) for label, m in c.matches), "; "))
    if c.tier.startswith("cu") and mv.mode != "cuda":
        return reason("tier.no_gpu_checked", MACHINE)
    if c.tier.startswith("rocm"):
        if mv.gfx and kb.rocm_gfx(c.tier):
            return reason("tier.rocm_newest_carrying", gfx=", ".join(mv.gfx))
        return reason("tier.rocm_newest")
    return None


def _cpu_choice(mv: MachineView, cons: Constraints, by: Reason) -> Reason:
    if cons.tier == "cpu" and mv.mode in ("cuda", "rocm"):
        return reason("tier.cpu_asked", by.decided_by, who=by)
    if mv.mode == "mps":
        return reason("tier.cpu_macos", MACHINE)
    return reason("tier.cpu_no_gpu", MACHINE)


def _backend(intent: Intent, python_path: str | None, present: bool) -> tuple[str, Reason]:
    backend = intent.env.backend
    if backend != "auto":
        by = who(intent, "env.backend")
        if by.id == "who.caller" and backend == "venv":
            return backend, reason("backend.default", backend=backend)
        return backend, reason("backend.set", by.decided_by, backend=backend, who=by)
    if intent.conda.packages:
        return "conda", reason("backend.conda_packages", PROJECT)
    if not present:
        return "conda", reason("backend.conda_python", MACHINE)
    return "venv", reason("backend.venv_python", MACHINE, path=python_path or reason("backend.assumed"))


# -- refusals ------------------------------------------------------------------------------------------------
def _describe(cons: Constraints) -> Joined:
    parts: list[Reason] = [reason("ask.torch", spec=cons.spec) if cons.spec else reason("ask.any_torch")]
    if cons.tier != "auto":
        parts.append(reason("ask.tier", tier=cons.tier))
    if cons.python:
        parts.append(reason("ask.python", python=cons.python))
    if cons.policy == "strict":
        parts.append(reason("ask.strict"))
    return Joined(tuple(parts))


def _grouped(outcome: Outcome) -> list[tuple[Reason, str]]:
    """``(line, kind)`` per fact: rejections that differ only in their patch release are merged into one line
    naming the releases."""
    groups: dict[str, list[Rejection]] = {}
    keys: dict[str, Reason] = {}
    for r in outcome.rejections:
        key = r.text if r.kind == "jetson" else _fact(r)     # the Jetson reason is the same for every tier
        name = r.kind if r.kind == "jetson" else str(key)
        groups.setdefault(name, []).append(r)
        keys.setdefault(name, key)
    lines = []
    for name, rs in groups.items():
        span = _span(list(dict.fromkeys(r.release for r in rs)), outcome.considered)
        text = rs[0].text if name == "jetson" else _spanned(keys[name], span)
        lines.append((text if text.startswith("torch ") else reason("release.fact", text.decided_by, version=span,
                                                                      why=text), rs[0].kind))
    return lines


# Rejection kinds that say "torchenv's recipes lack a fact", not "the machine cannot run it".
_RECIPE_GAPS = frozenset({"unknown-archs", "unknown-tiers"})


def _refusal(cons: Constraints, mv: MachineView, outcome: Outcome) -> PlanRefused:
    """Nothing fits: what was asked, each fact that ruled a candidate out (merged), what would work instead."""
    alts = alternatives(cons, mv)
    kinds = {r.kind for r in outcome.rejections} - {"experimental"}
    recipe_gap = bool(kinds) and kinds <= _RECIPE_GAPS
    message = reason("refused.recipes_lack" if recipe_gap else "refused.no_build", what=_describe(cons),
                     mode=mv.mode, platform=mv.platform, instead=_instead(alts, 4) or reason("refused.no_alternative"))
    jetson = any(g.jetson for g in mv.gpus)
    hint = reason("hint.jetson") if jetson else (reason("hint.try", flags=as_flags(alts[0])) if alts
                                                 else reason("hint.see_reasons"))
    return PlanRefused(message, reasons=_refusal_reasons(mv, outcome), alternatives=alts, hint=hint)


def _refusal_reasons(mv: MachineView, outcome: Outcome) -> list[str]:
    reasons: list[str] = [mv.summary()]
    lines = _grouped(outcome)
    reasons += [line for line, _ in lines[:MAX_REFUSAL_REASONS]]
    if len(lines) > MAX_REFUSAL_REASONS:
        more_kinds = sorted({kind for _, kind in lines[MAX_REFUSAL_REASONS:]})
        reasons.append(reason("refused.more_reasons", count=len(lines) - MAX_REFUSAL_REASONS,
                              kinds=", ".join(more_kinds)))
    reasons += list(mv.warnings)
    blocked = {r.text.param("gpu") for r in outcome.rejections if r.kind == "arch"}
    if len(blocked) > 1 and len(mv.gpus) > 1:
        reasons.append(reason("refused.no_build_for_all_gpus", MACHINE))
    jetson = next((g for g in mv.gpus if g.jetson), None)
    if jetson is not None and not any(r.kind == "jetson" for r in outcome.rejections):
        reasons.append(reason("refused.jetson", MACHINE, gpu=jetson.describe()))
    return reasons


def _instead(alts: list[dict[str, Any]], count: int) -> Reason | None:
    """"would work instead: ..." naming the first ``count`` alternatives, or None when there are none."""
    if not alts:
        return None
    return reason("refused.instead", alternatives=Joined(tuple(as_words(a) for a in alts[:count]), "; "))


def _tier_known(cons: Constraints) -> bool:
    """Do the recipes know tier ``cons.tier`` for any release matching the intent's version?"""
    return any(cons.tier in tiers for rel in matching_releases(cons.spec) for tiers in rel.platforms.values())


def _unknown_tier(cons: Constraints, mv: MachineView) -> PlanRefused:
    """A tier the recipes never list for the wanted torch: a gap in torchenv's knowledge, not the machine's fault."""
    rels = matching_releases(cons.spec)
    which = reason("ask.torch", spec=cons.spec) if cons.spec else reason("ask.any_torch")
    known = list(dict.fromkeys(t for r in rels for t in r.tiers(mv.platform)))
    alts = alternatives(cons, mv)
    instead = _instead(alts, 3)
    message = reason("refused.unknown_tier" + ("_instead" if instead else ""), tier=cons.tier, which=which,
                     version=rels[0].version, **({"instead": instead} if instead else {}))
    reasons: list[str] = [mv.summary(), reason("refused.known_tiers", which=which, platform=mv.platform,
                                               tiers=", ".join(known) if known else reason("words.none"))]
    hint = (reason("hint.refresh_tier_or", tier=cons.tier, flags=as_flags(alts[0])) if alts
            else reason("hint.refresh_tier", tier=cons.tier))
    return PlanRefused(message, reasons=reasons, alternatives=alts, hint=hint)


def _unknown_version(cons: Constraints, mv: MachineView) -> PlanRefused:
    known = [r.version for r in kb.releases()]
    alts = alternatives(cons, mv)
    instead = _instead(alts, 3)
    message = reason("refused.unknown_version" + ("_instead" if instead else ""), spec=repr(cons.spec),
                     first=known[-1], last=known[0], **({"instead": instead} if instead else {}))
    known_lines: list[str] = [mv.summary(), reason("refused.known_releases", releases=", ".join(reversed(known)))]
    return PlanRefused(message, reasons=known_lines,
                       alternatives=alts, hint=reason("hint.refresh_release"))
