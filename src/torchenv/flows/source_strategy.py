"""``up``'s sources stage: online, or offline (no network; every file from the cache or ``--from``).

Why a strategy chosen once: every later stage asks it (where the project files come from, what
a missing or stale lock means, how the target's files are prepared, what is written after the
sync) instead of reading the flags again.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import LockError
from ..i18n import _

if TYPE_CHECKING:
    from ..options import UpOptions
    from ..resolve.plan import Plan
    from ..ui import Ui
    from .choose_target import TargetChoice
    from .stages import Project


class OnlineSources:
    """Sources as the plan chose them (flags, torchenv.toml, env vars, pip.conf, .condarc, loaded once)."""

    offline = False

    @contextmanager
    def scope(self) -> Iterator[None]:
        yield

    def project_source(self, project_dir: Path) -> Path:
        return project_dir

    def missing_lock(self, lock_path: Path, planned: Callable[[], Plan]) -> LockError:
        return LockError(f"{lock_path}: no lock file, and --frozen forbids resolving",
                         hint="run `torchenv lock` (or `torchenv up` without --frozen) and commit torchenv.lock")

    def stale_lock(self, lock_path: Path) -> LockError:
        return LockError(f"{lock_path} is out of date: torchenv.toml or the project requirements changed since it "
                         "was written", hint="run `torchenv lock` and commit the result, or drop --frozen")

    def prepare(self, choice: TargetChoice, project: Project, ui: Ui) -> TargetChoice:
        return choice

    def after_sync(self, env: Path, plan: Plan, ui: Ui) -> None:
        _write_env_pip_conf(env, plan, ui)


class OfflineSources(OnlineSources):
    """No network for this process and its children; every file from the cache or ``--from``, hash-checked."""

    offline = True

    def __init__(self, from_path: Path | None) -> None:
        self.from_path = from_path
        self.scratch: Path | None = None
        self.borrowed: Path | None = None

    @contextmanager
    def scope(self) -> Iterator[None]:
        import tempfile

        from ..offline.install import no_network

        with no_network(), tempfile.TemporaryDirectory(prefix="torchenv-offline-") as tmp:
            self.scratch = Path(tmp)
            yield

    def project_source(self, project_dir: Path) -> Path:
        """A fresh folder takes the bundle's torchenv.toml/lock (copied in once the files check out)."""
        from ..offline.install import borrowed_project

        assert self.scratch is not None, "project_source runs inside scope()"
        self.borrowed = borrowed_project(project_dir, self.from_path, self.scratch / "project")
        return self.borrowed or project_dir

    def missing_lock(self, lock_path: Path, planned: Callable[[], Plan]) -> LockError:
        from ..offline.install import no_lock_error

        return no_lock_error(lock_path, self.from_path, planned())

    def stale_lock(self, lock_path: Path) -> LockError:
        return LockError(f"{lock_path} is out of date: torchenv.toml or the requirements changed since it was "
                         "written, and an offline install cannot re-resolve",
                         hint="undo the change, or run `torchenv lock` where there is network and bring the "
                              "new lock (and a new bundle) here")

    def prepare(self, choice: TargetChoice, project: Project, ui: Ui) -> TargetChoice:
        """Check every file before anything changes; then install from local folders only."""
        from ..offline.install import adopt_project_files, prepare_offline

        prep = prepare_offline(choice.target, from_path=self.from_path, plan_sources=choice.plan.sources, ui=ui)
        for note in prep.notes:
            ui.step(_("offline: {note}, all hash-checked against torchenv.lock").format(note=note))
        if self.borrowed is not None:
            adopt_project_files(self.borrowed, project.dir, ui)
        return dataclasses.replace(choice, plan=dataclasses.replace(choice.plan, sources=prep.sources),
                                   install_target=prep.target, notes=prep.notes)

    def after_sync(self, env: Path, plan: Plan, ui: Ui) -> None:
        return None   # the env's pip.conf would point at folders of this run


def sources_strategy(options: UpOptions) -> OnlineSources:
    """Chosen once per run: every later stage asks the strategy, never the flags."""
    return OfflineSources(options.from_) if options.is_offline else OnlineSources()


def _write_env_pip_conf(env: Path, plan: Plan, ui: Ui) -> None:
    """Make ``pip install`` inside the env use the plan's sources (when sources.envconfig exists)."""
    try:
        from ..sources.envconfig import write_venv_pip_conf
    except ImportError:
        return
    if plan.backend == "venv" and plan.sources is not None:
        write_venv_pip_conf(env, plan.sources)
