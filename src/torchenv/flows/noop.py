"""The no-op ``up``: is the env already exactly what torchenv.lock says? One module answers, two ways.

Why two ways and one module: ``torchenv up`` runs at the start of every session and in CI; when
nothing changed it must answer in well under 0.5 s.

* The exact check (``check``) reads the intent (tomllib), the lock (tomllib), ``state.json``, one
  ``os.listdir`` and a few hundred ``stat`` calls (the files ``state.watch_list`` recorded after the
  install), and never imports rich, tomlkit, packaging, pynvml or torch. Any doubt means "not up to
  date": the full path then decides, under the project lock.
* The stamp (``answer``), before the command line is even built: the exact check, and the command
  line it runs behind, cost ~0.1 s in all. Once the check has said "up to date" (after a no-op ``up``,
  or after one that installed), ``record`` writes down what it looked at: every file it opened and
  every folder it listed, the folders holding them (a file that appears beside them, such as a new
  ``requirements.txt`` or the in-progress marker, changes the folder's mtime), the interpreter link and
  the watched site-packages files, each with its (mtime_ns, size, inode). ``answer`` repeats the check's
  answer when every one of them is unchanged; any difference, any flag it does not know, any error,
  and the full path decides.

Both say their answer through ``say_up_to_date`` (message, kept flags, redacted warnings), so the two
cannot drift apart. Standard library only at import: this module is imported before anything else of
torchenv.
"""
from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING, Any, NamedTuple  # typing: imported by the translator anyway

if TYPE_CHECKING:
    from pathlib import Path

    from ..intent.model import Intent
    from ..options import UpOptions
    from ..project import ProjectRoot


def say_up_to_date(env: str | os.PathLike[str], lock_name: str, target: str, notes: list[str] | tuple[str, ...],
                   warnings: list[str] | tuple[str, ...]) -> None:
    """The one way a no-op ``up`` is said: a plain write (no rich; in English no catalogue is read), then
    the flags kept from the last ``up`` and the requirement-file warnings, redacted as every warning is."""
    from ..i18n import _

    sys.stdout.write(_("{env} is up to date with {lock} (target {target})").format(
        env=_rel(os.fspath(env)), lock=lock_name, target=target) + "\n" + "".join(f"{note}\n" for note in notes))
    if warnings:          # English data (requirement-file notes), in the user's language and redacted
        from ..ui import write_plain_warnings

        write_plain_warnings(warnings)


# --- the exact check ----------------------------------------------------------------------------

class UpToDate(NamedTuple):
    """The exact check's answer. A ``NamedTuple``, not a dataclass: ``dataclasses`` (and the ``inspect``
    it imports) would cost every no-op ``up`` its import, and this module runs before anything else."""

    env_path: Path
    target: str
    lock_path: Path
    warnings: tuple[str, ...] = ()   # requirement lines torchenv does not apply (-e, -c, options)
    kept: str = ""                   # the flags remembered from the last up, in words


def env_path_for(intent: Intent, project_dir: Path) -> Path:
    from pathlib import Path

    path = Path(intent.env.path or ".venv").expanduser()
    return (path if path.is_absolute() else project_dir / path).absolute()


def check(project_dir: Path, options: UpOptions) -> UpToDate | None:
    """``UpToDate`` when nothing needs doing, else ``None`` (also on any error: the slow path reports it).

    Another machine, other sources or ``--force`` (``UpOptions.needs_full_path``): the fast path cannot answer.
    """
    if options.needs_full_path:
        return None
    try:
        if WATCH is None:
            return _check(project_dir, options)
        with WATCH(project_dir, options) as watched:
            result = watched.result = _check(project_dir, options)
        return result
    except Exception:
        return None


# Set by ``watch`` while a plain ``up`` runs: a context manager that notes what one check opened and
# answered, so the stamp after a no-op ``up`` needs no second check. None: no one watches.
WATCH: Any = None


def _check(project_dir: Path, options: UpOptions) -> UpToDate | None:
    from ..backends.state import in_progress, read_state
    from ..intent.load import apply_overrides, load_project_intent
    from ..intent.project_requirements import gather, lock_is_current
    from ..lockfile.io import read_lock
    from ..lockfile.model import LOCK_FILE
    from .overrides import remembered, said
    from .project_install import lock_agrees

    if options.save:          # writes torchenv.toml: the full path does it
        return None
    lock_path = project_dir / LOCK_FILE
    if not lock_path.is_file():
        return None
    lock = read_lock(lock_path)
    base = load_project_intent(project_dir)
    overrides, kept = remembered(options.intent, base, lock, reset=options.reset_overrides)
    intent = apply_overrides(base, overrides)
    env = env_path_for(intent, project_dir)
    state = read_state(env)
    if state is None or in_progress(env):
        return None
    reqs, warnings = gather(intent, project_dir)
    if not lock_is_current(lock, intent, reqs) or not lock_agrees(lock, project_dir):
        return None
    target = lock.target(state.target)
    if target is None or _env_differs(env, state, target, intent, project_dir, options):
        return None
    return UpToDate(env_path=env, target=target.name, lock_path=lock_path, warnings=tuple(warnings),
                    kept=said(kept) if kept else "")


def _env_differs(env: Path, state: Any, target: Any, intent: Intent, project_dir: Path, options: UpOptions) -> bool:
    """Does the env on disk differ from what the lock's target and the last sync recorded?"""
    from ..backends.state import (
        STATE_SCHEMA,
        files_problem,
        fingerprint,
        interpreter_problem,
        site_packages,
        target_digest,
        verify_problem,
    )
    from .project_install import noop_problem

    if target_digest(target) != state.lock_digest:
        return True
    # a venv switched between uv and pip is re-synced; a conda prefix's engine (rattler or the user's conda
    # binary) follows the machine, not [env] installer
    wheels = target.backend != "conda"
    if wheels and state.engine != intent.env.installer:
        return True
    if state.schema < STATE_SCHEMA or fingerprint(env, target.python) != state.fingerprint:
        return True
    if interpreter_problem(env, state) or files_problem(env, state):
        return True
    if wheels and noop_problem(env, site_packages(env, target.python), project_dir):
        return True
    return not options.no_verify and bool(verify_problem(env))


# --- the stamp (read before the command line is built) ---------------------------------------

STAMP_DIR = ".torchenv"
STAMP_FILE = "noop-stamp.json"
SCHEMA = 3          # 2: a watched package folder is held by its presence alone, as the full check holds it;
                    # 3: the notes (flags kept from the last up) are stamped and said, as the full check says them
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
        _activate_language()
        if located is not None and located.found_above and not parsed[1]:
            # only now: in the user's language, and only when the stamp answers (else the full path says it)
            sys.stderr.write(f"torchenv: {located.describe()}\n")
        say_up_to_date(stamp["env"], stamp["lock"], stamp["target"], stamp["notes"], _said(stamp))
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


def _activate_language() -> None:
    """``up``'s words in the user's language. In English this reads the locale variables and nothing
    else: the catalogue is opened only when the locale asks for one (and only then costs a read)."""
    from .. import i18n

    i18n.activate()


def _rel(path: str) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return rel if not rel.startswith("..") else path


def _version() -> str:
    from ..version import __version__

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
    """Before a plain ``up`` runs: note what its no-op check opens and answers (``WATCH``), so that
    ``record`` after a no-op ``up`` reuses that check instead of running a second one."""
    if parse(argv) is None:
        return
    global WATCH
    WATCH = _watched


class _watched:
    """``check``'s context while ``watch`` is on: the audit hook collects for this one check."""

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
    global WATCH
    try:
        if parse(argv) is not None:
            _record(project, may_wait="--no-verify" not in argv)
    except Exception:
        return
    finally:
        WATCH = None


def _settle_ns(paths: list[Any], check_ns: int) -> int:
    """How much longer until every path is older than a tick before the check began (<= 0: already)."""
    times = [sig[0] for _path, _follow, sig in paths if isinstance(sig, list)]
    margin = COARSE_SETTLE_NS if times and all(t % 1_000_000_000 == 0 for t in times) else SETTLE_NS
    return max(times, default=0) + margin + 1 - check_ns


def _installed_within_tick() -> bool:
    """Did this process write an env's state less than a tick ago (``up --no-verify`` that installed)?

    Why ask before the check: the full check opens that state file, so its paths could not be
    settled and the check would end without a stamp; run anyway, it cost a second read of the
    lock, the requirements and the env (~9% of a warm ``up`` of a 74-package project) for nothing.
    """
    import time

    from ..backends.state import WRITTEN_STATES

    now = time.time_ns()
    return any(sig is not None and sig[0] + SETTLE_NS + 1 > now for sig in map(_signature, map(str, WRITTEN_STATES)))


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
    if not may_wait and _installed_within_tick():
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
    from ..redaction import redact_text

    stamp_dir = os.path.join(project, STAMP_DIR)
    body = {"schema": SCHEMA, "torchenv": _version(), "env": str(done.env_path), "lock": done.lock_path.name,
            "target": done.target, "notes": [done.kept] if done.kept else [],
            "warnings": [redact_text(w) for w in done.warnings],
            "warnings_data": [_data(w, redact_text) for w in done.warnings], "paths": paths}
    fd, tmp = temp_file(stamp_dir, prefix=".noop-stamp-", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(body, fh)
    os.replace(tmp, _stamp_path(project))


def _checked(project: str) -> tuple[UpToDate, list[Any]] | None:
    """The full no-op check's answer and the signature of every path it looked at; ``None``: not up to date."""
    from pathlib import Path

    from ..options import UpOptions

    global WATCH
    before, WATCH, _Seen.last = WATCH, _watched, None
    try:
        done = check(Path(project), UpOptions())
    finally:
        WATCH = before
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
