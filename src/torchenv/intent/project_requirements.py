"""The project's own requirements, and the check that they agree with the plan.

Why here and not left to the installer: a ``torch==1.13`` in requirements.txt next to
``version = "2.4"`` in torchenv.toml would make uv/pip fail with a resolver trace, or worse,
pick a different torch. torchenv names both files instead. Gathering is plain text work
(no ``packaging``) because the no-op ``up`` hashes the requirements too.
"""
from __future__ import annotations

import dataclasses
import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..envlayout import dist_name
from ..errors import IntentError
from ..reasons import PROJECT, reason

if TYPE_CHECKING:
    from packaging.requirements import Requirement

    from ..intent.model import Intent
    from ..intent.requirements_file import ReqLine
    from ..lockfile.model import Lockfile
    from ..resolve.plan import Plan
    from .jupyter import KernelWanted

_NAME = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
# a requirement line that is a location, not NAME SPEC: pip installs it as a path or URL
_LOCATION = re.compile(r"\.{0,2}/|~|[A-Za-z][\w+.-]*://|[\w.-]+/[\w./-]+$")


@dataclass(frozen=True)
class ProjectRequirement:
    text: str          # the requirement as written, without per-requirement options ("numpy>=1.26")
    file: str          # where: requirements.txt / pyproject.toml
    line: int | None
    constraint: bool = False   # from a ``-c`` file: limits versions, installs nothing by itself
    added: str = ""            # not the project's: why torchenv adds it (ipykernel for a Jupyter kernel)

    @property
    def key(self) -> str:
        """What the lock's requirements hash covers: a constraint differs from a requirement."""
        return f"-c {self.text}" if self.constraint else self.text


@dataclass
class _Reading:
    """One gathering pass: what was read, what was said about it, which files were seen."""
    project: Path
    out: list[ProjectRequirement]
    warnings: list[str]
    seen: set[Path]


def _requirement_lines(path: Path, included_from: str | None) -> list[ReqLine]:
    """The lines of a requirements file (or of an environment.yml's ``pip:`` list); an error naming the file."""
    from ..fileio import InputRefused, read_bounded
    from ..intent.requirements_file import decode_requirements, parse_requirements_text

    try:
        text = decode_requirements(read_bounded(path))
        return conda_pip_lines(text, path) if path.suffix in (".yml", ".yaml") else parse_requirements_text(text)
    except (OSError, UnicodeDecodeError, InputRefused) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise IntentError(f"cannot read requirements file: {why}", file=str(path),
                          key="env.requirements", hint="fix the path in [env] requirements "
                          "(or the -r/-c line that names it)" + (f" ({included_from})" if included_from else ""))\
            from None


def _take_requirement(entry: ReqLine, where: str, path: Path, reading: _Reading, constraint: bool,
                      included_from: str | None) -> bool:
    """Record one requirement line; its options other than ``--hash`` are said to be ignored. True when it
    carried a ``--hash``."""
    if included_from:
        _check_included_line(entry.text, where, path, included_from)
    reading.out.append(ProjectRequirement(entry.text, str(path), entry.line, constraint))
    for name, value in entry.options:
        if name != "--hash":
            reading.warnings.append(reason("req.option_of_ignored", PROJECT, where=where,
                                           option=f"{name} {value}".rstrip(), requirement=entry.text,
                                           why=reason("req.sources_from")))
    return bool(entry.values("--hash"))


def _read_requirements_file(path: Path, reading: _Reading, *, constraint: bool = False,
                            included_from: str | None = None) -> None:
    path = path.resolve()
    if path in reading.seen:
        return
    reading.seen.add(path)
    hashed = 0
    for entry in _requirement_lines(path, included_from):
        where = f"{_shown(path, reading.project)}:{entry.line}"
        if entry.kind == "requirement":
            hashed += _take_requirement(entry, where, path, reading, constraint, included_from)
        elif entry.kind in ("include", "constraint"):
            _read_requirements_file(path.parent / entry.text, reading,
                                    constraint=constraint or entry.kind == "constraint",
                                    included_from=f"{where}: {entry.option} {entry.text}")
        elif entry.kind == "editable":
            reading.warnings.append(_editable_note(where, entry.text, path.parent, reading.project))
        else:
            reading.warnings.append(reason("req.option_ignored", PROJECT, where=where,
                                           option=f"{entry.option} {entry.text}".rstrip(),
                                           why=reason("req.sources_from")))
    if hashed:
        reading.warnings.append(reason("req.hashes_not_compared", PROJECT, where=_shown(path, reading.project),
                                       count=hashed))


def _check_included_line(text: str, where: str, path: Path, included_from: str) -> None:
    """An included file must read as requirements: ``-r /etc/passwd`` is stopped here, not after torch downloaded."""
    from ..i18n import _
    from ..intent.requirements_file import looks_like_requirement

    if not looks_like_requirement(text):
        including, _sep, option = included_from.partition(": ")
        raise IntentError(_("`{option}` names {path}, which is not a requirements file (its line {line} reads "
                            "{text}); nothing was downloaded").format(option=option, path=path,
                                                                       line=where.rsplit(":", 1)[-1],
                                                                       text=ascii(text[:80])), file=including,
                          hint=_("point the -r/-c line at a requirements file (one requirement per line, "
                                 "e.g. numpy>=1.26)"))


def conda_pip_lines(text: str, path: Path) -> list[ReqLine]:
    """The ``pip:`` list of a conda ``environment.yml``, as requirement-file lines.

    Why only that list: the conda packages beside it are conda names (``pytorch``,
    ``cudatoolkit``, ``ffmpeg``), not wheels; ``init`` carried the torch ones over into
    torchenv.toml and named the rest. Lines are numbered by their place in the file.
    """
    import yaml  # type: ignore[import-untyped,unused-ignore]  # PyYAML ships no hints (types-PyYAML, if installed, does)

    from ..intent.requirements_file import parse_requirements_text

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise IntentError(f"not a readable conda environment file: {exc}", file=str(path),
                          key="env.requirements", hint="fix the YAML, or list a requirements.txt instead") from None
    deps = data.get("dependencies") if isinstance(data, dict) else None
    pip: list[object] = next((d["pip"] for d in deps or [] if isinstance(d, dict) and isinstance(d.get("pip"), list)), [])
    rows = text.splitlines()
    out = []
    for item in (p for p in pip if isinstance(p, str)):
        no = next((i for i, row in enumerate(rows, start=1) if item in row), 0)
        out += [dataclasses.replace(e, line=no) for e in parse_requirements_text(item)]
    return out


def _editable_note(where: str, target: str, file_dir: Path, project: Path) -> str:
    from ..intent.requirements_file import is_the_project_itself

    if is_the_project_itself(target, file_dir, project):
        return reason("req.editable_self", PROJECT, where=where, target=target)
    return reason("req.editable_left_out", PROJECT, where=where, target=target)


def _shown(path: Path, project: Path) -> str:
    try:
        return path.relative_to(project.resolve()).as_posix()
    except ValueError:
        return path.name


def gather(intent: Intent, project_dir: Path) -> tuple[list[ProjectRequirement], list[str]]:
    """``[env] requirements`` files, else ``requirements.txt``, else ``[project].dependencies``, else
    setup.py/setup.cfg ``install_requires`` (read, never run); plus the ``[env] extras`` groups."""
    reqs, warnings = _gather_base(intent, project_dir)
    if intent.env.extras:
        from .project_deps import optional_requirements

        texts, where, unknown = optional_requirements(project_dir, intent.env.extras)
        reqs.extend(ProjectRequirement(t, where, None) for t in texts)
        if unknown:
            raise IntentError(f"[env] extras names {', '.join(unknown)}, which {where} does not define",
                              file=str(intent.file) if intent.file else None, key="env.extras",
                              hint="use a group of [project.optional-dependencies] in pyproject.toml, or remove it")
    wanted = kernel_wanted(intent, project_dir, reqs)
    if wanted is not None and not any(_named(r.text) == "ipykernel" for r in reqs if not r.constraint):
        reqs.append(ProjectRequirement("ipykernel", wanted.where, None, added=wanted.why))   # locked like any package
    return reqs, warnings


def kernel_wanted(intent: Intent, project_dir: Path, reqs: list[ProjectRequirement]) -> KernelWanted | None:
    """Why the project's env gets ipykernel and a kernelspec (``intent.jupyter``); ``None``: it does not."""
    from .jupyter import kernel_wanted as decide

    names = [(_named(r.text) or "", r.file) for r in reqs if not r.constraint and not r.added]
    return decide(intent.env.jupyter, names, project_dir, str(intent.file or project_dir / "torchenv.toml"))


def kernel_reason(wanted: KernelWanted) -> str:
    """The plan's line for it."""
    return reason("kernel.planned", PROJECT, why=wanted.why)


def _gather_base(intent: Intent, project_dir: Path) -> tuple[list[ProjectRequirement], list[str]]:
    reqs: list[ProjectRequirement] = []
    warnings: list[str] = []
    reading = _Reading(project_dir, reqs, warnings, set())
    if intent.env.requirements:
        for name in intent.env.requirements:
            _read_requirements_file(project_dir / name, reading)
        return reqs, warnings
    txt = project_dir / "requirements.txt"
    if txt.is_file():
        _read_requirements_file(txt, reading)
        return reqs, warnings
    pyproject = project_dir / "pyproject.toml"
    if pyproject.is_file():
        from ..fileio import tomllib_module

        try:
            data = tomllib_module().loads(pyproject.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise IntentError(f"cannot read [project].dependencies: {exc}", file=str(pyproject),
                              hint="fix the TOML syntax, or list requirements in [env] requirements") from None
        for dep in (data.get("project") or {}).get("dependencies") or []:
            reqs.append(ProjectRequirement(str(dep), str(pyproject), None))
        if reqs or "dependencies" in (data.get("project") or {}):
            return reqs, warnings
    _setup_requirements(project_dir, reading)
    return reqs, warnings


def _setup_requirements(project_dir: Path, reading: _Reading) -> None:
    """``install_requires`` of setup.py / setup.cfg (never executed), for a project installed with --no-deps."""
    from .project_deps import setup_cfg_requirements, setup_py_requirements

    setup_py, setup_cfg = project_dir / "setup.py", project_dir / "setup.cfg"
    if setup_py.is_file():
        texts, files = setup_py_requirements(setup_py)
        reading.out.extend(ProjectRequirement(t, str(setup_py), None) for t in texts)
        for name in files:
            _read_requirements_file(project_dir / name, reading)
    if setup_cfg.is_file():
        reading.out.extend(ProjectRequirement(t, str(setup_cfg), None) for t in setup_cfg_requirements(setup_cfg))


def requirements_digest(reqs: list[ProjectRequirement]) -> str:
    """The lock's ``requirements-hash``: the project requirements as written, order-insensitive.

    Why separate from ``intent-hash``: the two answer different questions (did torchenv.toml
    change? did the requirements change?) and tools reading the lock can tell which one did.
    """
    blob = "\n".join(sorted(r.key for r in reqs))
    return "sha256:" + hashlib.sha256(blob.encode()).hexdigest()


def requirements_hash(intent: Intent, reqs: list[ProjectRequirement]) -> str:
    """The *old* lock's ``intent-hash`` (locks written before ``requirements-hash`` existed).

    It folded the requirements into ``intent.hash()`` (only when there were any); kept so
    such locks stay valid exactly as long as they were before (see ``lock_is_current``).
    """
    base = intent.hash()
    if not reqs:
        return base
    blob = base + "\n" + "\n".join(sorted(r.key for r in reqs))
    return "sha256:" + hashlib.sha256(blob.encode()).hexdigest()


def lock_is_current(lock: Lockfile, intent: Intent, reqs: list[ProjectRequirement]) -> bool:
    """Was ``lock`` made for this torchenv.toml and these requirements?

    A lock without ``requirements-hash`` (written by an older torchenv) is judged the way that
    torchenv judged it, so upgrading torchenv never forces a re-lock by itself; the next
    write adds the new key.
    """
    if lock.requirements_hash is None:
        return lock.intent_hash == requirements_hash(intent, reqs)
    return lock.intent_hash == intent.hash() and lock.requirements_hash == requirements_digest(reqs)


def check_against_plan(reqs: list[ProjectRequirement], plan: Plan) -> None:
    """Refuse a project requirement (or constraint) on a torch-family package that excludes the plan.

    A local tag naming the planned tier (``torch==2.2.2+cu121`` when the plan is cu121) is the
    same build whichever index serves it: PyPI's 2.2.2 is the cu121 build without the tag, so
    the tag is compared with the tier and the rest with the planned public version.
    """
    planned = {_normalize(p.name): p.version for p in plan.packages}
    named = [r for r in reqs if not _LOCATION.match(r.text) and _named(r.text) in planned]
    if not named:     # a path or URL pip installs as is (``./submodules/knn``, ``git+https://...``)
        return
    from packaging.requirements import InvalidRequirement, Requirement

    normalize = _normalize
    intent_file = str(plan.intent.file) if plan.intent.file else "the torchenv defaults"
    for r in named:
        try:
            req = Requirement(r.text)
        except InvalidRequirement as exc:
            raise IntentError(f"not a valid requirement: {r.text!r} ({exc})", file=r.file, line=r.line,
                              hint="write NAME[extras] SPEC, e.g. `numpy>=1.26`") from None
        name = normalize(req.name)
        if name not in planned or (req.marker and not req.marker.evaluate()):
            continue
        version = planned[name]
        if req.url:
            raise IntentError(f"`{r.text}` points {req.name} at a URL, but torchenv chooses {req.name} "
                              f"({version}) from {intent_file}", file=r.file, line=r.line,
                              hint=f"remove the line from {Path(r.file).name}; torchenv pins {req.name}")
        if not _admits(req, version, plan.tier):
            raise IntentError(f"`{r.text}` contradicts {intent_file}, which plans {req.name} {version} "
                              f"(tier {plan.tier})", file=r.file, line=r.line,
                              hint=f"remove or relax the {req.name} pin in {Path(r.file).name} "
                                   f"(torchenv pins the torch family), or change [torch] in {intent_file}")


def agreeing_pins(reqs: list[ProjectRequirement], plan: Plan) -> list[str]:
    """One line per torch-family pin of the project's files (after ``check_against_plan``)."""
    planned = {_normalize(p.name): p.version for p in plan.packages}
    out: list[str] = []
    for r in reqs:
        name = _named(r.text)
        if name in planned and _normalize(r.text.strip()) != name:
            where = f"{Path(r.file).name}:{r.line}" if r.line else Path(r.file).name
            kind = "constraint" if r.constraint else "requirement"
            out.append(reason("req.pin_agrees_" + kind, PROJECT, where=where, text=r.text, name=name,
                              version=planned[name]))
    return out


def _normalize(name: str) -> str:
    """PEP 503 name normalisation (``envlayout.dist_name``, so ``plan`` need not import the index client)."""
    return dist_name(name)


def _named(text: str) -> str | None:
    m = _NAME.match(text)
    return _normalize(m.group(1)) if m else None


def _admits(req: Requirement, version: str, tier: str) -> bool:
    """Does ``req`` accept the planned ``version`` of tier ``tier``? (``+tier`` tags: see check_against_plan)."""
    from packaging.version import Version

    planned = Version(version)
    for spec in req.specifier:
        public, _plus, local = spec.version.partition("+")
        if local and _tier_of_tag(local) == tier:
            if not type(spec)(f"{spec.operator}{public}").contains(Version(planned.public), prereleases=True):
                return False
        elif not spec.contains(planned, prereleases=True):
            return False
    return True


def _tier_of_tag(local: str) -> str | None:
    from ..intent.versions import InvalidValue, normalise_tier

    try:
        return normalise_tier(local)
    except InvalidValue:
        return None


def as_lines(reqs: list[ProjectRequirement]) -> list[str]:
    """The lines given to the resolver, after ``check_against_plan`` accepted them.

    A torch-family pin loses its ``+tier`` tag (the plan already pinned that build's file, and
    ``==2.2.2`` matches it whether the file is tagged or not), and constraints are handed over
    as a ``-c`` file, which is what they are to pip and uv alike.
    """
    lines = [_untagged(r.text) for r in reqs if not r.constraint]
    constraints = [_untagged(r.text) for r in reqs if r.constraint]
    if constraints:
        lines.append(f"-c {_constraints_file(constraints)}")
    return lines


def _untagged(text: str) -> str:
    if "+" not in text:
        return text
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.specifiers import SpecifierSet

    from ..sources.index import normalize
    from ..sources.routing import torch_family

    try:
        req = Requirement(text)
    except InvalidRequirement:
        return text
    if normalize(req.name) not in torch_family() or req.url:
        return text
    req.specifier = SpecifierSet(",".join(f"{s.operator}{s.version.split('+')[0]}" for s in req.specifier))
    return str(req)


def _constraints_file(lines: list[str]) -> Path:
    """A content-addressed copy of the constraints in torchenv's cache (the resolver reads it by path)."""
    from .. import paths

    body = "\n".join(lines) + "\n"
    folder = paths.cache_dir() / "constraints"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / (hashlib.sha256(body.encode()).hexdigest()[:32] + ".txt")
    if not target.is_file():
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        tmp.write_text(body, encoding="utf-8")
        tmp.replace(target)
    return target
