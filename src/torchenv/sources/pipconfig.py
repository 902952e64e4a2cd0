"""Read the user's pip configuration: their PyPI-side sources (index-url, extra-index-url,
find-links, constraint), without running pip (``pip config list`` costs ~0.3 s).

Why: users (and this machine) keep their package sources in pip's config; torchenv
honours it as "the PyPI side". Files are read in pip's order (global, user, site, then
PIP_CONFIG_FILE), ``[install]`` over ``[global]``, and PIP_* environment variables last.
"""
from __future__ import annotations

import configparser
import os
import sys
from pathlib import Path

from .model import PypiSide


def config_files() -> list[Path]:
    """pip's configuration files, lowest priority first (pip's documented order)."""
    files: list[Path] = []
    if sys.platform.startswith("win"):
        files.append(Path(os.environ.get("PROGRAMDATA", "C:/ProgramData")) / "pip" / "pip.ini")
        appdata = os.environ.get("APPDATA")
        if appdata:
            files.append(Path(appdata) / "pip" / "pip.ini")
        files.append(Path.home() / "pip" / "pip.ini")
    else:
        xdg_dirs = os.environ.get("XDG_CONFIG_DIRS", "/etc/xdg").split(":")
        files += [Path(d) / "pip" / "pip.conf" for d in reversed(xdg_dirs) if d]
        files.append(Path("/etc/pip.conf"))
        files.append(Path.home() / ".pip" / "pip.conf")
        xdg_home = Path(os.environ.get("XDG_CONFIG_HOME", str(Path.home() / ".config")))
        files.append(xdg_home / "pip" / "pip.conf")
    venv = os.environ.get("VIRTUAL_ENV")
    if venv:
        files.append(Path(venv) / ("pip.ini" if sys.platform.startswith("win") else "pip.conf"))
    override = os.environ.get("PIP_CONFIG_FILE")
    if override:
        if override == os.devnull:
            return []
        files.append(Path(override))
    return files


def _split(value: str) -> list[str]:
    return [v for v in value.replace("\n", " ").split() if v]


_PIP_KEYS = ("index-url", "extra-index-url", "find-links", "constraint", "no-index")


def _file_values(path: Path, values: dict[str, str], origins: list[str]) -> None:
    """The index settings of one pip config file's [global] and [install] sections (later ones win)."""
    parser = configparser.RawConfigParser()
    try:
        parser.read(path)
    except configparser.Error:
        return   # a broken pip.conf is pip's problem to report; we fall back to defaults
    for section in ("global", "install"):
        if not parser.has_section(section):
            continue
        for key, val in parser.items(section):
            key = key.replace("_", "-")
            if key in _PIP_KEYS:
                values[key] = val
                origins.append(str(path))


def _local_or_url(item: str) -> str:
    """A find-links/constraint entry: a URL (its login kept aside) or a path with ``~`` expanded."""
    from .credentials import remember

    if "://" in item:
        return remember(item)
    return str(Path(item).expanduser())


def read_pip_config(environ: dict[str, str] | None = None,
                    files: list[Path] | None = None) -> PypiSide:
    """The PyPI side as the user's pip would see it; PypiSide() (plain PyPI) when unset."""
    env = os.environ if environ is None else environ
    values: dict[str, str] = {}
    origins: list[str] = []
    for path in (config_files() if files is None else files):
        if path.is_file():
            _file_values(path, values, origins)
    for key in _PIP_KEYS:
        env_key = "PIP_" + key.upper().replace("-", "_")
        if env.get(env_key):
            values[key] = env[env_key]
            origins.append(env_key)
    if not values:
        return PypiSide(origin="default (PyPI)")

    from .credentials import remember, remember_all

    index_url = values.get("index-url", "").strip()
    return PypiSide(          # logins are kept aside (sources.credentials), never carried in URLs
        index_url=remember(index_url) if index_url else None,
        extra_index_urls=remember_all(_split(values.get("extra-index-url", ""))),
        find_links=tuple(_local_or_url(v) for v in _split(values.get("find-links", ""))),
        constraints=tuple(_local_or_url(v) for v in _split(values.get("constraint", ""))),
        origin="pip config (" + ", ".join(dict.fromkeys(origins)) + ")",
    )


def local_dirs(urls: tuple[str, ...] | list[str]) -> list[Path]:
    """The local directories among find-links entries (file:// or plain paths)."""
    out: list[Path] = []
    for u in urls:
        p = Path(u[len("file://"):]) if u.startswith("file://") else (Path(u) if "://" not in u else None)
        if p is not None and p.is_dir():
            out.append(p)
    return out
