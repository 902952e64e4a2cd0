"""``up``'s second stage: the lock's target when the lock is current, else a new one planned and locked now.

Why apart from the sync: deciding what to install touches nothing on disk; the frozen and offline
rules, the planner and the re-plan after a pulled-in torch-family package all live here, so the
stages after it act on one ``TargetChoice``.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import LockError
from ..i18n import _
from .planning import Planner, PlanRequest, plan_reachable, replan_pulled_in

if TYPE_CHECKING:
    from ..backends.base import Backend
    from ..lockfile.model import Lockfile, LockTarget
    from ..options import UpOptions
    from ..resolve.plan import Plan
    from ..ui import Ui
    from .source_strategy import OnlineSources
    from .stages import Project


@dataclass(frozen=True)
class TargetChoice:
    """Stage 2's answer: the plan, the lock target to install, and whether the lock must be written."""

    plan: Plan
    target: LockTarget
    fresh: bool                               # resolved in this run: torchenv.lock gets it after the install
    changes: tuple[str, ...] = ()
    backend: Backend | None = None          # the one that locked it, reused for the install
    install_target: LockTarget | None = None   # the target with local URLs (offline)
    notes: tuple[str, ...] = ()


def decide_target(project: Project, options: UpOptions, strategy: OnlineSources, ui: Ui,
                  planner: Planner = plan_reachable) -> TargetChoice:
    """The lock's target when the lock is current; else a new one, resolved now. The frozen rules live here."""
    from .stages import lock_with, plan_for

    request = PlanRequest(project.intent, options.machine, options.sources, offline=strategy.offline)
    frozen = options.frozen or strategy.offline       # offline cannot resolve: the lock is the plan
    if frozen and project.lock is None:
        raise strategy.missing_lock(project.lock_path, lambda: plan_for(project, request, planner, ui))
    if frozen and not project.lock_current:
        raise strategy.stale_lock(project.lock_path)
    lock_in_use = project.lock if project.lock_current else None
    plan = plan_for(project, dataclasses.replace(request, lock_in_use=lock_in_use), planner, ui)
    from ..errors import PulledInFamily
    from ..resolve.reachable import fallback_said

    for line in fallback_said(plan):
        ui.warn(line)
    if project.lock is not None and project.lock_current:
        target = project.lock.target(plan.target_name)
        if target is None:
            raise missing_target_error(project.lock, plan.target_name, project.lock_path)
        return TargetChoice(plan, target, fresh=False)
    from ..backends import make_backend

    backend = make_backend(plan=plan, env_path=project.env, ui=ui)
    try:
        target = lock_with(backend, plan, project, ui)
    except PulledInFamily as exc:       # torchvision through a PyPI dependency: plan a build that serves it
        plan = replan_pulled_in(planner, request, plan, exc)
        for line in fallback_said(plan):
            ui.warn(line)
        backend = make_backend(plan=plan, env_path=project.env, ui=ui)
        target = lock_with(backend, plan, project, ui)
    return TargetChoice(plan, target, fresh=True, changes=_announce_changes(project.lock, target, ui),
                        backend=backend)


def _announce_changes(old: Lockfile | None, target: LockTarget, ui: Ui) -> tuple[str, ...]:
    """What the new target changes against the old lock's target for this machine (or its os/arch)."""
    if old is None:
        return ()
    from ..lockfile.diff import diff_targets

    previous = old.target(target.name) or next(
        (t for t in old.targets if t.os == target.os and t.arch == target.arch), None)
    changes = diff_targets(previous, target)
    ui.step(_("torchenv.toml or the requirements changed; the new lock differs in:"))
    for line in changes or [_("(no package changes)")]:
        ui.info(f"    {line}")
    return tuple(changes)


def missing_target_error(lock: Lockfile, want: str, lock_path: Path) -> LockError:
    names = ", ".join(t.name for t in lock.targets) or "none"
    return LockError(f"{lock_path} has targets {names}; none matches this machine ({want})",
                     hint=f"add it with `torchenv lock --target {want}`")
