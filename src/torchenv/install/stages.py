"""The first stages ``up`` and ``lock`` share: load the project once, then plan and lock a target.

Why stages (as virtualenv's ``Session.run``): each stage takes what the one before produced and
nothing else, so ``up`` reads as a list (load → decide → sources → sync → record → verify), ``lock``
reuses the first two, and a test can stop after any of them. The planner (``install.up.make_plan``)
is looked up at call time, so tests can hand in a fixed Plan.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..backends.base import Backend
    from ..intent.model import Intent
    from ..lock.model import Lockfile, LockTarget
    from ..options import IntentOverrides
    from ..resolve.plan import Plan
    from ..ui import Ui
    from ..intent.requirements import ProjectRequirement


def load_intent(project_dir: Path, overrides: "IntentOverrides", ui: "Ui | None" = None) -> "Intent":
    """torchenv.toml (or, without one, the torch pin of a pylock.toml/uv.lock), with ``overrides`` on top."""
    from ..export.follow import follow_existing_lock
    from ..intent.load import apply_overrides, load_project_intent

    intent, followed = follow_existing_lock(load_project_intent(project_dir), project_dir)
    if followed is not None and ui is not None:
        ui.step(followed.sentence())
    return apply_overrides(intent, overrides)


@dataclass(frozen=True)
class Project:
    """The project's files, read once: intent, requirements, torchenv.lock, and where the env goes."""

    dir: Path                                  # where the env and the lock are written
    intent: "Intent"
    reqs: tuple["ProjectRequirement", ...]
    warnings: tuple[str, ...]                  # requirement lines torchenv does not apply
    lock_path: Path
    lock: "Lockfile | None"                    # as read (from ``source``: a bundle may lend one)
    lock_current: bool                         # written for this intent and these requirements
    env: Path


def load_project(project_dir: Path, overrides: "IntentOverrides", ui: "Ui | None" = None, *,
                 source: Path | None = None) -> Project:
    """Read everything once. ``source``: where torchenv.toml/lock are read, when not ``project_dir``."""
    from ..lock.io import read_lock
    from ..lock.model import LOCK_FILE
    from ..intent import requirements as reqmod
    from . import noop

    src = source or project_dir
    intent = load_intent(src, overrides, ui)
    reqs, warnings = reqmod.gather(intent, src)
    lock = read_lock(src / LOCK_FILE) if (src / LOCK_FILE).exists() else None
    current = lock is not None and reqmod.lock_is_current(lock, intent, reqs)
    return Project(dir=project_dir, intent=intent, reqs=tuple(reqs), warnings=tuple(warnings),
                   lock_path=project_dir / LOCK_FILE, lock=lock, lock_current=current,
                   env=noop.env_path_for(intent, project_dir))


def plan_for(project: Project, options: Any, ui: "Ui") -> "Plan":
    """Probe (or assume) the machine and resolve, then check the requirements against the plan."""
    from ..intent import requirements as reqmod
    from . import up

    with ui.progress("planning (probe + resolve)"):
        plan = up.make_plan(project.intent, options)
    reqmod.check_against_plan(list(project.reqs), plan)
    return plan


def lock_with(backend: "Backend", plan: "Plan", project: Project, ui: "Ui") -> "LockTarget":
    """Exact files with sha256 for ``plan`` (the backend's engine resolves; nothing is installed)."""
    from ..intent import requirements as reqmod

    with ui.progress(f"locking {plan.target_name} ({plan.installer})"):
        return backend.lock_target(requirements=reqmod.as_lines(list(project.reqs)))
