"""Small filesystems for resource faults: a tiny tmpfs (disk full), a read-only bind mount.

Why mounts and not chmod: the suite runs as root in CI containers, and root ignores file
modes. Each helper skips the test, with the reason, where mounting is not allowed.
"""
from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support.skips import unavailable


def _mount(*args: str) -> None:
    r = subprocess.run(["mount", *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise OSError(r.stderr.strip() or f"mount {' '.join(args)} failed")


def _umount(path: Path) -> None:
    subprocess.run(["umount", "-l", str(path)], capture_output=True)


def _need_root(what: str) -> None:
    if os.geteuid() != 0:
        unavailable(f"{what} needs root to mount a filesystem (and as non-root chmod would do, "
                    "but this suite does not fake it)")


@contextmanager
def small_tmpfs(path: Path, size: str) -> Iterator[Path]:
    """A tmpfs of ``size`` (e.g. "8m") at ``path``: writes past it fail with ENOSPC."""
    _need_root("a small tmpfs (disk full)")
    path.mkdir(parents=True, exist_ok=True)
    try:
        _mount("-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path))
    except OSError as exc:
        unavailable(f"cannot mount a tmpfs here ({exc}); disk-full faults not tried")
    try:
        yield path
    finally:
        _umount(path)


@contextmanager
def read_only(path: Path) -> Iterator[Path]:
    """Make ``path`` read-only in place (a read-only bind mount over itself)."""
    _need_root("a read-only bind mount")
    try:
        _mount("--bind", str(path), str(path))
    except OSError as exc:
        unavailable(f"cannot bind-mount here ({exc}); read-only faults not tried")
    try:
        _mount("-o", "remount,bind,ro", str(path))
    except OSError as exc:
        _umount(path)
        unavailable(f"cannot remount read-only here ({exc}); read-only faults not tried")
    try:
        yield path
    finally:
        _umount(path)
