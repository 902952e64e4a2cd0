"""With ``cuda = "auto"``, plan among the builds that run here *and can be fetched from here*.

Why after the resolver: ``resolve`` decides from the knowledge base alone (fast, no network),
so it may pick ``+cpu`` from the PyTorch CPU index on a machine that cannot reach it, while
a build that runs is at hand (the user's own wheel folder, PyPI's default build, which runs
on a CPU too). Here the plan's torch-family files are looked up in its sources (local folders
first, the dead-host memory and short timeouts of ``sources.deadhosts``/``sources.http``);
when one is missing, candidates are tried in order, each a full ``resolve`` with one choice
made explicit, so a fallback still passes every check of the resolver:

1. the same release and tier for another Python on this machine (when Python is not pinned);
2. torch files in the user's local folders (find-links), with the Python their tags name;
3. PyPI's default build of each release matching the pin, newest first.

What an explicit tier, version or Python says is never switched: the refusal lists the
candidates that are reachable instead (local files, PyPI's build, mirror presets carrying
that tier). ``plan``, ``up`` and ``lock`` on the probed machine check (so ``plan`` shows what
``up`` installs); an assumed machine (``--assume-*``, ``--machine``) or ``--offline`` plans as before.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import PlanRefused, PulledInFamily, SourceError
from ..reasons import SOURCES, TORCHENV, Joined, Reason, reason

if TYPE_CHECKING:
    from ..intent.model import Intent
    from ..machine import Machine
    from ..options import SourceOverrides
    from ..sources.model import Sources
    from .plan import Plan

MAX_CANDIDATES = 12
FALLBACK = "fallback."      # the start of the ids of the warnings ``up`` prints for a fallback plan


def with_pulled_in_note(found: Plan, plan: Plan, pulled: PulledInFamily) -> Plan:
    """``found`` (planned again because the resolve of ``plan`` pulled in ``pulled.name``), saying so."""
    note = reason("fallback.pulled_in", SOURCES, name=pulled.name, version=plan.torch_version, tier=plan.tier,
                  message=pulled.message)
    return dataclasses.replace(found, warnings=(*found.warnings, note), reasons=(*found.reasons, note))


def fallback_said(plan: Plan) -> list[str]:
    """The warnings saying a fallback was planned and what was skipped (``up`` prints them)."""
    return [w for w in plan.warnings if isinstance(w, Reason) and w.id.startswith(FALLBACK)]


@dataclass(frozen=True)
class Candidate:
    """A variation of the intent to try: which words change, and why it is a candidate."""
    version: str | None
    tier: str | None
    python: str | None
    why: Reason

    def flags(self) -> str:
        words = [f"--torch {self.version.lstrip('=')}" if self.version else "", f"--cuda {self.tier}" if self.tier else "",
                 f"--python {self.python}" if self.python else ""]
        return " ".join(w for w in words if w)


def reachable_plan(intent: Intent, machine: Machine, overrides: SourceOverrides | None = None,
                   *, offline: bool = False, also_needed: frozenset[str] = frozenset()) -> Plan:
    """Resolved (the tier index checked when it answers), then narrowed to what can be fetched from here
    (``available_plan``); ``flows.planning.plan_reachable``, the planner of ``plan``, ``up`` and ``lock``,
    asks it."""
    from .resolver import resolve

    plan = resolve(intent, machine, sources_overrides=overrides, check_index=True)
    return available_plan(plan, intent, machine, overrides, offline=offline, also_needed=also_needed)


def available_plan(plan: Plan, intent: Intent, machine: Machine, overrides: SourceOverrides | None = None,
                   *, offline: bool = False, also_needed: frozenset[str] = frozenset()) -> Plan:
    """``plan`` when its torch-family files can be fetched; else (``auto`` only) the first reachable candidate.

    ``overrides``: the source flags the plan was resolved with (each candidate is resolved with them too);
    ``offline``: the install takes its files from the cache or a bundle, so nothing is looked up.
    """
    if machine.assumed or plan.sources is None or offline:
        return plan
    from ..sources.deadhosts import SourceMemory

    memory = SourceMemory.recent()            # hosts that failed in the last minutes are not asked again
    try:
        return _available(plan, intent, machine, overrides, Lookup(memory, also_needed))
    finally:
        memory.remember()


@dataclass(frozen=True)
class Lookup:
    """What one reachability check asks with: the hosts' recent record (``memory``, or ``LocalOnly``) and the
    torch-family names a resolve pulled in, which must come from the same source as the plan's own.

    Why one value handed down rather than module state: every plan tried (the first, each candidate,
    each mirror alternative) must be checked for the same names, and a value in the arguments is
    visible to the reader and to a test.
    """
    memory: Any
    also_needed: frozenset[str] = frozenset()

    def where(self, memory: Any) -> Lookup:
        return dataclasses.replace(self, memory=memory)


def _available(plan: Plan, intent: Intent, machine: Machine, overrides: SourceOverrides | None,
               lookup: Lookup) -> Plan:
    missing = missing_file(plan, lookup.memory, lookup.also_needed)
    if missing is None:
        return plan
    skipped = [reason("fallback.planned_missing", SOURCES, version=plan.torch_version, tier=plan.tier,
                      python=plan.python, why=missing)]
    explicit = _explicit(intent)
    tried: list[tuple[Candidate, Plan]] = []
    candidates = list(_candidates(plan, intent))
    for where in (LocalOnly(), lookup.memory):   # files already on this machine first, then any reachable source
        for cand in candidates:
            found = _try(cand, intent, machine, overrides, lookup.where(where))
            if isinstance(found, str):
                skipped.append(reason("fallback.candidate_failed", SOURCES, flags=cand.flags(), candidate=cand.why,
                                      why=found))
                continue
            if _keeps(found, plan, intent):
                return _with_fallback(found, skipped, cand, local=isinstance(where, LocalOnly))
            if all((p.torch_version, p.tier) != (found.torch_version, found.tier) for _c, p in tried):
                tried.append((cand, found))
    if explicit:
        raise _refusal(plan, explicit, missing, tried, lookup)
    raise PlanRefused(reason("fallback.none_fetchable", SOURCES, tier=plan.tier, why=missing),
                      reasons=[*plan.reasons, reason("fallback.skipped_colon", SOURCES, what=Joined(tuple(skipped), "; "))],
                      hint=reason("hint.fetch"), fits=fits(plan, missing))


def fits(plan: Plan, missing: str) -> dict[str, Any]:
    """The build that fits this machine, for a refusal that is about fetching it: what fits (decided from the
    machine and the recipes) apart from what could not be fetched (the sources)."""
    return {"torch": plan.torch_version, "tier": plan.tier, "python": plan.python, "platform": plan.platform,
            "target": plan.target_name, "fetchable": False, "not_fetchable": str(missing),
            "not_fetchable_data": missing.to_json() if isinstance(missing, Reason) else None}


def _explicit(intent: Intent) -> list[str]:
    """The torchenv.toml/flag words that must not be switched."""
    t = intent.torch
    out = []
    if t.cuda and t.cuda != "auto":
        out.append(f'cuda = "{t.cuda}"')
    if t.version:
        out.append(f'version = "{t.version}"')
    if t.python:
        out.append(f'python = "{t.python}"')   # TOML words: the same in every language
    return out


def _sources(plan: Plan) -> Sources:
    """The plan's sources: ``available_plan`` returns a plan without them unchecked, and ``resolve`` always sets them."""
    assert plan.sources is not None, "only plans with sources are checked for reachability"
    return plan.sources


def missing_file(plan: Plan, memory: Any, also_needed: frozenset[str] = frozenset()) -> str | None:
    """Why one of the plan's torch-family files cannot be had from its sources, or ``None`` when all can.

    Besides the planned packages: torch-family names the project's own requirements ask for
    (``triton``), which must come from the same torch source unless the plan is PyPI's build.
    A pin the user's pip constraint files forbid cannot be had either (``pip_caps``).
    """
    from ..sources.index import normalize
    from ..sources.locate import locate, torch_family
    from ..sources.wheelfit import target_glibc
    from .pip_caps import forbidden

    capped = forbidden(plan)
    if capped:
        return capped
    for pkg in plan.packages:
        if normalize(pkg.name) not in torch_family():
            continue
        try:
            locate(_sources(plan), normalize(pkg.name), pkg.version, source=pkg.source, tier=plan.tier,
                   python=plan.python, platform=plan.platform, memory=memory, hash_local=False,
                   glibc=target_glibc(plan.machine, plan.platform))   # listed is enough
        except SourceError as exc:
            return exc.message
    planned = {normalize(p.name) for p in plan.packages}
    for name in sorted((_required_family(plan) | also_needed) - planned):
        why = _unlisted(plan, name, memory)
        if why:
            return why
    return None


def _required_family(plan: Plan) -> set[str]:
    """Torch-family names in the project's requirement files (read as ``up`` reads them)."""
    import re

    from ..envlayout import dist_name as normalize
    from ..intent.project_requirements import gather
    from ..sources.locate import torch_family

    project = plan.intent.file.parent if plan.intent.file else plan.intent.project
    if project is None:
        return set()
    try:
        reqs, _warnings = gather(plan.intent, project)
    except Exception:
        return set()
    names = {normalize(m.group(1))
             for m in (re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", r.text) for r in reqs if not r.constraint) if m}
    return names & torch_family()


def _unlisted(plan: Plan, name: str, memory: Any) -> str | None:
    """Why no source the plan may take ``name`` from lists a wheel of it for this target, else ``None``."""
    from ..sources.index import list_project_files, parse_wheel_filename
    from ..sources.locate import FROM_PYPI, FROM_TORCH_INDEX, search_order
    from ..sources.wheelfit import target_glibc, target_tags

    tags = set(target_tags(plan.python, plan.platform, target_glibc(plan.machine, plan.platform)))
    source = FROM_PYPI if plan.pypi_default_build else FROM_TORCH_INDEX
    tried: list[Reason] = []
    for url, layout in search_order(_sources(plan), source):
        if not memory.usable(url):
            tried.append(reason("fetch.url_skipped", SOURCES, url=url))
            continue
        try:
            files = list_project_files(url, name, layout=layout)
        except SourceError as exc:
            memory.failed(url, exc.message, unreachable=True)
            tried.append(reason("fetch.url_why", SOURCES, url=url, why=exc.message))
            continue
        for f in files:
            try:
                fname, _v, ftags = parse_wheel_filename(f.filename)
            except SourceError:
                continue
            if fname == name and ftags & tags:
                return None
        tried.append(reason("fetch.url_no_wheel", SOURCES, url=url, name=name, python=plan.python))
    return reason("fetch.requirement_unserved", SOURCES, name=name, tried=Joined(tuple(tried), "; "))


class LocalOnly:
    """A source memory that allows only local folders and ``file://`` indexes (no network at all)."""

    def usable(self, url: str) -> bool:
        return "://" not in url or url.startswith("file:")

    def failed(self, url: str, reason: str, *, unreachable: bool | None = None) -> None:
        return None

    def why_skipped(self, urls: list[str]) -> str:
        return reason("fetch.local_first", SOURCES)


def _candidates(plan: Plan, intent: Intent) -> Iterator[Candidate]:
    seen: set[tuple[str | None, str | None, str | None]] = set()
    pinned_python = intent.torch.python
    pythons = sorted(plan.machine.python_versions(), key=_vt, reverse=True) if not pinned_python \
        else [pinned_python]

    def fresh(c: Candidate) -> bool:
        key = (c.version, c.tier, c.python)
        if key in seen:
            return False
        seen.add(key)
        return True

    from .. import kb

    rel = kb.release(plan.torch_version)
    out = [Candidate(f"=={plan.torch_version}", plan.tier, py, reason("fallback.same_build"))
           for py in pythons if py != plan.python and rel is not None and py in rel.python]
    out += list(_local_candidates(plan, pythons))
    out += list(_pypi_candidates(plan, intent, pythons))
    n = 0
    for c in out:
        if fresh(c) and n < MAX_CANDIDATES:
            n += 1
            yield c


def _local_candidates(plan: Plan, pythons: list[str]) -> Iterator[Candidate]:
    """torch wheels in the user's own folders, newest first, for the Pythons of this machine."""
    import os

    from ..sources.index import parse_wheel_filename
    from ..sources.pipconfig import local_dirs

    sources = _sources(plan)
    dirs = dict.fromkeys([*sources.wheelhouses, *(str(p) for p in local_dirs(list(sources.pypi.find_links)))])
    found: list[tuple[tuple[tuple[int, ...], tuple[int, ...]], Candidate]] = []   # (newest first key, candidate)
    for folder in dirs:
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            if not (name.startswith("torch-") and name.endswith(".whl")):
                continue
            try:
                _n, version, tags = parse_wheel_filename(name)
            except SourceError:
                continue
            public, _, local = version.partition("+")
            for py in pythons:
                if any(t.interpreter == f"cp{py.replace('.', '')}" for t in tags):
                    found.append(((_vt(public), _vt(py)),
                                  Candidate(f"=={public}", local or None, py,
                                            reason("fallback.local_wheel", wheel=name, folder=folder))))
    yield from (c for _key, c in sorted(found, key=lambda kc: kc[0], reverse=True))


def _pypi_candidates(plan: Plan, intent: Intent, pythons: list[str]) -> Iterator[Candidate]:
    """PyPI's default build of each release the pin and the user's pip constraints allow (it runs on a CPU
    too), newest first."""
    from .. import kb
    from .pip_caps import caps, torch_allowed
    from .resolver import constraints
    from .search import matching_releases

    found = caps(tuple(plan.sources.pypi.constraints)) if plan.sources is not None else []
    allowed = [rel for rel in matching_releases(constraints(intent).spec) if torch_allowed(found, rel.version)]
    for rel in allowed[:3]:
        tier = kb.pypi_default_tier(rel, plan.platform)
        if not tier:
            continue
        for py in pythons:
            if py in rel.python:
                yield Candidate(f"=={rel.version}", tier, py, reason("fallback.pypi_build", version=rel.version))


def _try(cand: Candidate, intent: Intent, machine: Machine, overrides: SourceOverrides | None,
         lookup: Lookup) -> Plan | Reason | str:
    """The candidate's plan when the resolver accepts it and its files can be had, else why not."""
    from ..errors import IntentError
    from .resolver import resolve

    torch = dataclasses.replace(intent.torch, version=cand.version or intent.torch.version,
                                cuda=cand.tier or "cpu", python=cand.python or intent.torch.python)
    try:
        keys = [k for k, v in (("torch.version", cand.version), ("torch.cuda", True), ("torch.python", cand.python))
                if v]
        trial = dataclasses.replace(intent, torch=torch).set_by(reason("who.fallback", TORCHENV, why=cand.why),
                                                                *keys)
        plan = resolve(trial, machine, sources_overrides=overrides)
    except (PlanRefused, IntentError) as exc:
        return reason("fallback.does_not_fit", why=exc.message)
    missing = missing_file(plan, lookup.memory, lookup.also_needed)
    return plan if missing is None else missing


def _keeps(found: Plan, planned: Plan, intent: Intent) -> bool:
    """Does the fallback keep every explicit word of the intent (tier, version, Python)?"""
    from .resolver import constraints
    from .search import matching_releases

    cons = constraints(intent)
    return ((cons.tier == "auto" or found.tier == planned.tier)
            and (not cons.spec or found.torch_version in {r.version for r in matching_releases(cons.spec)})
            and (not cons.python or found.python == cons.python))


def _with_fallback(plan: Plan, skipped: list[Reason], cand: Candidate, *, local: bool) -> Plan:
    """The fallback plan, its reasons saying what was skipped and why; the user's intent is kept on it."""
    said = dict(version=plan.torch_version, tier=plan.tier, python=plan.python, why=cand.why,
                how=reason("fallback.local" if local else "fallback.fetchable", SOURCES))
    note = reason("fallback.chose", SOURCES, **said)
    reasons = (*plan.reasons, note, *(reason("fallback.skipped", SOURCES, what=s) for s in skipped))
    warning = (reason("fallback.chose_skipped_more", SOURCES, skipped=skipped[0], count=len(skipped) - 1, **said)
               if len(skipped) > 1 else reason("fallback.chose_skipped", SOURCES, skipped=skipped[0], **said))
    return dataclasses.replace(plan, reasons=reasons, warnings=(*plan.warnings, warning))


def _refusal(plan: Plan, explicit: list[str], missing: str, tried: list[tuple[Candidate, Plan]],
             lookup: Lookup) -> PlanRefused:
    """An explicit choice whose files cannot be fetched: refused, with what is reachable instead."""
    alts = [{"kind": "reachable", "torch": p.torch_version, "tier": p.tier, "python": p.python,
             "why": c.why, "flags": c.flags()} for c, p in tried[:4]]
    alts += _mirror_alternatives(plan, lookup)
    words = Joined(tuple(reason("fallback.alternative", flags=a["flags"], why=a["why"]) for a in alts), "; ") \
        if alts else reason("words.none_found")
    return PlanRefused(reason("fallback.explicit_unfetchable", SOURCES, version=plan.torch_version, tier=plan.tier,
                              explicit=", ".join(explicit), why=missing, alternatives=words),
                       reasons=list(plan.reasons), alternatives=alts, hint=reason("hint.explicit_unfetchable"),
                       fits=fits(plan, missing))


def _mirror_alternatives(plan: Plan, lookup: Lookup) -> list[dict[str, Any]]:
    """Mirror presets carrying the plan's tier whose listing has its files."""
    from ..sources.mirrors import presets
    from ..sources.model import TorchSource

    out = []
    for name, preset in sorted(presets().items()):
        if not preset.torch or name == "official":   # what ``preset.has("torch")`` says, seen by mypy
            continue
        source = TorchSource(url=f"{preset.torch.rstrip('/')}/{plan.tier}", layout=preset.torch_layout, name=name)
        trial = dataclasses.replace(plan, sources=dataclasses.replace(_sources(plan), torch=(source,), wheelhouses=()))
        if missing_file(trial, lookup.memory, lookup.also_needed) is None:
            out.append({"kind": "mirror", "torch": plan.torch_version, "tier": plan.tier, "python": plan.python,
                        "why": reason("fallback.mirror_carries", SOURCES, name=name, tier=plan.tier),
                        "flags": f"--mirror {name}"})
    return out


def _vt(version: str) -> tuple[int, ...]:
    out = []
    for part in version.split("."):
        digits = "".join(ch for ch in part if ch.isdigit())
        out.append(int(digits or 0))
    return tuple(out)
