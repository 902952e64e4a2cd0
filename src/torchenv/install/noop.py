"""The no-op ``up``: is the env already exactly what torchenv.lock says? Standard library only.

Why so careful about imports: ``torchenv up`` runs at the start of every session and in
CI; when nothing changed it must answer in well under 0.5 s, so this path reads the
intent (tomllib), the lock (tomllib), ``state.json``, one ``os.listdir`` and a few hundred ``stat``
calls (the files ``state.watch_list`` recorded after the install), and never
imports rich, tomlkit, packaging, pynvml or torch. Any doubt means "not up to date": the
full path then decides, under the project lock.
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

# Flags that describe another machine or another env: the fast path cannot answer for them.
_SLOW_FLAGS = ("machine", "assume_os", "assume_arch", "assume_driver", "assume_gpu", "assume_no_gpu",
               "assume_python", "assume_glibc", "force", "mirror", "pypi_mirror", "torch_mirror")


@dataclass(frozen=True)
class UpToDate:
    env_path: Path
    target: str
    lock_path: Path
    warnings: tuple[str, ...] = ()   # requirement lines torchenv does not apply (-e, -c, options)
    kept: str = ""                   # the flags remembered from the last up, in words


def env_path_for(intent, project_dir: Path) -> Path:
    path = Path(intent.env.path or ".venv").expanduser()
    return (path if path.is_absolute() else project_dir / path).absolute()


def check(project_dir: Path, args: argparse.Namespace) -> UpToDate | None:
    """``UpToDate`` when nothing needs doing, else ``None`` (also on any error: the slow path reports it)."""
    if any(getattr(args, flag, None) for flag in _SLOW_FLAGS):
        return None
    try:
        return _check(project_dir, args)
    except Exception:   # noqa: BLE001 - a broken file is reported by the full path, with context
        return None


def _check(project_dir: Path, args: argparse.Namespace) -> UpToDate | None:
    from ..intent.load import apply_overrides, load_project_intent
    from ..lock.io import read_lock
    from ..lock.model import LOCK_FILE
    from .overrides import remembered_args, said
    from .project_install import lock_agrees, noop_problem
    from .requirements import gather, lock_is_current
    from .state import (STATE_SCHEMA, files_problem, fingerprint, in_progress, interpreter_problem, read_state,
                        site_packages, target_digest, verify_problem)

    if getattr(args, "save", False):
        return None
    lock_path = project_dir / LOCK_FILE
    if not lock_path.is_file():
        return None
    lock = read_lock(lock_path)
    base = load_project_intent(project_dir)
    args, kept = remembered_args(args, base, lock)
    intent = apply_overrides(base, args)
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
    if not getattr(args, "no_verify", False) and verify_problem(env):
        return None
    return UpToDate(env_path=env, target=target.name, lock_path=lock_path, warnings=tuple(warnings),
                    kept=said(kept) if kept else "")
