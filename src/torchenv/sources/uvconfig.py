"""Read uv's own settings for the PyPI side: the indexes a user configured for uv, without running uv.

Why: torchenv installs with uv, and a user who set ``UV_INDEX_URL`` or an ``[[index]]`` in
``uv.toml`` expects the same sources as ``uv pip install`` would use, as torchenv already does
for pip's config (``sources.pipconfig``).

What is read, as uv reads it (most specific first; per setting, the first place that gives it decides: the default index, the further indexes, find-links):

1. ``UV_DEFAULT_INDEX`` / ``UV_INDEX_URL`` (the default index), ``UV_INDEX`` / ``UV_EXTRA_INDEX_URL``
   (further indexes, space-separated, ``name=URL`` or ``URL``), ``UV_FIND_LINKS``;
2. ``UV_CONFIG_FILE`` when set (then no other file), else the project's ``uv.toml``, else its
   ``pyproject.toml`` ``[tool.uv]``; then the user's ``uv.toml`` (``$XDG_CONFIG_HOME/uv``) and the
   system's (``$XDG_CONFIG_DIRS/uv``). ``UV_NO_CONFIG`` skips the files.

In each file: ``index-url`` and ``[[index]]`` with ``default = true`` are the default index;
``extra-index-url`` and the other ``[[index]]`` entries are further indexes, except ``explicit = true``
ones, which uv uses only for packages pinned to them by name (a torch index, typically) and so
are not a PyPI-side source.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class UvIndexes:
    """The PyPI-side indexes uv's settings name (empty when they name none)."""

    default: str | None = None
    extra: tuple[str, ...] = ()
    find_links: tuple[str, ...] = ()
    origins: tuple[str, ...] = ()          # files and variables that said something
    explicit: tuple[str, ...] = ()         # explicit indexes, left out (said in the plan)

    @property
    def names_an_index(self) -> bool:
        return bool(self.default or self.extra)


def _split(value: str) -> list[str]:
    return [v.split("=", 1)[1] if "=" in v.split("://", 1)[0] else v for v in value.split() if v]


def _env_indexes(env: os._Environ[str] | dict[str, str]) -> tuple[UvIndexes, list[str]]:
    default_key = next((k for k in ("UV_DEFAULT_INDEX", "UV_INDEX_URL") if env.get(k)), None)
    extra_keys = [k for k in ("UV_INDEX", "UV_EXTRA_INDEX_URL") if env.get(k)]
    links = _split(env.get("UV_FIND_LINKS", "").replace(",", " "))
    found = UvIndexes(default=_split(env[default_key])[0] if default_key else None,
                      extra=tuple(u for k in extra_keys for u in _split(env[k])), find_links=tuple(links))
    return found, [k for k in (default_key, *extra_keys, "UV_FIND_LINKS" if links else None) if k]


def _xdg_files(env: os._Environ[str] | dict[str, str]) -> list[Path]:
    home = Path(env.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    system = [Path(d) / "uv" / "uv.toml" for d in (env.get("XDG_CONFIG_DIRS") or "/etc/xdg").split(":") if d]
    return [home / "uv" / "uv.toml", *system, Path("/etc/uv/uv.toml")]


def config_files(project: Path | None, environ: dict[str, str] | None = None) -> list[tuple[Path, str]]:
    """(file, table) pairs uv would read, most specific first; table is "" or "tool.uv"."""
    env = os.environ if environ is None else environ
    if env.get("UV_NO_CONFIG"):
        return []
    if env.get("UV_CONFIG_FILE"):
        return [(Path(env["UV_CONFIG_FILE"]), "")]
    out: list[tuple[Path, str]] = []
    if project is not None:
        if (project / "uv.toml").is_file():
            out.append((project / "uv.toml", ""))
        elif (project / "pyproject.toml").is_file():
            out.append((project / "pyproject.toml", "tool.uv"))
    return out + [(f, "") for f in _xdg_files(env) if f.is_file()]


def _uv_table(path: Path, table: str) -> dict[str, Any] | None:
    """The settings table of a uv config file (the whole file, or ``[tool.uv]`` of a pyproject); None when the
    file cannot be read or has no such table (a broken file is uv's to report; pip's config is read the same way)."""
    from ..fileio import tomllib_module

    try:
        data: Any = tomllib_module().loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    for part in table.split(".") if table else ():
        data = data.get(part) if isinstance(data, dict) else None
    return data if isinstance(data, dict) else None


def _default_index(data: dict[str, Any], entries: list[dict[str, Any]]) -> str | None:
    """The ``[[index]]`` marked ``default = true``, else the legacy ``index-url``."""
    marked = next((str(e["url"]) for e in entries if e.get("default")), None)
    if marked:
        return marked
    return str(data["index-url"]) if data.get("index-url") else None


def _extra_indexes(data: dict[str, Any], entries: list[dict[str, Any]]) -> list[str]:
    """The ``[[index]]`` entries uv searches besides the default (explicit ones serve only what names them), then
    the legacy ``extra-index-url``."""
    extra = [str(e["url"]) for e in entries if not e.get("default") and not e.get("explicit")]
    return extra + [str(u) for u in data.get("extra-index-url") or ()]


def _file_indexes(path: Path, table: str) -> UvIndexes:
    data = _uv_table(path, table)
    if data is None:
        return UvIndexes()
    entries = [e for e in data.get("index") or () if isinstance(e, dict) and e.get("url")]
    default = _default_index(data, entries)
    extra = _extra_indexes(data, entries)
    links = tuple(str(u) for u in data.get("find-links") or ())
    said = bool(default or extra or links)
    origin = f"{path} [tool.uv]" if table else str(path)
    return UvIndexes(default=default, extra=tuple(extra), find_links=links, origins=(origin,) if said else (),
                     explicit=tuple(str(e["url"]) for e in entries if e.get("explicit")))


def read_uv_config(project: Path | None, environ: dict[str, str] | None = None) -> UvIndexes:
    """uv's PyPI-side indexes: variables first, then the first file that names an index."""
    from .credentials import remember, remember_all

    env = os.environ if environ is None else environ
    found, keys = _env_indexes(env)
    layers = [UvIndexes(found.default, found.extra, found.find_links, tuple(keys))]
    layers += [_file_indexes(path, table) for path, table in config_files(project, environ)]

    def first(field: str) -> UvIndexes | None:
        return next((la for la in layers if getattr(la, field)), None)

    by_default, by_extra, by_links = first("default"), first("extra"), first("find_links")
    origins = tuple(dict.fromkeys(o for la in (by_default, by_extra, by_links) if la for o in la.origins))
    return UvIndexes(default=remember(by_default.default) if by_default and by_default.default else None,
                     extra=remember_all(by_extra.extra) if by_extra else (),
                     find_links=by_links.find_links if by_links else (), origins=origins,
                     explicit=tuple(u for la in layers for u in la.explicit))
