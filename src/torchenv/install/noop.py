"""The no-op ``up``: is the env already exactly what torchenv.lock says? Standard library only.

Why so careful about imports: ``torchenv up`` runs at the start of every session and in
CI; when nothing changed it must answer in well under 0.5 s, so this path reads the
intent (tomllib), the lock (tomllib), ``state.json``, one ``os.listdir`` and a few hundred ``stat``
calls (the files ``state.watch_list`` recorded after the install), and never
imports rich, tomlkit, packaging, pynvml or torch. Any doubt means "not up to date": the
full path then decides, under the project lock.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..intent.model import Intent
    from ..options import UpOptions


@dataclass(frozen=True)
class UpToDate:
    env_path: Path
    target: str
    lock_path: Path
    warnings: tuple[str, ...] = ()   # requirement lines torchenv does not apply (-e, -c, options)
    kept: str = ""                   # the flags remembered from the last up, in words


def env_path_for(intent: Intent, project_dir: Path) -> Path:
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


# Set by ``install.fastpath`` while a plain ``up`` runs: a context manager that notes what one check
# opened and answered, so the stamp after a no-op ``up`` needs no second check. None: no one watches.
WATCH: Any = None


def _check(project_dir: Path, options: UpOptions) -> UpToDate | None:
    from ..backends.state import (
        STATE_SCHEMA,
        files_problem,
        fingerprint,
        in_progress,
        interpreter_problem,
        read_state,
        site_packages,
        target_digest,
        verify_problem,
    )
    from ..intent.load import apply_overrides, load_project_intent
    from ..intent.requirements import gather, lock_is_current
    from ..lock.io import read_lock
    from ..lock.model import LOCK_FILE
    from .overrides import remembered, said
    from .project_install import lock_agrees, noop_problem

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
    if target is None or target_digest(target) != state.lock_digest:
        return None
    # a venv switched between uv and pip is re-synced; a conda prefix's engine (rattler or the user's conda
    # binary) follows the machine, not [env] installer
    if target.backend != "conda" and state.engine != intent.env.installer:
        return None
    if state.schema < STATE_SCHEMA or fingerprint(env, target.python) != state.fingerprint:
        return None
    if interpreter_problem(env, state) or files_problem(env, state):
        return None
    if target.backend != "conda" and noop_problem(env, site_packages(env, target.python), project_dir):
        return None
    if not options.no_verify and verify_problem(env):
        return None
    return UpToDate(env_path=env, target=target.name, lock_path=lock_path, warnings=tuple(warnings),
                    kept=said(kept) if kept else "")
