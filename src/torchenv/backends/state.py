"""What torchenv remembers inside an env it made: ``<env>/.torchenv/state.json`` and the in-progress marker.

Why a fingerprint of ``*.dist-info`` names: listing one directory costs well under a
millisecond and imports nothing, yet it changes whenever a package is added, removed or
changed in version (by pip, uv or by hand), which is what the no-op ``up`` must notice.
Contents of files are not checked: ``torchenv doctor`` does the deeper comparison.
"""
from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

# the env's layout (interpreter, site-packages, dist-info), re-exported: callers ask "the state" for both
from ..envlayout import dist_name as dist_name
from ..envlayout import distributions as distributions
from ..envlayout import env_python as env_python
from ..envlayout import env_python_version as env_python_version
from ..envlayout import fingerprint as fingerprint
from ..envlayout import site_packages as site_packages
from ..i18n import N_, _

if TYPE_CHECKING:
    from ..lockfile.model import LockTarget

MARKER_DIR = ".torchenv"
STATE_FILE = "state.json"
IN_PROGRESS = "in-progress"
VERIFY_PENDING = "verify-not-passed"
STATE_SCHEMA = 2   # 2: interpreter + watched files recorded (an env synced by 1 is re-installed once)


@dataclass(frozen=True)
class EnvState:
    target: str            # lock target name the env was synced to
    lock_digest: str       # target_digest() of that target
    fingerprint: tuple[str, ...]   # sorted dist-info names right after the sync
    python: str            # "3.11"
    engine: str            # uv | pip
    torchenv: str = ""
    schema: int = STATE_SCHEMA
    interpreter: str = ""  # where bin/python pointed right after the sync ("" when not a symlink)
    watched: tuple[tuple[str, int, int], ...] = ()   # (site-packages path, size, mtime_ns); size -1: a folder


def target_digest(target: LockTarget) -> str:
    """Digest of what a target installs (files and hashes), not of the lock text around it."""
    h = hashlib.sha256()
    h.update(f"{target.name}\0{target.python}\0{target.backend}\n".encode())
    for w in sorted(target.wheels, key=lambda w: (w.name, w.filename)):
        h.update(f"{w.filename}\0{w.sha256}\n".encode())
    for c in sorted(target.conda, key=lambda c: (c.name, c.subdir, c.build)):
        h.update(f"{c.subdir}/{c.name}-{c.version}-{c.build}\0{c.sha256}\n".encode())
    return h.hexdigest()


def marker_dir(env: Path) -> Path:
    return env / MARKER_DIR


def read_state(env: Path) -> EnvState | None:
    try:
        data = json.loads((marker_dir(env) / STATE_FILE).read_text())
        data["fingerprint"] = tuple(data["fingerprint"])
        data["watched"] = tuple((str(p), int(size), int(mtime)) for p, size, mtime in data.get("watched", ()))
        return EnvState(**data)
    except (OSError, ValueError, TypeError, KeyError):
        return None


def _write_json(path: Path, data: dict[str, Any]) -> None:
    """Atomic, not fsynced: the env's own files are not either, so a synced marker would outlive what it describes.

    Why no ``indent``: it makes ``json`` use its pure-Python encoder, ~20 ms for the watch list
    of a 70-package env after every install; without it the C encoder takes well under 1 ms.
    """
    from ..fileio import write_atomic

    write_atomic(path, json.dumps(data, sort_keys=True) + "\n", durable=False)


def write_state(env: Path, state: EnvState) -> None:
    data = {f.name: getattr(state, f.name) for f in fields(state)}   # not asdict: it deep-copies every watched row
    data["fingerprint"] = list(state.fingerprint)
    data["watched"] = [list(w) for w in state.watched]
    _write_json(marker_dir(env) / STATE_FILE, data)


# --- what the no-op check can see cheaply ------------------------------------------------------
#
# Why these files: a dist-info name says a package is there, not that its files are. Each
# package's RECORD, its folders, and the files directly in them (``torch/__init__.py``,
# ``torch/version.py``, ``torch/_C*.so``, ``six.py``) are a few hundred ``stat`` calls for a
# CUDA torch env (well under a millisecond), recorded right after the install, and catch a
# deleted folder, a deleted or edited top-level file and a hand-edited RECORD. Deeper damage
# (a file three folders down) is left to ``torchenv doctor``.

def _record_paths(record: Path) -> list[str]:
    import csv

    with open(record, newline="", encoding="utf-8") as fh:
        return [row[0] for row in csv.reader(fh) if row]


def record_rows(record: Path, text: str | None = None) -> list[str]:
    """The paths a RECORD lists (``text``: its contents, when already read).

    Why not csv for every row: torch's RECORD alone has 12,000 rows, and a 70-package env's
    29,000 cost ~26 ms of CPU through csv right after every install, ~13 ms cut at the first
    comma. Only a RECORD with a quoted row (a path holding a comma or a quote) needs csv.
    """
    text = record.read_text(encoding="utf-8") if text is None else text
    if '"' in text:
        return _record_paths(record)
    return [line.partition(",")[0] for line in text.splitlines() if line]


def _watched_part(rel: str) -> bool:
    return not rel.startswith(("/", "..")) and not rel.partition("/")[0].endswith((".dist-info", ".data"))


def _top_level(record: Path, info_dir: str) -> tuple[set[str], set[str]]:
    """Files at most one folder deep and the top folders a RECORD lists (no scripts, no caches)."""
    text = record.read_text(encoding="utf-8")
    rows = record_rows(record, text)
    if "__pycache__" in text:
        rows = [rel for rel in rows if "__pycache__" not in rel.split("/")]
    files = {rel for rel in rows if rel.count("/") <= 1 and _watched_part(rel)}
    dirs = {top for top in {rel.partition("/")[0] for rel in rows if "/" in rel} if top and _watched_part(top)}
    return files | {f"{info_dir}/RECORD"}, dirs


def watch_list(env: Path, python: str) -> tuple[tuple[str, int, int], ...]:
    """``(path, size, mtime_ns)`` of every package's top-level files and folders, as they are now."""
    site = site_packages(env, python)
    files: set[str] = set()
    dirs: set[str] = set()
    try:
        infos = [n for n in os.listdir(site) if n.endswith(".dist-info")]
    except OSError:
        return ()
    for info in infos:
        try:
            f, d = _top_level(site / info / "RECORD", info)
        except (OSError, ValueError):
            continue
        files |= f
        dirs |= d
    out = []
    for rel in sorted(files):
        try:
            st = os.stat(site / rel)
        except OSError:
            continue      # listed but never installed (a file for another platform): nothing to watch
        out.append((rel, st.st_size, st.st_mtime_ns))
    out += [(f"{d}/", -1, 0) for d in sorted(dirs) if (site / d).is_dir()]
    return tuple(out)


def interpreter_target(env: Path) -> str:
    try:
        return os.readlink(env_python(env))
    except OSError:
        return ""


def interpreter_problem(env: Path, state: EnvState | None) -> str | None:
    """Why the env's ``bin/python`` cannot be the one the env was built with; ``None`` when it can."""
    py = env_python(env)
    target = interpreter_target(env)
    if not py.exists():
        if target:
            return _("{python} points to {target}, which does not exist").format(python=py.relative_to(env),
                                                                                  target=target)
        return _("{python} does not exist").format(python=py.relative_to(env))
    if state is not None and state.interpreter and target != state.interpreter:
        return _("{python} now points to {target} (was {was})").format(
            python=py.relative_to(env), target=target or _("a plain file"), was=state.interpreter)
    return None


def _damage(site: str | Path, rel: str, size: int, mtime: int) -> str | None:
    try:
        st = os.stat(os.path.join(site, rel))      # not ``site / rel``: thousands of these run on every no-op up
    except OSError:
        return _("{path} is missing from site-packages").format(path=rel)
    if size >= 0 and (st.st_size != size or st.st_mtime_ns != mtime):
        return _("{path} was changed after the install").format(path=rel)
    return None


def files_problem(env: Path, state: EnvState) -> str | None:
    """The first watched file or folder that is gone or changed since the install, in words."""
    site = site_packages(env, state.python)
    return next((d for w in state.watched if (d := _damage(site, *w)) is not None), None)


def damaged_distributions(env: Path, state: EnvState) -> list[str]:
    """Names of the installed distributions whose watched files are gone or changed (the repair path only).

    Why: an installer that hardlinks from its cache (uv) shares one inode between the cache and
    every env; an edit in place changed the cached copy too, so a plain re-install would link
    the edited file back. These distributions are dropped from that cache before re-installing.
    """
    site = site_packages(env, state.python)
    bad = [rel for rel, size, mtime in state.watched if _damage(site, rel, size, mtime) is not None]
    names = []
    for info in sorted(n for n in os.listdir(site) if n.endswith(".dist-info")):
        try:
            listed = _record_paths(site / info / "RECORD")
        except (OSError, ValueError):
            continue
        if any(rel == f"{info}/RECORD" or any(p == rel or p.startswith(rel) for p in listed) for rel in bad):
            names.append(dist_name(info[: -len(".dist-info")].partition("-")[0]))
    return names


def mark_created(env: Path) -> None:
    """The env's bookkeeping folder (git-ignored). Ownership is proven by ``safety.write_owner``, not by this."""
    marker_dir(env).mkdir(parents=True, exist_ok=True)
    (marker_dir(env) / ".gitignore").write_text("*\n")


def in_progress(env: Path) -> bool:
    return (marker_dir(env) / IN_PROGRESS).exists()


def begin_install(env: Path, target: str) -> None:
    """Written before the first file changes; removed only after the sync succeeded."""
    mark_created(env)
    (marker_dir(env) / STATE_FILE).unlink(missing_ok=True)
    _write_json(marker_dir(env) / IN_PROGRESS,
                {"pid": os.getpid(), "target": target, "started": time.time()})


def fail_install(env: Path, why: str) -> None:
    """Add to the in-progress marker what stopped the install, for ``torchenv run`` to tell."""
    marker = marker_dir(env) / IN_PROGRESS
    try:
        data = json.loads(marker.read_text())
        _write_json(marker, {**data, "failed": why})
    except (OSError, ValueError, TypeError):
        pass    # the marker alone still says the env is unfinished


def unfinished(env: Path) -> str | None:
    """Why the env is not fully built (its last install did not finish), in words; ``None`` when it is.

    Why ``run`` asks: a half-installed env fails later with ``No module named ...``, which
    points at the user's code, not at the ``up`` that failed.
    """
    marker = marker_dir(env) / IN_PROGRESS
    if not marker.exists():
        return None
    try:
        data = json.loads(marker.read_text())
    except (OSError, ValueError):
        data = {}
    why = data.get("failed") if isinstance(data, dict) else None
    return str(why) if why else _("it was stopped (killed or interrupted) before it finished")


# the state files ``end_install`` wrote in this process (``flows.noop`` asks how fresh they are)
WRITTEN_STATES: list[Path] = []


def end_install(env: Path, state: EnvState) -> None:
    """Record the finished sync, with what the no-op check will compare (interpreter, watched files)."""
    import dataclasses

    state = dataclasses.replace(state, interpreter=interpreter_target(env), watched=watch_list(env, state.python))
    write_state(env, state)
    WRITTEN_STATES.append(marker_dir(env) / STATE_FILE)
    (marker_dir(env) / IN_PROGRESS).unlink(missing_ok=True)


# --- the last verify -----------------------------------------------------------------------
#
# Why a file that only a passing verify removes: a verify stopped by Ctrl-C or SIGTERM (no
# Python cleanup runs for the latter) must leave evidence behind, so the next ``up`` verifies
# again instead of calling the env up to date.

def begin_verify(env: Path) -> None:
    _write_json(marker_dir(env) / VERIFY_PENDING, {"result": N_("was interrupted"), "pid": os.getpid(),
                                                   "started": time.time()})


def end_verify(env: Path, ok: bool) -> None:
    if ok:
        (marker_dir(env) / VERIFY_PENDING).unlink(missing_ok=True)
    else:
        _write_json(marker_dir(env) / VERIFY_PENDING, {"result": N_("failed"), "finished": time.time()})


def verify_problem(env: Path) -> str | None:
    """``"failed"`` / ``"was interrupted"`` when the env's last verify did not pass, else ``None``."""
    try:
        data = json.loads((marker_dir(env) / VERIFY_PENDING).read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return N_("did not finish")
    return str(data.get("result") or N_("did not finish"))
