"""The project's own requirements, and the check that they agree with the plan.

Why here and not left to the installer: a ``torch==1.13`` in requirements.txt next to
``version = "2.4"`` in torchenv.toml would make uv/pip fail with a resolver trace, or worse,
pick a different torch. torchenv names both files instead. Gathering is plain text work
(no ``packaging``) because the no-op ``up`` hashes the requirements too.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import IntentError

if TYPE_CHECKING:
    from ..intent.model import Intent
    from ..lock.model import Lockfile
    from ..resolve.plan import Plan

_NAME = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


@dataclass(frozen=True)
class ProjectRequirement:
    text: str          # the requirement as written ("numpy>=1.26")
    file: str          # where: requirements.txt / pyproject.toml
    line: int | None


def _read_requirements_file(path: Path, out: list[ProjectRequirement], warnings: list[str],
                            seen: set[Path]) -> None:
    path = path.resolve()
    if path in seen:
        return
    seen.add(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise IntentError(f"cannot read requirements file: {exc.strerror or exc}", file=str(path),
                          key="env.requirements", hint="fix the path in [env] requirements") from None
    for no, raw in enumerate(lines, start=1):
        line = re.sub(r"(^|\s)#.*$", "", raw).strip()
        if not line:
            continue
        if line.startswith(("-r ", "--requirement ", "-r", "--requirement=")):
            ref = re.sub(r"^(-r|--requirement)[\s=]*", "", line)
            _read_requirements_file(path.parent / ref, out, warnings, seen)
        elif line.startswith(("-e", "--editable")):
            warnings.append(f"{path.name}:{no}: editable install `{line}` is not locked; "
                            "after `torchenv up`, run `torchenv run -- python -m pip install -e .`")
        elif line.startswith(("-c", "--constraint")):
            warnings.append(f"{path.name}:{no}: constraints file `{line}` is not applied: torchenv locks only "
                            "the requirements; write the pins you need as requirement lines (`name==1.2`) instead")
        elif line.startswith("-"):
            warnings.append(f"{path.name}:{no}: option `{line}` ignored: torchenv takes package sources "
                            "from torchenv.toml [mirror] and your pip config")
        else:
            out.append(ProjectRequirement(line, str(path), no))


def gather(intent: "Intent", project_dir: Path) -> tuple[list[ProjectRequirement], list[str]]:
    """``[env] requirements`` files, else ``requirements.txt``, else ``[project].dependencies``."""
    reqs: list[ProjectRequirement] = []
    warnings: list[str] = []
    if intent.env.requirements:
        for name in intent.env.requirements:
            _read_requirements_file(project_dir / name, reqs, warnings, set())
        return reqs, warnings
    txt = project_dir / "requirements.txt"
    if txt.is_file():
        _read_requirements_file(txt, reqs, warnings, set())
        return reqs, warnings
    pyproject = project_dir / "pyproject.toml"
    if pyproject.is_file():
        from ..lock.io import tomllib_module

        try:
            data = tomllib_module().loads(pyproject.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise IntentError(f"cannot read [project].dependencies: {exc}", file=str(pyproject),
                              hint="fix the TOML syntax, or list requirements in [env] requirements") from None
        for dep in (data.get("project") or {}).get("dependencies") or []:
            reqs.append(ProjectRequirement(str(dep), str(pyproject), None))
    return reqs, warnings


def requirements_digest(reqs: list[ProjectRequirement]) -> str:
    """The lock's ``requirements-hash``: the project requirements as written, order-insensitive.

    Why separate from ``intent-hash``: the two answer different questions (did torchenv.toml
    change? did the requirements change?) and tools reading the lock can tell which one did.
    """
    blob = "\n".join(sorted(r.text for r in reqs))
    return "sha256:" + hashlib.sha256(blob.encode()).hexdigest()


def requirements_hash(intent: "Intent", reqs: list[ProjectRequirement]) -> str:
    """The *old* lock's ``intent-hash`` (locks written before ``requirements-hash`` existed).

    It folded the requirements into ``intent.hash()`` (only when there were any); kept so
    such locks stay valid exactly as long as they were before (see ``lock_is_current``).
    """
    base = intent.hash()
    if not reqs:
        return base
    blob = base + "\n" + "\n".join(sorted(r.text for r in reqs))
    return "sha256:" + hashlib.sha256(blob.encode()).hexdigest()


def lock_is_current(lock: "Lockfile", intent: "Intent", reqs: list[ProjectRequirement]) -> bool:
    """Was ``lock`` made for this torchenv.toml and these requirements?

    A lock without ``requirements-hash`` (written by an older torchenv) is judged the way that
    torchenv judged it, so upgrading torchenv never forces a re-lock by itself; the next
    write adds the new key.
    """
    if lock.requirements_hash is None:
        return lock.intent_hash == requirements_hash(intent, reqs)
    return lock.intent_hash == intent.hash() and lock.requirements_hash == requirements_digest(reqs)


def check_against_plan(reqs: list[ProjectRequirement], plan: "Plan") -> None:
    """Refuse a project requirement on a torch-family package that excludes the planned version."""
    if not reqs:
        return
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.version import Version

    from ..sources.index import normalize

    planned = {normalize(p.name): p.version for p in plan.packages}
    intent_file = str(plan.intent.file) if plan.intent.file else "the torchenv defaults"
    for r in reqs:
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
        if not req.specifier.contains(Version(version), prereleases=True):
            raise IntentError(f"`{r.text}` contradicts {intent_file}, which plans {req.name} {version} "
                              f"(tier {plan.tier})", file=r.file, line=r.line,
                              hint=f"remove or relax the {req.name} pin in {Path(r.file).name} "
                                   f"(torchenv pins the torch family), or change [torch] in {intent_file}")


def as_lines(reqs: list[ProjectRequirement]) -> list[str]:
    return [r.text for r in reqs]
