"""The first stages ``up`` and ``lock`` share: load the project once, then plan and lock a target.

Why stages (as virtualenv's ``Session.run``): each stage takes what the one before produced and
nothing else, so ``up`` reads as a list (load → decide → sources → sync → record → verify), ``lock``
reuses the first two, and a test can stop after any of them. The planner (``flows.planning``) is
handed in by the caller, so a test hands in one that returns a fixed Plan.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..i18n import _

if TYPE_CHECKING:
    from ..backends.base import Backend
    from ..intent.model import Intent
    from ..intent.project_requirements import ProjectRequirement
    from ..lockfile.model import Lockfile, LockTarget
    from ..offline.build import BundleResult
    from ..options import BundleOptions, IntentOverrides, UpOptions
    from ..resolve.plan import Plan
    from ..ui import Ui
    from .planning import Planner, PlanRequest


def load_intent(project_dir: Path, overrides: IntentOverrides, ui: Ui | None = None) -> Intent:
    """torchenv.toml (or, without one, the torch pin of a pylock.toml/uv.lock), with ``overrides`` on top."""
    from ..intent.load import apply_overrides

    return apply_overrides(_file_intent(project_dir, ui), overrides)


def _file_intent(project_dir: Path, ui: Ui | None) -> Intent:
    """torchenv.toml as written (or the followed pylock.toml/uv.lock pin), before any flag."""
    from ..intent.load import load_project_intent

    intent = load_project_intent(project_dir)
    if intent.file is not None:      # torchenv.toml states the intent: no other lock file is followed
        return intent
    from ..export.follow import follow_existing_lock

    intent, followed = follow_existing_lock(intent, project_dir)
    if followed is not None and ui is not None:
        ui.step(followed.sentence())
    return intent


@dataclass(frozen=True)
class Project:
    """The project's files, read once: intent, requirements, torchenv.lock, and where the env goes."""

    dir: Path                                  # where the env and the lock are written
    intent: Intent
    reqs: tuple[ProjectRequirement, ...]
    warnings: tuple[str, ...]                  # requirement lines torchenv does not apply
    lock_path: Path
    lock: Lockfile | None                    # as read (from ``source``: a bundle may lend one)
    lock_current: bool                         # written for this intent, these requirements and this folder
    env: Path
    remembered: dict[str, Any] = field(default_factory=dict)   # the lock's ``[overrides]`` to write (``up`` only)


def load_project(project_dir: Path, overrides: IntentOverrides, ui: Ui | None = None, *,
                 source: Path | None = None, up: UpOptions | None = None) -> Project:
    """Read everything once. ``source``: where torchenv.toml/lock are read, when not ``project_dir``.

    ``up``: the request of a ``torchenv up``, whose remembered flags (``flows.overrides``) apply
    when it gives none, and whose ``save`` writes its flags into torchenv.toml; ``lock`` plans from
    torchenv.toml and its own flags alone.
    """
    from ..intent import project_requirements as reqmod
    from ..intent.load import apply_overrides
    from ..lockfile.io import read_lock
    from ..lockfile.model import LOCK_FILE
    from . import noop, project_install

    src = source or project_dir
    lock = read_lock(src / LOCK_FILE) if (src / LOCK_FILE).exists() else None
    base = _file_intent(src, ui)
    remembered: dict[str, Any] = {}
    if up is not None:
        overrides, remembered = _kept_overrides(up, base, src, lock, ui)
    intent = apply_overrides(base, overrides)
    reqs, warnings = reqmod.gather(intent, src)
    current = lock is not None and reqmod.lock_is_current(lock, intent, reqs) \
        and project_install.lock_agrees(lock, project_dir)
    return Project(dir=project_dir, intent=intent, reqs=tuple(reqs), warnings=tuple(warnings),
                   lock_path=project_dir / LOCK_FILE, lock=lock, lock_current=current,
                   env=noop.env_path_for(intent, project_dir), remembered=remembered)


def bundle_current(project_dir: Path, options: BundleOptions, ui: Ui) -> BundleResult:
    """``make_bundle`` of the project's lock, under the project lock and only when the lock is current.

    Why the project lock: no ``up`` re-locks (or changes requirements.txt's lock) while the
    bundle reads the lock and packs the project files beside it.
    """
    from ..offline.build import make_bundle
    from ..options import IntentOverrides
    from .projectlock import project_lock

    with project_lock(Path(project_dir), ui):
        refuse_stale_lock(Path(project_dir).resolve())
        return make_bundle(project_dir, load_intent(project_dir, IntentOverrides()), options, ui)


def refuse_stale_lock(project_dir: Path) -> None:
    """The lock must be the one a plain offline ``up`` accepts (same intent, requirements and project).

    Why ``bundle`` asks, and refuses rather than locking first: a bundle packs
    requirements.txt with torchenv.lock; packed after a requirement was added and not locked
    (or while an ``up`` re-locked), it held the new file with the old lock, exited 0, and the
    offline ``up`` refused it. The lock is what was reviewed (and may be for another
    machine's ``--target``), so a bundle never re-resolves it quietly.
    """
    from ..errors import LockError
    from ..lockfile.model import LOCK_FILE
    from ..options import IntentOverrides, UpOptions

    if not (project_dir / LOCK_FILE).is_file():
        return                                # bundle says there is none, and how to make one
    project = load_project(project_dir, IntentOverrides(), up=UpOptions())
    if not project.lock_current:
        raise LockError(_("{lock_path} is out of date: torchenv.toml or the project requirements changed since it "
                          "was written; the offline `torchenv up` would refuse a bundle of it").format(
                            lock_path=project.lock_path),
                        hint=_("run `torchenv lock` (with the same `--target` as before, if any), then bundle"))


def _kept_overrides(up: UpOptions, base: Intent, src: Path, lock: Lockfile | None,
                    ui: Ui | None) -> tuple[IntentOverrides, dict[str, Any]]:
    """The flags to plan with (the last ``up``'s, said, when this one gives none) and what the lock remembers:
    nothing after ``--save``, which writes them into torchenv.toml, after which they are plain intent."""
    from .overrides import given, record, remembered, said, save_to_toml

    overrides, kept = remembered(up.intent, base, lock, reset=up.reset_overrides)
    if kept and ui is not None:
        ui.step(said(kept))
    flags = given(overrides)
    if up.save and flags:
        path = save_to_toml(src, flags)
        if ui is not None:
            ui.step(_("wrote {flags} into {file}").format(flags=", ".join(flags).replace("with_", "with"),
                                                          file=path.name))
    return overrides, ({} if up.save else record(overrides, base))


def plan_for(project: Project, request: PlanRequest, planner: Planner, ui: Ui) -> Plan:
    """Ask ``planner`` (probe or assume the machine, resolve), then check the requirements against the plan."""
    from ..intent import project_requirements as reqmod

    with ui.progress(_("planning (probe + resolve)")):
        plan = planner(request)
    reqmod.check_against_plan(list(project.reqs), plan)
    return plan


def lock_with(backend: Backend, plan: Plan, project: Project, ui: Ui) -> LockTarget:
    """Exact files with sha256 for ``plan`` (the backend's engine resolves; nothing is installed)."""
    from ..intent import project_requirements as reqmod
    from . import project_install

    with ui.progress(_("locking {target} ({installer})").format(target=plan.target_name, installer=plan.installer)):
        return backend.lock_target(requirements=[*reqmod.as_lines(list(project.reqs)),
                                                 *project_install.build_requirements(project.dir)])
