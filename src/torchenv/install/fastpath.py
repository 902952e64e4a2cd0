"""The no-op ``up`` before the command line is even built: one small JSON file and a few hundred ``stat`` calls.

Why a stamp file: the full no-op check (``install.noop``) is exact but reads torchenv.toml, the
lock and the requirements with tomllib, and the command line it runs behind imports every verb
(~0.1 s in all). Once that check has said "up to date" (after a no-op ``up``, or after one that
installed), ``record`` writes down what it looked at: every file it opened and every folder it listed, the folders holding them (a file that
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
    from typing import Any

    from ..options import UpOptions
    from ..project import ProjectRoot
    from .noop import UpToDate

STAMP_DIR = ".torchenv"
STAMP_FILE = "noop-stamp.json"
SCHEMA = 2          # 2: a watched package folder is held by its presence alone, as the full check holds it
PRESENT = "present"
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


def _held(path: str, follow: bool | str) -> list[int] | bool | None:
    """What the stamp holds of ``path``: its signature, or (``PRESENT``) only whether it is there."""
    return os.path.exists(path) if follow == PRESENT else _signature(path, bool(follow))


def _stamp_path(project: str) -> str:
    return os.path.join(project, STAMP_DIR, STAMP_FILE)


def answer(argv: list[str]) -> int | None:
    """0 after printing ``up``'s up-to-date message when the stamp still holds; ``None``: run the full command."""
    parsed = parse(argv)
    if parsed is None:
        return None
    try:
        found = _project_root(parsed[0])
        if found is None:
            return None
        project, located = found
        with open(_stamp_path(project), encoding="utf-8") as fh:
            stamp = json.load(fh)
        if stamp.get("schema") != SCHEMA or stamp.get("torchenv") != _version():
            return None
        if any(_held(path, follow) != sig for path, follow, sig in stamp["paths"]):
            return None
        _ = _translator()
        if located is not None and located.found_above and not parsed[1]:
            # only now: in the user's language, and only when the stamp answers (else the full path says it)
            sys.stderr.write(f"torchenv: {located.describe()}\n")
        sys.stdout.write(_("{env} is up to date with {lock} (target {target})").format(
            env=_rel(stamp["env"]), lock=stamp["lock"], target=stamp["target"]) + "\n")
        if stamp["warnings"]:             # requirement-file notes, shown as the full path shows them
            from ..ui import write_plain_warnings

            write_plain_warnings(_said(stamp))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return 0


def _project_root(start: str) -> tuple[str, ProjectRoot | None] | None:
    """The project the full path would use for ``start``: ``start`` itself when it holds torchenv.toml
    (no walk, no import), else ``project.find_project``'s answer from a subdirectory, returned too,
    whose "found above" line the stamp says as the full path says it. ``None`` (full path) when locks
    without a torchenv.toml were passed over: the full path names them."""
    begin = os.path.realpath(start)
    if os.path.lexists(os.path.join(begin, "torchenv.toml")):
        return begin, None
    from ..project import find_project

    located = find_project(begin)
    if located.stray_locks:
        return None
    return str(located.root), located


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
    last: _Seen | None = None          # the last check ``watch`` saw in this process
    installed = False

    def __init__(self, project: str = "", full: bool = True) -> None:
        self.files: set[str] = set()
        self.folders: set[str] = set()
        self.project = project
        self.full = full                # checked with verify, as a plain ``up`` does
        self.started_ns = 0
        self.result: UpToDate | None = None

    @classmethod
    def hook(cls, event: str, args: tuple[object, ...]) -> None:
        seen = cls.active
        if seen is None or not args:
            return
        if event == "open" and isinstance(args[0], (str, bytes, os.PathLike)):
            seen.files.add(os.path.abspath(os.fsdecode(args[0])))
        elif event in ("os.listdir", "os.scandir") and isinstance(args[0], (str, bytes, os.PathLike)):
            seen.folders.add(os.path.abspath(os.fsdecode(args[0])))


SETTLE_NS = 25_000_000            # mtimes lag the clock by up to a tick (1-10 ms on Linux)
COARSE_SETTLE_NS = 2_000_000_000  # a filesystem that keeps whole seconds (FAT, HFS+, some network mounts)
MAX_WAIT_NS = 60_000_000          # waited at most once, after an up that verified; longer: no stamp this time


def watch(argv: list[str]) -> None:
    """Before a plain ``up`` runs: note what its no-op check opens and answers (``noop.WATCH``), so that
    ``record`` after a no-op ``up`` reuses that check instead of running a second one."""
    if parse(argv) is None:
        return
    from . import noop

    noop.WATCH = _watched


class _watched:
    """``noop.check``'s context while ``watch`` is on: the audit hook collects for this one check."""

    def __init__(self, project_dir: str | os.PathLike[str], options: UpOptions) -> None:
        self.seen = _Seen(os.path.realpath(project_dir), full=not options.no_verify)

    def __enter__(self) -> _Seen:
        import time

        _hook_installed()
        self.seen.started_ns = time.time_ns()
        _Seen.active = self.seen
        return self.seen

    def __exit__(self, *exc: object) -> None:
        _Seen.active = None
        _Seen.last = self.seen


def _hook_installed() -> None:
    if not _Seen.installed:
        sys.addaudithook(_Seen.hook)
        _Seen.installed = True


def record(argv: list[str], project: str) -> None:
    """Write the stamp when the full no-op check says ``project``'s env is up to date (verify included).

    Also right after an ``up`` that installed: the check run here is the one ``up`` would run,
    over the same files. Why "settled" matters (the "racy clean" case of git's index): a file
    may change again within its mtime tick, keeping its size, and then look unchanged. So a
    stamp holds only paths older than the check by more than a tick (``_settle_ns``). Right
    after an install some are fresher. After an ``up`` that verified (seconds), the tick is
    waited out once (under 60 ms) and the check runs again, so the very next ``up`` answers
    from the stamp. After ``up --no-verify``, whose whole run can take a third of a second,
    it is not (~25 ms on every install): no stamp this time, and the next ``up``'s full check,
    finding the files settled, leaves it. Never raises: the stamp only saves time, and a
    missing one means the full check runs.
    """
    from . import noop

    try:
        if parse(argv) is not None:
            _record(project, may_wait="--no-verify" not in argv)
    except Exception:
        return
    finally:
        noop.WATCH = None


def _settle_ns(paths: list[Any], check_ns: int) -> int:
    """How much longer until every path is older than a tick before the check began (<= 0: already)."""
    times = [sig[0] for _path, _follow, sig in paths if isinstance(sig, list)]
    margin = COARSE_SETTLE_NS if times and all(t % 1_000_000_000 == 0 for t in times) else SETTLE_NS
    return max(times, default=0) + margin + 1 - check_ns


def _record(project: str, *, may_wait: bool) -> None:
    import time

    project = os.path.realpath(project)
    stamp_dir = os.path.join(project, STAMP_DIR)
    created = not os.path.isdir(stamp_dir)
    os.makedirs(stamp_dir, exist_ok=True)          # before the stamps: creating it changes the project's mtime
    reused = None if created else _reusable(project)
    if reused is not None and _settle_ns(reused[1], reused[2]) <= 0:
        _write(project, *reused[:2])
        return
    for attempt in range(2):
        check_ns = time.time_ns()
        seen = _checked(project)
        if seen is None:
            return
        done, paths = seen
        wait = _settle_ns(paths, check_ns)
        if wait <= 0:
            break
        if attempt or not may_wait or wait > MAX_WAIT_NS:
            return
        time.sleep(wait / 1e9)
    _write(project, done, paths)


def _reusable(project: str) -> tuple[UpToDate, list[Any], int] | None:
    """``(answer, paths, when it began)`` of this process's own no-op check, when it was the last check,
    for this project, as a plain ``up`` runs it, and said "up to date"; else ``None``."""
    seen = _Seen.last
    if seen is None or seen.result is None or not seen.full or seen.project != project:
        return None
    paths = _paths_of(project, seen.result, seen)
    return None if paths is None else (seen.result, paths, seen.started_ns)


def _data(warning: str, redact: Any) -> Any:
    """A warning's reason data for the stamp (so the no-op path renders it in any language), or ``None`` when
    its text had something to redact (then only the redacted text is kept)."""
    if redact(warning) != warning or not hasattr(warning, "to_json"):
        return None
    return warning.to_json()


def _said(stamp: dict[str, Any]) -> list[str]:
    """The stamp's warnings, each made again from its reason data when the stamp has it (else its text)."""
    data = stamp.get("warnings_data") or [None] * len(stamp["warnings"])
    if not any(data):
        return list(stamp["warnings"])
    from ..reasons import from_json

    return [from_json(d) if d else text for text, d in zip(stamp["warnings"], data)]


def _write(project: str, done: UpToDate, paths: list[Any]) -> None:
    from ..fileio import temp_file
    from ..sources.credentials import redact_text

    stamp_dir = os.path.join(project, STAMP_DIR)
    body = {"schema": SCHEMA, "torchenv": _version(), "env": str(done.env_path), "lock": done.lock_path.name,
            "target": done.target, "warnings": [redact_text(w) for w in done.warnings],
            "warnings_data": [_data(w, redact_text) for w in done.warnings], "paths": paths}
    fd, tmp = temp_file(stamp_dir, prefix=".noop-stamp-", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(body, fh)
    os.replace(tmp, _stamp_path(project))


def _checked(project: str) -> tuple[UpToDate, list[Any]] | None:
    """The full no-op check's answer and the signature of every path it looked at; ``None``: not up to date."""
    from pathlib import Path

    from ..options import UpOptions
    from . import noop

    before, noop.WATCH, _Seen.last = noop.WATCH, _watched, None
    try:
        done = noop.check(Path(project), UpOptions())
    finally:
        noop.WATCH = before
    seen = _Seen.last
    paths = _paths_of(project, done, seen) if done is not None and seen is not None else None
    return None if paths is None else (done, paths)


def _not_imports(folders: set[str], *own: str) -> set[str]:
    """The listed folders less those the import system listed to find torchenv's own modules (under
    ``sys.path``): a check that is the process's first imports them, and they are not the project's."""
    code = tuple(os.path.join(os.path.abspath(p), "") for p in sys.path if p)
    keep = tuple(os.path.join(p, "") for p in own)
    return {f for f in folders if not os.path.join(f, "").startswith(code) or os.path.join(f, "").startswith(keep)}


def _paths_of(project: str, done: UpToDate, seen: _Seen) -> list[Any] | None:
    """Every path the check that answered ``done`` looked at, and the env's watched files, with signatures."""
    from ..backends import state as st

    envstate = st.read_state(done.env_path)
    if envstate is None:
        return None
    site = str(st.site_packages(done.env_path, envstate.python))
    # a package folder's mtime changes when a first import writes its __pycache__ (running the project
    # does): the full check holds such a folder by its presence alone, and so does the stamp
    folders = {os.path.join(site, rel) for rel, size, _mtime in envstate.watched if size < 0}
    watched = {os.path.join(site, rel) for rel, size, _mtime in envstate.watched if size >= 0}
    opened = {f for f in seen.files if not f.endswith((".py", ".pyc", ".so"))}
    stat_paths = opened | _not_imports(seen.folders, project, str(done.env_path)) \
        | {os.path.dirname(f) for f in opened} | watched | {project, site}
    python = str(st.env_python(done.env_path))
    stat_paths.add(python)
    present = sorted(folders - {os.path.join(p, "") for p in stat_paths} - stat_paths)
    return [[p, True, _signature(p)] for p in sorted(stat_paths)] + [[python, False, _signature(python, False)]] \
        + [[p, PRESENT, _held(p, PRESENT)] for p in present]
