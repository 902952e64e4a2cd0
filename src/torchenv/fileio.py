"""Atomic writes of the files torchenv keeps for a project or a user (lock, state, reports, config).

Why not ``tempfile.mkstemp``: it creates the file mode 0600 whatever the umask, and
``os.replace`` keeps that mode, so a teammate could not read the project's lock. The temp
file here is created with 0666 and the kernel applies the umask, like any file the user
makes; a reader still sees the old file or the new one, never half of either.
"""
from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any


def write_atomic(path: Path | str, data: str | bytes, *, durable: bool = True) -> Path:
    """Write ``data`` (str is UTF-8, ``\\n`` line ends) to ``path`` via a temp file + ``os.replace``.

    ``durable=False`` skips the ``fsync``: still atomic for readers, but not forced to disk. For
    files inside an env, whose package files the installer never syncs either: an ``fsync`` right
    after an install waits for the whole unpacked stack (hundreds of MB) to reach the disk.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = _create_temp(path)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
            f.flush()
            if durable:
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def _create_temp(path: Path) -> tuple[int, Path]:
    """A new, empty ``.<name>.<random>.tmp`` beside ``path``, mode 0666 minus the umask."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
    for _attempt in range(100):
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"could not create a temporary file beside {path}")


def temp_file(folder: Path | str, prefix: str = ".tmp-", suffix: str = "") -> tuple[int, str]:
    """``tempfile.mkstemp`` with the umask's mode: a new, empty file in ``folder`` (fd and path).

    Why: caches, stamps and partial downloads are shared by a team (a setgid folder, umask
    002); mkstemp's fixed 0600 survives ``os.replace`` and locks the teammate out of them.
    """
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
    for _attempt in range(100):
        tmp = os.path.join(folder, f"{prefix}{secrets.token_hex(6)}{suffix}")
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"could not create a temporary file in {folder}")


def tomllib_module() -> Any:
    """stdlib ``tomllib``, or ``tomli`` on Python 3.10 (same API; ``Any``: no stubs where mypy targets 3.10)."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    return tomllib
