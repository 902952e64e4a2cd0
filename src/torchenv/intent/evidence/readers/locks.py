"""Lock files: what was actually installed, so the strongest evidence there is.

``uv.lock``, ``poetry.lock``, ``pdm.lock`` and ``Pipfile.lock`` name torch's version (with its
local tag) and source; ``pixi.lock`` and ``conda-lock.yml`` name conda or PyPI files per platform.
A multi-platform lock holds several torch entries (``2.7.0`` from PyPI on macOS, ``2.7.0+cu128``
on Linux): each record carries the platform its entry serves, so the ranking takes the one for
the target and names the others as meant for another machine.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from ..model import ANY, Record
from .specs import COMPANIONS, is_exact, marker_target, normal_spec, python_records, tier_from_url, tier_or_none

_CONDA_PLATFORM = {"linux": "linux", "osx": "macos", "win": "windows"}
_CONDA_FILE = re.compile(r"/(linux|osx|win)-[\w]+/([A-Za-z0-9_.-]+?)-(\d[\w.]*)-([\w.]+)\.(?:conda|tar\.bz2)$")
_WHEEL = re.compile(r"/(torch|torchvision|torchaudio)-([^-/]+)-[^/]*\.whl$")


def _entry(name: str, version: str, tier: str | None, file: str, target: str, seen: str) -> list[Record]:
    name = {"pytorch": "torch", "pytorch-gpu": "torch", "pytorch-cpu": "torch"}.get(name.lower(), name.lower())
    if name in COMPANIONS:
        return [Record(file, None, "with", name, "lock", seen, target)]
    if name != "torch":
        return []
    public, _, local = version.partition("+")
    out = []
    spec = normal_spec(f"=={public}")
    if spec and is_exact(spec):
        out.append(Record(file, None, "version", spec, "lock", seen, target))
    tier = tier_or_none(local) or tier
    if tier:
        out.append(Record(file, None, "cuda", tier, "lock", seen, target))
    return out


def _toml(text: str) -> dict[str, Any]:
    from ....fileio import tomllib_module

    tomllib = tomllib_module()
    try:
        data: dict[str, Any] = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError):
        return {}
    return data


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _packages(data: dict[str, Any]) -> list[Any]:
    packages = data.get("package")
    return packages if isinstance(packages, list) else []


def _target_of(markers: Any) -> str:
    """The one OS a list of resolution markers serves (all of them the same), else any."""
    items = markers if isinstance(markers, list) else [markers] if isinstance(markers, str) else []
    found = {marker_target(m) or ANY for m in items if isinstance(m, str)}
    return found.pop() if len(found) == 1 else ANY


def _package_entries(data: dict[str, Any], file: str, url_key: str,
                     target_of: Callable[[dict[str, Any]], str]) -> list[Record]:
    """``[[package]]`` tables of a TOML lock (uv, Poetry, PDM): name, version, the tier of ``source.<url_key>``."""
    out: list[Record] = []
    for pkg in _packages(data):
        if not isinstance(pkg, dict) or not isinstance(pkg.get("version"), str):
            continue
        source = pkg.get("source") or {}
        url = source.get(url_key) if isinstance(source, dict) else None
        tier = tier_from_url(url) if isinstance(url, str) else None
        out += _entry(str(pkg.get("name")), pkg["version"], tier, file, target_of(pkg),
                      f"{pkg.get('name')} {pkg['version']}")
    return out


def read_uv_lock(text: str, file: str = "uv.lock") -> list[Record]:
    data = _toml(text)
    out = _package_entries(data, file, "registry", lambda pkg: _target_of(pkg.get("resolution-markers")))
    requires = data.get("requires-python")
    if isinstance(requires, str):
        out += python_records(requires, file, None, "lock", f"requires-python = {requires!r}")
    return out


def read_poetry_lock(text: str, file: str = "poetry.lock") -> list[Record]:
    """poetry.lock and pdm.lock: ``[[package]] name, version`` (and Poetry's ``[package.source] url``)."""
    return _package_entries(_toml(text), file, "url", lambda pkg: ANY)


def read_pipfile_lock(text: str, file: str = "Pipfile.lock") -> list[Record]:
    try:
        data = json.loads(text)
    except ValueError:
        return []
    if not isinstance(data, dict):
        return []
    meta = _dict(data.get("_meta"))
    listed = meta.get("sources")
    sources = {s.get("name"): s.get("url") for s in (listed if isinstance(listed, list) else [])
               if isinstance(s, dict)}
    default = _dict(data.get("default"))
    out: list[Record] = []
    for name, pkg in default.items():
        if not isinstance(pkg, dict) or not isinstance(pkg.get("version"), str):
            continue
        url = sources.get(pkg.get("index"))
        tier = tier_from_url(url) if isinstance(url, str) else None
        target = marker_target(pkg.get("markers")) or ANY
        out += _entry(name, pkg["version"].lstrip("="), tier, file, target, f"{name} {pkg['version']}")
    requires = meta.get("requires")
    python = requires.get("python_version") if isinstance(requires, dict) else None
    if isinstance(python, str):
        out += python_records(python, file, None, "lock", f"python_version = {python!r}")
    return out


def _yaml(text: str) -> Any:
    import yaml  # type: ignore[import-untyped,unused-ignore]  # PyYAML ships no hints

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return None


def _conda_url(url: str, file: str) -> list[Record]:
    """A conda or wheel URL of a pixi/conda-lock entry: name, version, build -> records for its platform."""
    m = _CONDA_FILE.search(url)
    if m:
        target = _CONDA_PLATFORM[m.group(1)]
        name, version, build = m.group(2), m.group(3), m.group(4)
        return _conda_package(name, version, build, file, target, url.rsplit("/", 1)[-1])
    from urllib.parse import unquote

    w = _WHEEL.search(unquote(url))
    if w:
        return _entry(w.group(1), w.group(2), tier_from_url(url), file, _wheel_target(url), url.rsplit("/", 1)[-1])
    return []


def _wheel_target(url: str) -> str:
    return "macos" if "macosx" in url else "windows" if "win_amd64" in url else "linux" if "linux" in url else ANY


def _conda_package(name: str, version: str, build: str, file: str, target: str, seen: str) -> list[Record]:
    name = name.lower()
    if name == "python":
        return python_records(version, file, None, "lock", seen, target)
    if name in ("cudatoolkit", "pytorch-cuda", "cuda-version"):
        tier = tier_or_none(".".join(version.split(".")[:2]))
        return [Record(file, None, "cuda", tier, "lock", seen, target)] if tier else []
    m = re.search(r"cuda(\d{2,3})", build)
    tier = tier_or_none(f"cu{m.group(1)}") if m and name in ("pytorch", "pytorch-gpu") else None
    if name in ("pytorch", "pytorch-cpu") and "cpu" in build:
        tier = "cpu"
    return _entry(name, version, tier, file, target, seen)


def read_pixi_lock(text: str, file: str = "pixi.lock") -> list[Record]:
    data = _yaml(text)
    out: list[Record] = []
    packages = data.get("packages") if isinstance(data, dict) else None
    for pkg in packages if isinstance(packages, list) else []:
        if not isinstance(pkg, dict):
            continue
        url = pkg.get("conda") or pkg.get("pypi") or pkg.get("url")
        if isinstance(url, str):
            out += _conda_url(url, file)
    return _dedupe(out)


def read_conda_lock(text: str, file: str = "conda-lock.yml") -> list[Record]:
    data = _yaml(text)
    out: list[Record] = []
    packages = data.get("package") if isinstance(data, dict) else None
    for pkg in packages if isinstance(packages, list) else []:
        if not isinstance(pkg, dict) or not isinstance(pkg.get("name"), str):
            continue
        url = pkg.get("url")
        if isinstance(url, str) and _conda_url(url, file):
            out += _conda_url(url, file)
            continue
        platform = str(pkg.get("platform") or "")
        target = _CONDA_PLATFORM.get(platform.split("-")[0], ANY)
        build = str(pkg.get("build") or "")
        out += _conda_package(pkg["name"], str(pkg.get("version") or ""), build, file, target, pkg["name"])
    return _dedupe(out)


def _dedupe(records: list[Record]) -> list[Record]:
    return list(dict.fromkeys(records))


READERS = (("uv.lock", read_uv_lock), ("poetry.lock", read_poetry_lock), ("pdm.lock", read_poetry_lock),
           ("Pipfile.lock", read_pipfile_lock), ("pixi.lock", read_pixi_lock), ("conda-lock.yml", read_conda_lock),
           ("conda-lock.yaml", read_conda_lock))
