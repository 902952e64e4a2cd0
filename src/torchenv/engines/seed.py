"""pip inside every venv, so ``python -m pip install ...`` works as torchenv's hints and READMEs say.

Why virtualenv's bundled wheel: ``uv venv --seed`` downloads pip from an index (none may be
reachable, and ``up --offline`` forbids it); virtualenv, a torchenv dependency that the pip
engine already uses to create envs, ships pip's wheel inside itself. The uv engine adds it to
every ``uv pip sync`` (which would otherwise remove it as extraneous), hash-checked like the
locked files; it is the env's tool, not a locked package, as in the pip engine's envs.

Why the answer is remembered: importing virtualenv costs ~15-70 ms and hashing the wheel a few
more, on every install. ``seed-pip.json`` in torchenv's cache keeps (wheel, sha256) per Python,
valid while virtualenv's list of bundled wheels (``seed/wheels/embed/__init__.py``) and the
wheel itself have the (size, mtime_ns, inode) they had when it was written.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
from pathlib import Path

_REMEMBERED = "seed-pip.json"


@functools.cache
def pip_wheel(python: str) -> tuple[Path, str] | None:
    """(virtualenv's bundled pip wheel for Python ``python``, its sha256), or ``None`` without one."""
    listing = _embed_listing()
    if listing is None:
        return None
    known = _remembered(listing, python)
    if known is not None:
        return known
    found = _from_listing(listing, python) or _from_virtualenv(python)
    if found is not None:
        _remember(listing, python, *found)
    return found


def _from_listing(listing: str, python: str) -> tuple[Path, str] | None:
    """The wheel virtualenv's listing names for ``python``, read from its text (``None``: ask virtualenv).

    Why not import virtualenv first: on a cold ``up`` (no ``seed-pip.json`` yet) importing it costs
    ~0.1-1 s on a loaded machine; its listing is a literal table (``BUNDLE_SUPPORT``) that a
    search reads. A Python the table lacks, or a table of another shape, is left to virtualenv.
    """
    import re

    try:
        with open(listing, encoding="utf-8") as fh:
            text = fh.read()
    except OSError:
        return None
    m = re.search(rf'"{re.escape(python)}":\s*\{{[^}}]*?"pip":\s*"(pip-[^"/\\]+\.whl)"', text)
    path = Path(listing).parent / m.group(1) if m else None
    if path is None or not path.is_file():
        return None
    return path, hashlib.sha256(path.read_bytes()).hexdigest()


def _from_virtualenv(python: str) -> tuple[Path, str] | None:
    try:
        from virtualenv.seed.wheels.embed import get_embed_wheel
    except ImportError:
        return None
    wheel = get_embed_wheel("pip", python)
    if wheel is None or not Path(wheel.path).is_file():
        return None
    path = Path(wheel.path)
    return path, hashlib.sha256(path.read_bytes()).hexdigest()


def _embed_listing() -> str | None:
    """Where virtualenv lists its bundled wheels, found without importing virtualenv (``None``: not installed)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("virtualenv")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return os.path.join(next(iter(spec.submodule_search_locations)), "seed", "wheels", "embed", "__init__.py")


def _signature(path: str) -> list[int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def _store() -> Path:
    from .. import paths

    return paths.cache_dir() / _REMEMBERED


def _remembered(listing: str, python: str) -> tuple[Path, str] | None:
    try:
        entry = json.loads(_store().read_text())[python]
        if entry["listing"] != [listing, _signature(listing)] or entry["wheel"][1] != _signature(entry["wheel"][0]):
            return None
        return Path(entry["wheel"][0]), str(entry["sha256"])
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return None


def _remember(listing: str, python: str, wheel: Path, sha256: str) -> None:
    """Best effort: a cache that cannot be written only means virtualenv is asked again next time."""
    store = _store()
    try:
        data = json.loads(store.read_text())
        if not isinstance(data, dict):
            data = {}
    except (OSError, ValueError):
        data = {}
    data[python] = {"listing": [listing, _signature(listing)], "wheel": [str(wheel), _signature(str(wheel))],
                    "sha256": sha256}
    try:
        from ..fileio import write_atomic

        store.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(store, json.dumps(data), durable=False)
    except OSError:
        pass
