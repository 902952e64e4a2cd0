"""``up``'s record stage (and ``lock``'s last step): torchenv.lock with the new target in it.

Why its own stage: the lock is written only once an install succeeded (``up``) or every target
resolved (``lock``); both build the new lock the same way, keeping the targets made for the
same intent and saying which ones are dropped.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..i18n import _

if TYPE_CHECKING:
    from ..intent.model import Intent
    from ..intent.project_requirements import ProjectRequirement
    from ..lockfile.model import Lockfile, LockTarget
    from ..resolve.plan import Plan
    from ..ui import Ui
    from .choose_target import TargetChoice
    from .stages import Project


def machine_facts(plan: Plan) -> dict[str, Any]:
    m = plan.machine
    facts: dict[str, Any] = {"os": m.os, "arch": m.arch, "driver": m.driver,
                             "compute-capabilities": [g.compute_capability or "?" for g in m.gpus]}
    if m.assumed:
        facts["assumed"] = True
    return {k: v for k, v in facts.items() if v is not None}


def new_lockfile(old: Lockfile | None, intent: Intent, reqs: list[ProjectRequirement], target: LockTarget, plan: Plan,
                 ui: Ui, project: dict[str, Any] | None = None, overrides: dict[str, Any] | None = None) -> Lockfile:
    """The lock with ``target`` added/replaced; targets made for another intent are dropped (with a warning)."""
    from ..intent.project_requirements import lock_is_current, requirements_digest
    from ..lockfile.model import Lockfile
    from ..version import __version__

    keep: tuple[LockTarget, ...] = ()
    if old is not None and lock_is_current(old, intent, reqs):
        keep = old.targets
    elif old is not None:
        stale = sorted(t.name for t in old.targets if t.name != target.name)
        if stale:
            ui.warn(_("torchenv.toml or the requirements changed: dropped targets {targets} from the lock; re-add "
                      "them with {commands}").format(targets=", ".join(stale),
                                                     commands=", ".join(f"`torchenv lock --target {n}`" for n in stale)))
    facts = machine_facts(plan)
    if plan.machine.assumed and old is not None and old.machine and not old.machine.get("assumed"):
        facts = old.machine   # keep the real machine's facts when adding a target for another one
    base = Lockfile(intent_hash=intent.hash(), requirements_hash=requirements_digest(reqs), targets=keep,
                    machine=facts, torchenv_version=__version__, project=dict(project or {}),
                    overrides=dict(overrides or {}))
    return base.with_target(target)


def record_lock(project: Project, choice: TargetChoice, ui: Ui) -> None:
    """Write the lock only now: a lock that names files no install ever succeeded with helps nobody."""
    if not choice.fresh:
        return
    from ..lockfile.io import write_lock
    from .project_install import lock_entry

    write_lock(project.lock_path, new_lockfile(project.lock, project.intent, list(project.reqs), choice.target,
                                               choice.plan, ui, lock_entry(project.dir), project.remembered))
    ui.step(_("wrote {lock} (target {target})").format(lock=project.lock_path.name, target=choice.target.name))
