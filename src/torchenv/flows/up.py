"""``torchenv up``: make the project's env exactly what the plan and lock say, safely, then verify it.

Why this order: the cheap no-op check runs first (``flows.noop``); everything else runs
under the project lock, as stages each in its own module: load the project (``stages``),
decide the target (``choose_target``, asking the planner of ``planning``), the sources
strategy (``source_strategy``), sync the env (``env_sync``, which creates or replaces an env
through ``env_create``), record the lock (``lock_record``), verify (``verify_step``). The lock
file is written only after an install succeeded.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from ..i18n import _
from .choose_target import decide_target
from .env_sync import sync_env, usable_env_path
from .lock_record import record_lock
from .planning import Planner, plan_reachable
from .source_strategy import sources_strategy
from .verify_step import verify_if_needed

if TYPE_CHECKING:
    from ..lockfile.model import LockTarget
    from ..options import UpOptions
    from ..ui import Ui
    from .source_strategy import OnlineSources
    from .stages import Project

# what ``up`` did to the env; the order of the words a user reads in the CLI's summary
UpStatus = Literal["up-to-date", "installed", "synced", "repaired", "rebuilt", "verified"]


@dataclass(frozen=True)
class UpResult:
    status: UpStatus
    env_path: Path
    target: str
    lock_path: Path
    verify_ok: bool | None = None   # None: not run
    changes: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)
    warnings: tuple[str, ...] = ()  # the no-op path's warnings (requirement lines not applied), for the CLI
    kernel: str = ""                # the Jupyter kernel registered for the env: "display name (name)"

    @property
    def exit_code(self) -> int:
        return 1 if self.verify_ok is False else 0


def run_up(project_dir: Path, options: UpOptions, ui: Ui, *, planner: Planner = plan_reachable) -> UpResult:
    """Carry out ``torchenv up`` (``--offline`` included) for the project in ``project_dir``.

    ``planner``: the one ``torchenv plan`` asks too (``flows.planning``); a caller may hand in another.
    """
    from . import noop

    project_dir = Path(project_dir).resolve()
    fast = noop.check(project_dir, options)
    if fast is not None:
        return UpResult("up-to-date", fast.env_path, fast.target, fast.lock_path, warnings=fast.warnings,
                        notes=(fast.kept,) if fast.kept else ())
    from .projectlock import project_lock

    strategy = sources_strategy(options)
    with project_lock(project_dir, ui) as waited, strategy.scope():
        if waited:   # the other run may have done the work
            again = noop.check(project_dir, options)
            if again is not None:
                return UpResult("up-to-date", again.env_path, again.target, again.lock_path)
        return _run_locked(project_dir, options, ui, strategy, planner)


def _run_locked(project_dir: Path, options: UpOptions, ui: Ui, strategy: OnlineSources,
                planner: Planner) -> UpResult:
    """The stages, in order: load → decide the target → sources → sync → record → verify."""
    from ..backends import make_backend
    from ..errors import BuildFailed
    from . import project_install
    from .stages import load_project

    project = load_project(project_dir, options.intent, ui, source=strategy.project_source(project_dir), up=options)
    usable_env_path(project.env, project_dir, force=options.force)   # refuse before planning, locking, fetching
    for w in project.warnings:
        ui.warn(w)
    choice = strategy.prepare(decide_target(project, options, strategy, ui, planner), project, ui)
    for added in (r for r in project.reqs if r.added and choice.fresh):   # said where it is locked, never silently
        ui.step(_("{name} locked too: {why} ([env] jupyter = false leaves it out)").format(
            name=added.text, why=_shown_reason(added.added)))
    backend = choice.backend or make_backend(plan=choice.plan, env_path=project.env, ui=ui)
    try:
        status = sync_env(backend, project.env, choice.install_target or choice.target, choice.plan, ui,
                          project_dir=project_dir, force=options.force, exact=options.exact)
    except BuildFailed as exc:      # a dependency built from source: its log kept, its first errors named
        raise project_install.saved_log(exc, project_dir) from None

    def record() -> None:
        strategy.after_sync(project.env, choice.plan, ui)
        record_lock(project, choice, ui)

    try:
        if project_install.sync_project(project.env, backend.python(), choice.plan, project_dir, ui,
                                        (choice.install_target or choice.target).build_tools) \
                and status == "up-to-date":
            status = "synced"
    except BuildFailed:
        record()      # the locked packages are installed and the lock says so; the project itself is not: no "ready"
        raise

    verify_ok = None
    if options.no_verify:
        record()
    else:
        status, verify_ok = verify_if_needed(status, project.env, backend.python(), choice.target, choice.plan,
                                             project_dir, ui, meanwhile=record)
    kernel = _kernel(project, choice.target, ui) if verify_ok is not False else ""
    return UpResult(status, project.env, choice.target.name, project.lock_path, verify_ok, choice.changes,
                    choice.notes, kernel=kernel)


def _kernel(project: Project, target: LockTarget, ui: Ui) -> str:
    """Register (or update) the env's Jupyter kernelspec when the project wants a kernel; its name in words.

    Why a warning and not a failure: the env is built and verified; a data dir that cannot be
    written costs the kernel only, and ``torchenv kernel install`` says why again.
    """
    from ..errors import TorchenvError
    from ..intent.project_requirements import kernel_wanted

    if kernel_wanted(project.intent, project.dir, list(project.reqs)) is None:
        return ""
    from ..jupyter.project import sync_kernel

    try:
        done = sync_kernel(project.env, project.dir, target)
    except (TorchenvError, OSError) as exc:
        ui.warn(_("the Jupyter kernel was not registered: {why}").format(why=getattr(exc, "message", exc)))
        return ""
    if done.change != "unchanged":
        words = _("registered") if done.change == "registered" else _("updated")
        ui.step(_("Jupyter kernel {name} {change} in {folder}").format(
            name=done.kernel.name, change=words, folder=done.kernel.folder.parent))
    return f"{done.kernel.display_name} ({done.kernel.name})"


def _shown_reason(reason: str) -> str:
    """A plan reason in the active language, as `plan` shows it."""
    from ..reasons import shown

    return shown(reason)
