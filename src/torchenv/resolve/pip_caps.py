"""Torch-family caps in the user's own pip constraint files (pip config ``constraint``).

Why: pip and uv honour those files for every install, the torch family included, so a plan
for a torch they forbid cannot install: the resolve of the whole set fails, after the big
torch wheel was fetched. ``reachable`` asks here before a plan's files are looked up, so an
``auto`` plan falls back to a build the caps allow (and an explicit choice is refused naming
the file and line).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .plan import Plan


@dataclass(frozen=True)
class Cap:
    """One torch-family line of a constraint file: ``torch<=2.14.1`` at ``/etc/pip/constraints.txt:2``."""
    name: str
    specifier: str
    where: str


def caps(files: tuple[str, ...]) -> list[Cap]:
    """The torch-family lines of the constraint files (unreadable files and odd lines are pip's to report)."""
    from packaging.requirements import InvalidRequirement, Requirement

    from ..intent.requirements_file import parse_requirements_text
    from ..sources.index import normalize
    from ..sources.locate import torch_family

    family = torch_family()
    out = []
    for file in files:
        try:
            text = Path(file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        for line in parse_requirements_text(text):
            if line.kind != "requirement":
                continue
            try:
                req = Requirement(line.text)
            except InvalidRequirement:
                continue
            if normalize(req.name) in family and str(req.specifier) and (req.marker is None or req.marker.evaluate()):
                out.append(Cap(normalize(req.name), str(req.specifier), f"{file}:{line.line}"))
    return out


def forbidden(plan: Plan) -> str | None:
    """Why the user's pip constraints forbid one of the plan's torch-family pins, or ``None``."""
    files = plan.sources.pypi.constraints if plan.sources is not None else ()
    if not files:
        return None
    from ..sources.index import normalize

    planned = {normalize(p.name): p.version for p in plan.packages}
    for cap in caps(tuple(files)):
        version = planned.get(cap.name)
        if version is not None and not _allows(cap, version):
            from ..reasons import USER, reason

            return reason("fetch.pip_constraint", USER, requirement=f"{cap.name}{cap.specifier}", where=cap.where)
    return None


def torch_allowed(found: list[Cap], version: str) -> bool:
    """Do the caps (``caps(files)``) allow torch ``version``, so that PyPI's build of it is worth trying?"""
    return all(_allows(cap, version) for cap in found if cap.name == "torch")


def _allows(cap: Cap, version: str) -> bool:
    from packaging.specifiers import SpecifierSet
    from packaging.version import InvalidVersion, Version

    try:
        return SpecifierSet(cap.specifier).contains(Version(version), prereleases=True)
    except InvalidVersion:
        return True      # not a version packaging reads: the resolver will say what is wrong
