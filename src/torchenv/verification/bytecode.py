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
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from ..safety import remove_scratch

if TYPE_CHECKING:
    from ..lockfile.model import LockTarget

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


SAMPLE = ".sample"   # in each kept folder: one ``.pyc`` (relative path) whose header says which sources it fits


def _fits(pyc: Path, source: Path) -> bool:
    """Would Python take ``pyc`` for ``source``? (a timestamp ``.pyc`` whose recorded mtime and size match)."""
    import struct

    try:
        with open(pyc, "rb") as fh:
            header = fh.read(16)
        st = os.stat(source)
    except OSError:
        return False
    if len(header) < 16:
        return False
    flags, mtime, size = struct.unpack("<III", header[4:16])
    return bool(flags == 0 and mtime == int(st.st_mtime) & 0xFFFFFFFF and size == st.st_size & 0xFFFFFFFF)


def _source_of(rel_pyc: str) -> str:
    """``pkg/__pycache__/mod.cpython-311.pyc`` -> ``pkg/mod.py``."""
    folder, _sep, name = rel_pyc.rpartition("/")
    return os.path.join(os.path.dirname(folder), name.partition(".")[0] + ".py")


def _fits_site(kept: Path, site: Path) -> bool:
    """Do the ``.pyc`` kept in ``kept`` fit ``site``'s sources? Their sample tells (empty: nothing to lend).

    Why a sample: every file of a wheel comes from one unpacked copy in uv's cache, with the mtimes
    that copy got; an env linked from another copy (another uv cache, the same wheel found at
    another path) has other mtimes, and Python would recompile every lent file.
    """
    rel = _sample(kept)
    return rel is not None and rel != "" and _fits(kept / rel, site / _source_of(rel))


def _sample(kept: Path) -> str | None:
    """The kept folder's sample; ``""`` when it was kept empty, ``None`` when there is none."""
    try:
        return (kept / SAMPLE).read_text(encoding="utf-8").strip()
    except OSError:
        return None


def keep(site: Path, target: LockTarget, python: str) -> int:
    """Link the ``.pyc`` each wheel's files have now into the store; how many.

    A wheel already kept for these very sources is left alone; one kept for another unpacked
    copy of the wheel is replaced. Never raises: the store only saves time.
    """
    kept = 0
    root = store(python)
    for sha, info in _dist_infos(site, target):
        final = root / sha
        if final.exists() and (not _sample(final) or _fits_site(final, site)):
            continue    # kept for these sources, or kept empty (verify imported nothing of it)
        try:
            kept += _link_all(site, _compiled(site, info / "RECORD"), final)
        except (OSError, ValueError):
            continue
    return kept


def _link_all(site: Path, files: list[str], final: Path) -> int:
    """All of ``files`` under ``final`` (with their sample), or nothing: built aside, renamed into place."""
    tmp = final.with_name(f".{final.name}.{os.getpid()}.tmp")
    sample = next((rel for rel in files if _fits(site / rel, site / _source_of(rel))), "")
    try:
        tmp.mkdir(parents=True)
        for rel in files:
            dest = tmp / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            os.link(site / rel, dest)
        (tmp / SAMPLE).write_text(sample, encoding="utf-8")
        if final.exists():                       # kept for another copy of the wheel: replaced
            old = final.with_name(f".{final.name}.{os.getpid()}.old")
            final.rename(old)
            remove_scratch(old, inside=final.parent)
        tmp.rename(final)
    except OSError:
        remove_scratch(tmp, inside=final.parent)   # another filesystem, or another run got there first
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
        if not _fits_site(kept, site):
            continue                              # not kept, kept empty, or for another copy of the wheel
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
