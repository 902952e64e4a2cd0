"""``pyproject.toml`` and ``pixi.toml``: PEP 621, Poetry, ``[tool.uv]`` sources and indexes, pixi tables.

Why sources matter: an index serves torch only where a source sends torch to it; an explicit
index (uv's ``explicit = true``, Poetry's ``priority = "explicit"``) that no torch entry names
says nothing about torch. Several indexes that torch's entries name (an extra mapped to the cpu
index, another to cu128) are the project's tiers, each a candidate. A marker or platform on a
source entry says which machine it serves.
"""
from __future__ import annotations

import re
from typing import Any

from ..files import target_of_name
from ..model import ANY, Record, said
from .specs import (
    COMPANIONS,
    CONDA_NAMES,
    TORCH_FAMILY,
    conda_records,
    extra_records,
    marker_target,
    poetry_to_pep440,
    python_records,
    requirement_records,
    tier_from_url,
)


def _table(parent: Any, key: str) -> dict[str, Any]:
    value = parent.get(key) if isinstance(parent, dict) else None
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value] if value is not None else []


def load(text: str) -> dict[str, Any] | None:
    from ....fileio import tomllib_module

    tomllib = tomllib_module()
    try:
        data: dict[str, Any] = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError):
        return None
    return data


NOT_RUNTIME_EXTRA = re.compile(r"doc|test|dev|lint|style|bench|example|format|typing|mypy|build|ci\b", re.IGNORECASE)


def read_pyproject(text: str, file: str = "pyproject.toml") -> list[Record] | None:
    """None when the file does not parse."""
    data = load(text)
    if data is None:
        return None
    project = _table(data, "project")
    out: list[Record] = []
    where = f"{file} [project] dependencies"
    for dep in _list(project.get("dependencies")):
        if isinstance(dep, str):
            out += requirement_records(dep, where, None, "pin")
    for group, deps in _table(project, "optional-dependencies").items():
        if NOT_RUNTIME_EXTRA.search(group):
            continue
        out += extra_records(group, [d for d in _list(deps) if isinstance(d, str)],
                             f"{file} [project.optional-dependencies] {group}", target_of_name(group))
    requires = project.get("requires-python")
    if isinstance(requires, str):
        out += python_records(requires, f"{file} [project] requires-python", None, "pin",
                              f"requires-python = {requires!r}")
    tool = _table(data, "tool")
    out += _poetry(_table(tool, "poetry"), file)
    out += _uv(_table(tool, "uv"), file)
    pixi = _table(tool, "pixi")
    if pixi:
        out += read_pixi_table(pixi, f"{file} [tool.pixi]")
    return out


def optional_groups(text: str) -> tuple[set[str], str]:
    """(``[project.optional-dependencies]`` group names, the project's name)."""
    data = load(text) or {}
    table = _table(data, "project")
    return {str(g).lower() for g in _table(table, "optional-dependencies")}, str(table.get("name") or "")


def _poetry(poetry: dict[str, Any], file: str) -> list[Record]:
    deps = _table(poetry, "dependencies")
    sources = {s.get("name"): s for s in _list(poetry.get("source")) if isinstance(s, dict)}
    out: list[Record] = []
    for name, value in deps.items():
        lname = name.lower()
        if lname == "python" and isinstance(value, str):
            spec, _tier = poetry_to_pep440(value)
            out += python_records(spec or "", f"{file} [tool.poetry.dependencies] python", None, "pin",
                                  f"python = {value!r}")
        elif lname in TORCH_FAMILY:
            for entry in _list(value):
                out += _poetry_entry(name, entry, sources, f"{file} [tool.poetry.dependencies]")
    if not _any_entry_names_a_source(deps):
        out += _poetry_source_tiers(sources, file)
    return out


def _poetry_entry(name: str, entry: Any, sources: dict[Any, dict[str, Any]], where: str) -> list[Record]:
    """One torch-family dependency entry: its requirement, and for torch the tier its version tag or source names."""
    lname = name.lower()
    version = entry.get("version") if isinstance(entry, dict) else entry
    spec, tier = poetry_to_pep440(version if isinstance(version, str) else "*")
    target = _poetry_target(entry)
    seen = f"{name} = {entry!r}"
    out = requirement_records(f"{lname}{spec or ''}", where, None, "pin", seen, target)
    source = sources.get(entry.get("source")) if isinstance(entry, dict) else None
    url_tier = tier_from_url(str(source.get("url"))) if source else None
    if lname == "torch" and (tier or url_tier):
        out.append(Record(where, None, "cuda", tier or url_tier or "", "tag" if tier else "pin", seen, target))
    return out


def _any_entry_names_a_source(deps: dict[str, Any]) -> bool:
    return any(isinstance(e, dict) and e.get("source") for v in deps.values() for e in _list(v))


def _poetry_source_tiers(sources: dict[Any, dict[str, Any]], file: str) -> list[Record]:
    """With no entry naming a source, every non-explicit ``[[tool.poetry.source]]`` with a tier serves torch."""
    out: list[Record] = []
    for source in sources.values():
        tier = tier_from_url(str(source.get("url")))
        if source.get("priority") != "explicit" and tier:
            out.append(Record(f"{file} [[tool.poetry.source]]", None, "cuda", tier, "pin", str(source.get("url"))))
    return out


def _poetry_target(entry: Any) -> str:
    if not isinstance(entry, dict):
        return ANY
    platform = entry.get("platform") or entry.get("sys_platform")
    if isinstance(platform, str):
        return {"linux": "linux", "darwin": "macos", "win32": "windows"}.get(platform, ANY)
    return marker_target(entry.get("markers") if isinstance(entry.get("markers"), str) else None) or ANY


def _uv(uv: dict[str, Any], file: str) -> list[Record]:
    """``[[tool.uv.index]]`` tiers, where torch's ``[tool.uv.sources]`` entry names the index (or it is not explicit)."""
    sources = _table(uv, "sources")
    named: dict[str, str] = {}                     # index name -> target of the source entry that names it
    for name in TORCH_FAMILY:
        for entry in _list(sources.get(name)):
            if isinstance(entry, dict) and isinstance(entry.get("index"), str) and _may_hold(entry.get("marker")):
                named.setdefault(entry["index"], marker_target(entry.get("marker")) or ANY)
    out: list[Record] = []
    for index in _list(uv.get("index")):
        if not isinstance(index, dict) or not isinstance(index.get("url"), str):
            continue
        tier = tier_from_url(index["url"])
        explicit = index.get("explicit") is True
        if tier is None:
            continue
        if explicit and index.get("name") not in named:
            out.append(Record(f"{file} [[tool.uv.index]]", None, "cuda", tier, "ignored", index["url"],
                              why=said("init.explicit_index")))
            continue
        out.append(Record(f"{file} [[tool.uv.index]]", None, "cuda", tier, "pin", index["url"],
                          named.get(str(index.get("name")), ANY)))
    return out


def _may_hold(marker: Any) -> bool:
    """False for a marker that holds on no OS torchenv plans for (``sys_platform == 'nowhere'``); an OS marker
    is kept (its record carries that target), anything else is evaluated here."""
    from packaging.markers import InvalidMarker, Marker

    if not isinstance(marker, str) or marker_target(marker):
        return True
    try:
        return Marker(marker).evaluate()
    except (InvalidMarker, ValueError):
        return True


def read_pixi_table(pixi: dict[str, Any], file: str) -> list[Record]:
    """A pixi manifest (``pixi.toml`` or ``[tool.pixi]``): the default feature, then each feature that has torch.

    A feature that names no torch package says nothing about torch: a ``cuda-version`` pinned for a
    JAX feature is JAX's."""
    out = _pixi_feature(pixi, file)
    for name, feature in _table(pixi, "feature").items():
        target = target_of_name(str(name))
        out += [r if r.target != ANY else Record(r.file, r.line, r.field, r.value, r.kind, r.seen, target)
                for r in _pixi_feature(feature, f"{file} [feature.{name}]")]
    return out


def _pixi_spec(value: Any) -> str:
    """The version of a pixi dependency (``"2.5.*"`` or ``{version = "2.5.*"}``); ``""`` when none is given."""
    if isinstance(value, str):
        return value
    return str(value.get("version", "")) if isinstance(value, dict) else ""


def _pixi_conda(conda: dict[str, Any], where: str, has_torch: bool) -> list[Record]:
    """Python, the torch conda packages, and (only in a feature that has torch) its CUDA pins."""
    out: list[Record] = []
    for name, value in conda.items():
        spec = _pixi_spec(value)
        spec = "" if spec.strip() == "*" else spec
        lname = name.lower()
        if lname == "python" or lname in CONDA_NAMES or (has_torch and lname in ("cuda-version", "pytorch-cuda")):
            out += conda_records(f"{name} {spec}", where, None, "pin") or []
    return out


def _pixi_pypi(pypi: dict[str, Any], where: str) -> list[Record]:
    """The torch family's PyPI requirements, and the tier of the index torch's entry names."""
    out: list[Record] = []
    for name, value in pypi.items():
        lname = name.lower()
        if lname not in TORCH_FAMILY:
            continue
        spec = _pixi_spec(value)
        out += requirement_records(f"{lname}{'' if spec.strip() in ('', '*') else spec}", where, None, "pin",
                                   f"{name} = {value!r}")
        index = value.get("index") if isinstance(value, dict) else None
        tier = tier_from_url(index) if isinstance(index, str) else None
        if tier and lname == "torch":
            out.append(Record(where, None, "cuda", tier, "pin", str(index)))
    return out


def _pixi_index_tiers(options: dict[str, Any], where: str) -> list[Record]:
    out: list[Record] = []
    for url in _list(options.get("index-url")) + _list(options.get("extra-index-urls")):
        tier = tier_from_url(url) if isinstance(url, str) else None
        if tier:
            out.append(Record(f"{where} pypi-options", None, "cuda", tier, "pin", str(url)))
    return out


def _pixi_system_cuda(system: dict[str, Any], where: str) -> list[Record]:
    """``system-requirements.cuda`` is the driver the machine needs: shown, never taken as torch's build."""
    from .specs import tier_or_none

    cuda = system.get("cuda")
    tier = tier_or_none(cuda) if isinstance(cuda, str) and "." in cuda else None
    if not tier:
        return []
    return [Record(f"{where} system-requirements", None, "cuda", tier, "ignored", f"cuda = {cuda!r}",
                   why=said("init.driver"))]


def _pixi_feature(table: dict[str, Any], where: str) -> list[Record]:
    conda = _table(table, "dependencies")
    pypi = _table(table, "pypi-dependencies")
    has_torch = any(n.lower() in CONDA_NAMES for n in conda) or any(n.lower() in TORCH_FAMILY for n in pypi)
    out = _pixi_conda(conda, where, has_torch) + _pixi_pypi(pypi, where)
    out += _pixi_index_tiers(_table(table, "pypi-options"), where)
    if has_torch:
        out += _pixi_system_cuda(_table(table, "system-requirements"), where)
    return [r for r in out if r.field != "with" or r.value in COMPANIONS]


def read_pixi_toml(text: str, file: str = "pixi.toml") -> list[Record] | None:
    data = load(text)
    return None if data is None else read_pixi_table(data, file)
