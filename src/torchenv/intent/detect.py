"""What ``torchenv init`` can learn from a project before it has a torchenv.toml.

Why: most projects already say which torch they want, in ``requirements.txt``
(``torch==2.4.1+cu121``, ``--index-url .../whl/cu121``) or ``pyproject.toml``
(``[project] dependencies``, Poetry's ``torch = "^2.1"``, a uv/Poetry index URL). Carrying
that over means ``init`` writes the intent the project already had, and each ``Finding``
records where it came from so ``init`` can tell the user why a key has its value.
Where the project says it: the requirement files its README tells users to
``pip install -r``, else ``requirements.txt``, else the runtime files of a ``requirements/``
folder; then ``pyproject.toml``, a conda ``environment.yml``, ``setup.py`` (read as a syntax
tree, never run) and ``setup.cfg``. When none of them names torchvision/torchaudio but the
code imports them, that is noticed too (a bounded scan of ``.py`` files).
Only ``init`` uses this module, so it may import ``packaging`` at the top.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from packaging.requirements import InvalidRequirement, Requirement

from . import versions

if TYPE_CHECKING:
    from .reqfile import ReqLine

_TORCH_FAMILY = {"torch", "torchvision", "torchaudio"}
_TIER_SEGMENT = re.compile(r"cpu|cu\d{3}|rocm\d+\.\d+(?:\.\d+)?", re.IGNORECASE)


@dataclass(frozen=True)
class Finding:
    where: str      # "requirements.txt:3"
    seen: str       # the text that was read
    meaning: str    # what it sets in torchenv.toml


@dataclass
class Detected:
    version: str | None = None
    cuda: str | None = None
    python: str | None = None
    with_: list[str] = field(default_factory=list)
    requirements: list[str] = field(default_factory=list)
    extras: list[str] = field(default_factory=list)     # optional-dependency groups a README installs
    findings: list[Finding] = field(default_factory=list)
    cuda_from_local_tag: bool = False

    def note(self, where: str, seen: str, meaning: str) -> None:
        self.findings.append(Finding(where, seen, meaning))


def tier_from_url(url: str) -> str | None:
    """``https://download.pytorch.org/whl/cu121`` (or a mirror of it) -> ``"cu121"``; else None."""
    for segment in reversed([s for s in url.split("?")[0].split("/") if s]):
        if _TIER_SEGMENT.fullmatch(segment):
            return versions.normalise_tier(segment)
    return None


def detect_project(project: Path) -> Detected:
    """Everything ``init`` can learn from ``project`` (never raises for a malformed project file)."""
    from . import detect_more

    found = Detected()
    seen: set[Path] = set()
    for rel, why in detect_more.requirement_files(project):
        found.requirements.append(rel)
        found.note(rel, why, f'[env] requirements += ["{rel}"]')
        scan_requirements(project / rel, project, found, seen)
    pyproject = project / "pyproject.toml"
    if pyproject.is_file():
        _scan_pyproject(pyproject, found)
    detect_more.scan_other_files(project, found, seen)
    detect_more.scan_readme_extras(project, found)
    pyver = project / ".python-version"
    if pyver.is_file():
        _scan_python_version(pyver, found)
    detect_more.scan_imports(project, found)
    return found


# --- requirements files ---------------------------------------------------------------------

def scan_requirements(path: Path, project: Path, found: Detected, seen: set[Path]) -> None:
    from .reqfile import is_the_project_itself, parse_requirements_text

    if path.resolve() in seen or len(seen) > 20:
        return
    seen.add(path.resolve())
    try:
        lines = parse_requirements_text(path.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return
    rel = _rel(path, project)
    for entry in lines:
        where = f"{rel}:{entry.line}"
        shown = f"{entry.option} {entry.text}".strip()
        if entry.kind in ("include", "constraint"):
            if entry.kind == "constraint":
                found.note(where, shown, "read: its torch pins count like requirements")
            scan_requirements(path.parent / entry.text, project, found, seen)
        elif entry.kind == "index":
            _tier_from_index(entry.text, where, shown, found)
        elif entry.kind == "editable":
            itself = is_the_project_itself(entry.text, path.parent, project)
            found.note(where, shown, "the project itself, not a dependency" if itself
                       else "editable install: not locked by torchenv")
        elif entry.kind == "requirement":
            take_requirement_line(entry, where, found)


def take_requirement_line(entry: ReqLine, where: str, found: Detected) -> None:
    """A requirement line and its own options (``torch==2.2.2 --index-url .../cu121``)."""
    shown = " ".join([entry.text] + [f"{k} {v}".strip() for k, v in entry.options if k != "--hash"])
    for url in entry.values("-i", "--index-url", "--extra-index-url"):
        _tier_from_index(url, where, shown, found)
    take_requirement(entry.text, where, found, shown=shown if shown != entry.text else None)


def _tier_from_index(url: str, where: str, line: str, found: Detected) -> None:
    tier = tier_from_url(url)
    if tier is not None:
        take_cuda(tier, where, line, found, f" (the index serves {tier} wheels)")


def take_cuda(tier: str, where: str, seen: str, found: Detected, why: str = "") -> None:
    """The first tier a file names wins; a later, different one is noted as ignored."""
    if found.cuda is None:
        found.cuda = tier
        found.note(where, seen, f'cuda = "{tier}"{why}')
    elif found.cuda != tier:
        found.note(where, seen, f'ignored: already took cuda = "{found.cuda}"')


def take_requirement(text: str, where: str, found: Detected, shown: str | None = None) -> None:
    try:
        req = Requirement(text)
    except InvalidRequirement:
        return
    name = req.name.lower().replace("_", "-")
    if name not in _TORCH_FAMILY:
        return
    marker = f" (only where {req.marker})" if req.marker else ""
    text = shown or text
    if name != "torch":
        if name not in found.with_:
            found.with_.append(name)
            found.note(where, text, f'with += "{name}"{marker}')
        return
    public, tier = _split_spec(req)
    if tier:
        _take_tier_from_tag(tier, where, text, found)
    if public is None:
        return
    if found.version is None:
        found.version = public
        found.note(where, text, f'version = "{public}"{marker}')
    elif found.version != public:
        found.note(where, text, f'ignored: already took version = "{found.version}"')


def _take_tier_from_tag(tier: str, where: str, text: str, found: Detected) -> None:
    """A local tag (``+cu121``) names the build exactly, so it beats an index URL."""
    if found.cuda == tier:
        found.cuda_from_local_tag = True
        return
    if found.cuda is None or not found.cuda_from_local_tag:
        previous = found.cuda
        found.cuda, found.cuda_from_local_tag = tier, True
        extra = f', replacing "{previous}" from an index URL' if previous else ""
        found.note(where, text, f'cuda = "{tier}" (local tag +{tier}){extra}')
    else:
        found.note(where, text, f'ignored tag +{tier}: already took cuda = "{found.cuda}"')


def _split_spec(req: Requirement) -> tuple[str | None, str | None]:
    """(normalised public version spec, tier from a local tag) of a torch requirement."""
    tier = None
    if req.url:
        return _spec_from_url(req.url)
    clauses = []
    for spec in req.specifier:
        version = spec.version
        if "+" in version:
            version, _, local = version.partition("+")
            tier = tier or _tier_or_none(local)
        clauses.append(f"{spec.operator}{version}")
    if not clauses:
        return None, tier
    try:
        return versions.normalise_torch_spec(",".join(clauses)), tier
    except versions.InvalidValue:
        return None, tier


def _spec_from_url(url: str) -> tuple[str | None, str | None]:
    from urllib.parse import unquote

    filename = unquote(url.split("?")[0].rsplit("/", 1)[-1])
    m = re.match(r"torch-([^-]+)-", filename)
    tier = tier_from_url(url)
    if not m:
        return None, tier
    public, _, local = m.group(1).partition("+")
    return f"=={public}", _tier_or_none(local) or tier


def _tier_or_none(text: str) -> str | None:
    try:
        return versions.normalise_tier(text) if text else None
    except versions.InvalidValue:
        return None


def _rel(path: Path, project: Path) -> str:
    try:
        return path.relative_to(project).as_posix()
    except ValueError:
        return str(path)


# --- pyproject.toml / .python-version --------------------------------------------------------

def _scan_pyproject(path: Path, found: Detected) -> None:
    from ..fileio import tomllib_module

    tomllib = tomllib_module()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        found.note("pyproject.toml", "could not be parsed", "ignored")
        return
    project = _table(data, "project")
    for dep in _str_list(project.get("dependencies")):
        take_requirement(dep, "pyproject.toml [project] dependencies", found)
    tool = _table(data, "tool")
    poetry = _table(tool, "poetry")
    deps = _table(poetry, "dependencies")
    for name, value in deps.items():
        _take_poetry(name, value, found)
    uv = _table(tool, "uv")
    for where, indexes, named in (
            ("[[tool.uv.index]]", uv.get("index"), _named_sources(_table(uv, "sources"), "index")),
            ("[[tool.poetry.source]]", poetry.get("source"), _named_sources(deps, "source"))):
        for index in indexes if isinstance(indexes, list) else []:
            if isinstance(index, dict) and isinstance(index.get("url"), str):
                _take_index(index, named, f"pyproject.toml {where}", found)


def _take_index(index: dict[str, Any], named: list[str], where: str, found: Detected) -> None:
    """An index's tier, when torch comes from it. An explicit one (uv's ``explicit = true``, Poetry's
    ``priority = "explicit"``) serves only the packages whose source names it, so it says nothing
    about torch unless torch's (or a companion's) source does: kornia lists cu121 and cu124 indexes
    that way, for whoever opts in."""
    explicit = index.get("explicit") is True or index.get("priority") == "explicit"
    if explicit and index.get("name") not in named:
        found.note(where, index["url"], "ignored: an explicit index, and no torch source entry names it")
        return
    _tier_from_index(index["url"], where, index["url"], found)


def _named_sources(table: dict[str, Any], key: str) -> list[str]:
    """The index names the torch family's entries of ``[tool.uv.sources]`` (``key="index"``) or of
    Poetry's dependencies (``key="source"``) send it to, where their marker holds here."""
    names = []
    for name in _TORCH_FAMILY:
        entries = table.get(name)
        for entry in entries if isinstance(entries, list) else [entries]:
            if isinstance(entry, dict) and isinstance(entry.get(key), str) and _marker_holds(entry.get("marker")):
                names.append(entry[key])
    return names


def _marker_holds(text: Any) -> bool:
    from packaging.markers import InvalidMarker, Marker

    if not isinstance(text, str):
        return True
    try:
        return Marker(text).evaluate()
    except (InvalidMarker, ValueError):
        return True


def _table(parent: dict[str, Any], key: str) -> dict[str, Any]:
    """``parent[key]`` when it is a TOML table, else an empty one (a malformed value is ignored, not an error)."""
    value = parent.get(key)
    return value if isinstance(value, dict) else {}


def _str_list(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _take_poetry(name: str, value: Any, found: Detected) -> None:
    where = "pyproject.toml [tool.poetry.dependencies]"
    if isinstance(value, list):                      # per-platform alternatives: take the first
        value = value[0] if value else "*"
    version = value.get("version") if isinstance(value, dict) else value
    if not isinstance(version, str):
        version = "*"
    spec = poetry_to_pep440(version)
    take_requirement(f"{name}{spec or ''}", where, found, shown=f"{name} = {version!r}")


def poetry_to_pep440(text: str) -> str | None:
    """Poetry constraints -> PEP 440: ``^2.1`` -> ``>=2.1,<3.0``, ``~2.1`` -> ``>=2.1,<2.2``, ``*`` -> None."""
    text = text.strip()
    if text in ("", "*"):
        return None
    m = re.fullmatch(r"([\^~])\s*(\d+(?:\.\d+)*)", text)
    if not m:
        if re.fullmatch(r"\d+(?:\.\d+)*(?:\.\*)?", text):
            return f"=={text}"
        return text
    op, release = m.groups()
    parts = [int(p) for p in release.split(".")]
    if op == "^":                                    # bump the first non-zero component
        idx = next((i for i, p in enumerate(parts) if p != 0), len(parts) - 1)
    else:                                            # ~: bump the minor (the major if only one)
        idx = min(1, len(parts) - 1)
    upper = parts[:idx + 1]
    upper[-1] += 1
    upper += [0] * (len(parts) - len(upper))
    return f">={release},<{'.'.join(str(p) for p in upper)}"


def _scan_python_version(path: Path, found: Detected) -> None:
    try:
        first = path.read_text(encoding="utf-8").split()[0]
    except (OSError, UnicodeDecodeError, IndexError):
        return
    m = re.match(r"(?:python|cpython)?-?(\d+\.\d+)", first)
    if not m:
        return
    try:
        found.python = versions.normalise_python(m.group(1))
    except versions.InvalidValue:
        found.note(".python-version", first, "ignored: outside the Python versions torch supports")
        return
    found.note(".python-version", first, f'python = "{found.python}"')
