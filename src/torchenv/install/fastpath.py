"""The no-op ``up`` before the command line is even built: one small JSON file and a few hundred ``stat`` calls.

Why a stamp file: the full no-op check (``install.noop``) is exact but reads torchenv.toml, the
lock and the requirements with tomllib, and the command line it runs behind imports every verb
(~0.1 s in all). Once that check has said "up to date", ``record`` writes down what it looked
at: every file it opened and every folder it listed, the folders holding them (a file that
appears beside them, such as a new ``requirements.txt`` or the in-progress marker, changes the
folder's mtime), the interpreter link and the watched site-packages files, each with its
(mtime_ns, size, inode). ``answer`` repeats ``up``'s message when every one of them is unchanged;
any difference, any flag it does not know, any error, and the full path decides. Standard
library only, imported before anything else of torchenv.
"""
from __future__ import annotations

import json
import os
import sys

TYPE_CHECKING = False     # typing itself is not imported here: this module runs before anything else
if TYPE_CHECKING:
    from collections.abc import Callable

STAMP_DIR = ".torchenv"
STAMP_FILE = "noop-stamp.json"
SCHEMA = 1
_BARE_FLAGS = {"-q": "quiet", "--quiet": "quiet", "--no-verify": "no_verify", "--frozen": "frozen"}


def parse(argv: list[str]) -> tuple[str, bool] | None:
    """``(start dir, quiet)`` for ``up [-C DIR] [-q] [--no-verify] [--frozen]``; ``None`` for anything else."""
    if argv[:1] != ["up"]:
        return None
    start, quiet, rest = ".", False, list(argv[1:])
    while rest:
        token = rest.pop(0)
        if token in _BARE_FLAGS:
            quiet = quiet or _BARE_FLAGS[token] == "quiet"
        elif token in ("-C", "--project") and rest:
            start = rest.pop(0)
        elif token.startswith("--project="):
            start = token.partition("=")[2]
        elif token.startswith("-C") and len(token) > 2:
            start = token[2:]
        else:
            return None
    return start, quiet


def _signature(path: str, follow: bool = True) -> list[int] | None:
    try:
        st = os.stat(path) if follow else os.lstat(path)
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_size, st.st_ino]


def _stamp_path(project: str) -> str:
    return os.path.join(project, STAMP_DIR, STAMP_FILE)


def answer(argv: list[str]) -> int | None:
    """0 after printing ``up``'s up-to-date message when the stamp still holds; ``None``: run the full command."""
    parsed = parse(argv)
    if parsed is None:
        return None
    try:
        project = os.path.realpath(parsed[0])
        with open(_stamp_path(project), encoding="utf-8") as fh:
            stamp = json.load(fh)
        if stamp.get("schema") != SCHEMA or stamp.get("torchenv") != _version():
            return None
        if any(_signature(path, follow) != sig for path, follow, sig in stamp["paths"]):
            return None
        _ = _translator()
        sys.stdout.write(_("{env} is up to date with {lock} (target {target})").format(
            env=_rel(stamp["env"]), lock=stamp["lock"], target=stamp["target"]) + "\n")
        if stamp["warnings"]:             # English data (requirement-file notes), shown as the full path shows them
            from ..ui import warning_shown

            sys.stderr.write("".join(f"{_('warning:')} {warning_shown(w)}\n" for w in stamp["warnings"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return 0


def _translator() -> Callable[[str], str]:
    """``up``'s words in the user's language. In English this reads the locale variables and nothing
    else: the catalogue is opened only when the locale asks for one (and only then costs a read)."""
    from .. import i18n

    i18n.activate()
    return i18n._


def _rel(path: str) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return rel if not rel.startswith("..") else path


def _version() -> str:
    from .. import __version__

    return __version__


# --- recording (after a full ``up`` succeeded; imports allowed) ---------------------------------

class _Seen:
    """Paths opened and folders listed while the full no-op check runs (an audit hook; off otherwise)."""

    active: _Seen | None = None
    installed = False

    def __init__(self) -> None:
        self.files: set[str] = set()
        self.folders: set[str] = set()

    @classmethod
    def hook(cls, event: str, args: tuple[object, ...]) -> None:
        seen = cls.active
        if seen is None or not args:
            return
        if event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
            seen.files.add(os.path.abspath(os.fsdecode(args[0])))
        elif event in ("os.listdir", "os.scandir") and isinstance(args[0], (str, bytes, os.PathLike)):
            seen.folders.add(os.path.abspath(os.fsdecode(args[0])))


def record(argv: list[str], project: str, *, unless_installed_since: int | None = None) -> None:
    """Write the stamp when the full no-op check says ``project``'s env is up to date (verify included).

    ``unless_installed_since`` (``time.time_ns()`` when the command began): skip an env this very
    command installed into. Why: the check costs 10-70 ms, which a fresh install should not pay;
    the next ``up``, a no-op, writes the stamp. Never raises: the stamp only saves time, and a
    missing one means the full check runs.
    """
    if parse(argv) is None:
        return
    try:
        if unless_installed_since is not None and _installed_since(project, unless_installed_since):
            return
        _record(project)
    except Exception:
        return


def _installed_since(project: str, since_ns: int) -> bool:
    from pathlib import Path

    from ..backends import state as st
    from ..intent.load import load_project_intent
    from . import noop

    env = noop.env_path_for(load_project_intent(Path(project)), Path(project))
    try:
        return os.stat(st.marker_dir(env) / st.STATE_FILE).st_mtime_ns >= since_ns
    except OSError:
        return True


def _record(project: str) -> None:
    import tempfile
    from pathlib import Path

    from ..backends import state as st
    from ..options import UpOptions
    from ..sources.credentials import redact_text
    from . import noop

    project = os.path.realpath(project)
    stamp_dir = os.path.join(project, STAMP_DIR)
    os.makedirs(stamp_dir, exist_ok=True)          # before the stamps: creating it changes the project's mtime
    if not _Seen.installed:
        sys.addaudithook(_Seen.hook)
        _Seen.installed = True
    seen = _Seen.active = _Seen()
    try:
        done = noop.check(Path(project), UpOptions())
    finally:
        _Seen.active = None
    if done is None:
        return
    env = str(done.env_path)
    envstate = st.read_state(done.env_path)
    if envstate is None:
        return
    site = str(st.site_packages(done.env_path, envstate.python))
    watched = {os.path.join(site, rel) for rel, _size, _mtime in envstate.watched}
    opened = {f for f in seen.files if not f.endswith((".py", ".pyc", ".so"))}
    stat_paths = opened | seen.folders | {os.path.dirname(f) for f in opened} | watched | {project, site}
    python = str(st.env_python(done.env_path))
    stat_paths.add(python)
    paths = [[p, True, _signature(p)] for p in sorted(stat_paths)] + [[python, False, _signature(python, False)]]
    body = {"schema": SCHEMA, "torchenv": _version(), "env": env, "lock": done.lock_path.name,
            "target": done.target, "warnings": [redact_text(w) for w in done.warnings], "paths": paths}
    fd, tmp = tempfile.mkstemp(dir=stamp_dir, prefix=".noop-stamp-", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(body, fh)
    os.replace(tmp, _stamp_path(project))
