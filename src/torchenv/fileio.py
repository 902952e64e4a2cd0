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


def write_atomic(path: Path | str, data: str | bytes, *, durable: bool = True, private: bool = False) -> Path:
    """Write ``data`` (str is UTF-8, ``\\n`` line ends) to ``path`` via a temp file + ``os.replace``.

    ``durable=False`` skips the ``fsync``: still atomic for readers, but not forced to disk. For
    files inside an env, whose package files the installer never syncs either: an ``fsync`` right
    after an install waits for the whole unpacked stack (hundreds of MB) to reach the disk.
    ``private=True``: mode 0600 from the start (a file holding logins, such as ``.netrc``).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = _create_temp(path, 0o600 if private else 0o666)
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


def _create_temp(path: Path, mode: int = 0o666) -> tuple[int, Path]:
    """A new, empty ``.<name>.<random>.tmp`` beside ``path``, ``mode`` (0666) minus the umask."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
    for _attempt in range(100):
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
        try:
            return os.open(tmp, flags, mode), tmp
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


def is_fresh(written_at: float, ttl: float, now: float | None = None) -> bool:
    """Whether a cache entry written at ``written_at`` (epoch seconds) is still within ``ttl``.

    Why both bounds: a clock that was wrong when the entry was written (skew, a restored backup, a
    laptop that slept across a time-zone change) dates it in the future, and ``now - written_at``
    is then negative, i.e. "younger than the ttl" for as long as the skew lasts. Such an entry
    is stale: the one rule every time-stamped cache of torchenv asks.
    """
    import time

    age = (time.time() if now is None else now) - written_at
    return 0 <= age < ttl


# --- input files a user or a teammate hands torchenv ----------------------------------------

TOML_MAX_BYTES = 16 * 2**20     # a lock of several targets with thousands of wheels stays under 4 MiB
TEXT_MAX_BYTES = 16 * 2**20     # a requirements file or an include: thousands of lines are under 1 MiB


class InputRefused(ValueError):
    """An input file torchenv will not parse: too large, nested too deep, or a merge left half-done.

    Why a plain ``ValueError`` here: this floor knows no error family; each reader turns it into its own
    ``TorchenvError`` (lock, intent, requirements) with the hint that fits that file.
    """

    def __init__(self, reason: str, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.reason, self.message, self.line = reason, message, line


def read_bounded(path: Path, limit: int = TEXT_MAX_BYTES) -> bytes:
    """The file's bytes, refusing one larger than ``limit`` before reading it whole (a 1.5 GB file is not read)."""
    from .i18n import _

    with open(path, "rb") as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise InputRefused("large", _("{path} is larger than {limit} MiB, the most torchenv reads from such a "
                                      "file").format(path=path, limit=limit // 2**20))
    return data


def merge_conflict_line(text: str) -> int | None:
    """The first line that is a git merge-conflict marker (``<<<<<<<``, ``=======``, ``>>>>>>>``), if any."""
    for number, line in enumerate(text.splitlines(), 1):
        if line[:7] in ("<<<<<<<", "=======", ">>>>>>>") and line[7:8] in ("", " "):
            return number
    return None


def loads_toml(text: str) -> dict[str, Any]:
    """``tomllib.loads`` with the input refused first when it is no TOML a person or torchenv wrote.

    Why before parsing: tomllib reports conflict markers as "Invalid statement", runs out of stack
    on thousands of nested ``[`` (RecursionError) and holds a huge file in memory several times over.
    """
    from .i18n import _

    if len(text) > TOML_MAX_BYTES:
        raise InputRefused("large", _("the file is larger than {limit} MiB, the most torchenv reads from a TOML "
                                      "file").format(limit=TOML_MAX_BYTES // 2**20))
    line = merge_conflict_line(text)
    if line is not None:
        raise InputRefused("conflict", _("unresolved git merge conflict (a conflict marker at line {line})").format(
                               line=line), line)
    try:
        data: dict[str, Any] = tomllib_module().loads(text)
    except RecursionError:
        import sys

        raise InputRefused("deep", _("nested too deeply to read: more levels of [ ] or {{ }} than Python's recursion "
                                     "limit ({limit}) allows; torchenv's own files nest fewer than 10").format(
                                         limit=sys.getrecursionlimit())) from None
    return data
