"""Turn an ``OSError`` nobody caught into a ``TorchenvError`` a user can act on.

Why here, once: permission problems, full disks and file-shaped directories can surface
from any file torchenv reads or writes (lock, state, cache, config, the env's interpreter).
The message names the path that blocked, who owns it and what to run; a raw
``PermissionError`` traceback says none of that.
"""
from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path

from .errors import TorchenvError

# (verb, permission bit for chmod) by what was missing; the first rule that matches wins.
_NEEDS: tuple[tuple[str, str, Callable[[Path, os.stat_result], bool]], ...] = (
    ("enter", "x", lambda p, st: stat.S_ISDIR(st.st_mode) and not os.access(p, os.X_OK)),
    ("create files in", "w", lambda p, st: stat.S_ISDIR(st.st_mode) and not os.access(p, os.W_OK)),
    ("run", "rx", lambda p, st: stat.S_ISREG(st.st_mode) and _looks_executable(p, st)
     and not os.access(p, os.X_OK)),
    ("read", "r", lambda p, st: not os.access(p, os.R_OK)),
    ("write", "w", lambda p, st: not os.access(p, os.W_OK)),
)

# Where torchenv's own folders come from, for the "or move it" part of a hint.
_HOME_VARS = ("TORCHENV_CACHE_DIR", "TORCHENV_CONFIG_DIR", "TORCHENV_HOME")


class PermissionDenied(TorchenvError):
    """A file or folder torchenv needs is not readable/writable/executable by this user."""


class FileSystemError(TorchenvError):
    """A path has the wrong shape (file vs folder), the disk is full or read-only, ..."""


def explain(exc: OSError) -> TorchenvError:
    """The user-facing error for ``exc``."""
    if isinstance(exc, PermissionError) or exc.errno in (errno.EACCES, errno.EPERM):
        return permission_denied(exc)
    return shape_error(exc)


def permission_denied(exc: OSError) -> PermissionDenied:
    if not exc.filename:
        return PermissionDenied(f"permission denied ({exc.strerror or exc})",
                                hint="set TORCHENV_DEBUG=1 to see which operation it was")
    path = Path(os.fsdecode(exc.filename))
    blocker, verb, bit = blocking_path(path)
    try:
        st = blocker.stat()
    except OSError:
        return PermissionDenied(f"permission denied: {path}", hint="check that you can read and write it")
    owner, me = user_name(st.st_uid), current_user()
    text = f"permission denied: cannot {verb} {blocker} (owner {owner}, mode {stat.filemode(st.st_mode)}; " \
           f"you are {me})"
    if blocker != path:
        link = f" (a link to {os.path.realpath(path)})" if os.path.islink(path) else ""
        text += f", needed for {path}{link}"
    return PermissionDenied(text, hint=_permission_hint(blocker, bit, owner, me), path=str(path),
                            blocked_by=str(blocker), owner=owner)


def blocking_path(path: Path) -> tuple[Path, str, str]:
    """The folder or file that refuses this user, with the verb and chmod bits it lacks.

    Ancestors are checked first: a folder you cannot enter blocks everything under it.
    """
    absolute = Path(os.path.abspath(path))
    for parent in reversed(absolute.parents):
        if parent.is_dir() and not os.access(parent, os.X_OK):
            return parent, "enter", "x"
    if not os.path.lexists(absolute):
        return absolute.parent, "create files in", "w"
    try:
        st = absolute.stat()
    except OSError:                     # a link into a folder this user cannot enter (a private home)
        target = Path(os.path.realpath(absolute))
        return blocking_path(target) if target != absolute else (absolute, "use", "r")
    for verb, bit, lacks in _NEEDS:
        if lacks(absolute, st):
            return absolute, verb, bit
    return absolute, "use", "rw"       # the bits allow it: an ACL, an immutable flag or a security module refused


def _looks_executable(path: Path, st: os.stat_result) -> bool:
    return bool(st.st_mode & 0o111) or path.parent.name in ("bin", "Scripts")


def _permission_hint(blocker: Path, bit: str, owner: str, me: str) -> str:
    fix = f"`chmod u+{bit} {blocker}`" if owner == me else (
        f"ask {owner} to allow it (e.g. `chmod a+{bit} {blocker}`), or run torchenv as {owner}")
    moved = _moved_by(blocker)
    return fix + (f"; or set {moved} to a folder you own" if moved else "")


def _own_folders() -> tuple[tuple[Path, str], ...]:
    """torchenv's cache and config folders, with the variable that moves each."""
    from . import paths

    return ((Path(os.path.abspath(paths.cache_dir())), "TORCHENV_CACHE_DIR (or TORCHENV_HOME)"),
            (Path(os.path.abspath(paths.config_dir())), "TORCHENV_CONFIG_DIR (or TORCHENV_HOME)"))


def _moved_by(path: Path) -> str | None:
    """The environment variable that relocates ``path``, when it is in or above torchenv's own folders."""
    for folder, var in _own_folders():
        if path == folder or folder in path.parents or path in folder.parents:
            return var
    return None


def current_user() -> str:
    if hasattr(os, "geteuid"):
        return user_name(os.geteuid())
    import getpass

    return getpass.getuser()


def user_name(uid: int) -> str:
    try:
        import pwd

        return pwd.getpwuid(uid).pw_name
    except (ImportError, KeyError):
        return f"uid {uid}"


# --- the wrong shape, a full or read-only disk -------------------------------------------------

def shape_error(exc: OSError) -> FileSystemError:
    path = Path(os.fsdecode(exc.filename)) if exc.filename else None
    where = f"{path}: " if path else ""
    reason = exc.strerror or str(exc)
    file_in_way = _file_in_the_way(path) if path else None
    if file_in_way is not None:
        text, hint = (f"{file_in_way} is a file, where a folder is needed"
                      + (f" (for {path})" if file_in_way != path else ""),
                      "move that file aside" + _env_note(file_in_way))
    elif isinstance(exc, IsADirectoryError):
        text, hint = f"{path} is a folder, where a file is needed", "move that folder aside or remove it"
    elif exc.errno == errno.ENOSPC:
        text, hint = f"{where}{reason}", "free some space (or set TORCHENV_HOME elsewhere)"
    elif exc.errno == errno.EROFS:
        text, hint = f"{where}{reason}", "run it where you can write, or -C a writable copy"
    else:
        text, hint = f"{where}{reason}", "set TORCHENV_DEBUG=1 for the traceback"
    return FileSystemError(text, hint=hint, path=str(path) if path else None)


def _file_in_the_way(path: Path) -> Path | None:
    """The first component of ``path`` that exists but is not a folder, when ``path`` needs to be one."""
    absolute = Path(os.path.abspath(path))
    for candidate in (*reversed(absolute.parents), absolute):
        if os.path.lexists(candidate) and not candidate.is_dir():
            return candidate if candidate != absolute or _wants_folder(absolute) else None
    return None


def _wants_folder(path: Path) -> bool:
    """A path torchenv only ever uses as a folder: its cache or config home, or one above them."""
    return any(path == folder or path in folder.parents for folder, _var in _own_folders())


def _env_note(path: Path) -> str:
    for var in _HOME_VARS:
        value = os.environ.get(var)
        if value and Path(os.path.abspath(value)) in (path, *path.parents):
            return f", or point {var} at a folder"
    return ""
