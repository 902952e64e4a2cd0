"""Bytecode that one env's verify wrote, hardlinked into the next env made from the same wheels.

Why: uv installs without ``.pyc`` (compiling everything costs ~6 s), so the first ``import torch``
in a fresh env compiles what it imports (~2.4 s instead of ~1.1 s). Every env built from the
same lock holds the very same source files (hardlinks into uv's cache), so the ``.pyc`` the
first env's verify wrote fit the next env too. After a verify that passed, ``keep`` links each
wheel's new ``.pyc`` into torchenv's cache (``bytecode/<python>/<wheel sha256>/``, once per
wheel); before the next verify, ``lend`` links them into the fresh env.

Why this is safe: Python checks every ``.pyc`` against its source's size and mtime (and its own
magic number) before using it, and recompiles otherwise, replacing the file by rename, so a
stale one is never run and the kept copy is never changed. Keyed by the wheel's sha256 from
torchenv.lock, a kept file only ever meets the sources of the wheel it was compiled from.
Where links cannot be made (another filesystem), nothing is lent and Python compiles as before.
"""
from __future__ import annotations

import os
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..lock.model import LockTarget

PYCACHE = "__pycache__"


def store(python: str) -> Path:
    from ..paths import cache_dir

    return cache_dir() / "bytecode" / python


def _dist_infos(site: Path, target: LockTarget) -> Iterable[tuple[str, Path]]:
    """(wheel sha256, its ``.dist-info`` folder) for every locked wheel installed in ``site``."""
    from ..backends.state import dist_name

    by_name = {w.name: w for w in target.wheels}
    try:
        names = [n for n in os.listdir(site) if n.endswith(".dist-info")]
    except OSError:
        return
    for info in names:
        wheel = by_name.get(dist_name(info[: -len(".dist-info")].partition("-")[0]))
        if wheel is not None and wheel.sha256:     # right after a sync: the very file the lock names
            yield wheel.sha256, site / info


def _sources_by_folder(record: Path) -> dict[str, set[str]]:
    """``{folder: {module stem, ...}}`` of the ``.py`` files a RECORD lists (relative to site-packages)."""
    from ..backends.state import record_rows

    folders: dict[str, set[str]] = {}
    for rel in record_rows(record):
        if rel.endswith(".py") and not rel.startswith(("/", "..")):
            folder, _sep, name = rel.rpartition("/")
            folders.setdefault(folder, set()).add(name[:-3])
    return folders


def _compiled(site: Path, record: Path) -> list[str]:
    """The ``.pyc`` (relative to site-packages) present for the wheel's own ``.py`` files."""
    out = []
    for folder, stems in _sources_by_folder(record).items():
        cache = os.path.join(folder, PYCACHE) if folder else PYCACHE
        try:
            names = os.listdir(site / cache)
        except OSError:
            continue
        out += [f"{cache}/{n}" for n in names if n.endswith(".pyc") and n.partition(".")[0] in stems]
    return out


def keep(site: Path, target: LockTarget, python: str) -> int:
    """Link the ``.pyc`` each wheel's files have now into the store (wheels it lacks only); how many.

    Never raises: the store only saves time.
    """
    kept = 0
    root = store(python)
    for sha, info in _dist_infos(site, target):
        final = root / sha
        if final.exists():
            continue
        try:            # a wheel whose files verify did not import is kept empty: not looked at again
            kept += _link_all(site, _compiled(site, info / "RECORD"), final)
        except (OSError, ValueError):
            continue
    return kept


def _link_all(site: Path, files: list[str], final: Path) -> int:
    """All of ``files`` under ``final``, or nothing: built in a temp folder, renamed into place."""
    tmp = final.with_name(f".{final.name}.{os.getpid()}.tmp")
    try:
        tmp.mkdir(parents=True)
        for rel in files:
            dest = tmp / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            os.link(site / rel, dest)
        tmp.rename(final)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)   # another filesystem, or another run got there first
        return 0
    return len(files)


def lend(site: Path, target: LockTarget, python: str) -> int:
    """Link the kept ``.pyc`` of each installed wheel into ``site`` where it has none; how many.

    Never raises, and never replaces a file the env has.
    """
    lent = 0
    root = store(python)
    for sha, _info in _dist_infos(site, target):
        kept = root / sha
        if not kept.is_dir():
            continue
        for folder, _dirs, names in os.walk(kept):
            rel = os.path.relpath(folder, kept)
            dest = site / rel
            if os.path.basename(folder) != PYCACHE or not names or not dest.parent.is_dir():
                continue                          # only a __pycache__ beside the sources it was compiled from
            try:
                dest.mkdir(exist_ok=True)
                for name in names:
                    try:
                        os.link(os.path.join(folder, name), dest / name)
                        lent += 1
                    except FileExistsError:
                        continue
            except OSError:
                return lent                       # another filesystem: Python compiles as before
    return lent
