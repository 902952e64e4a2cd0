"""The venv backend: a virtual environment filled with wheels by the uv or pip engine.

Its lock is ``backends.wheellock.WheelLocker``'s (torch-family files located by torchenv, the
rest resolved by the engine); here the env is created, filled from the fetched files and read.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..i18n import _
from .base import Backend
from .wheellock import WheelLocker, make_engine

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..lockfile.model import LockedWheel, LockTarget
    from ..resolve.plan import Plan
    from ..ui import Ui


class VenvBackend(Backend):
    name = "venv"

    def __init__(self, *, plan: Plan, env_path: Path, ui: Ui, installer: str | None = None) -> None:
        super().__init__(plan=plan, env_path=env_path, ui=ui)
        self.engine = make_engine(installer or plan.installer, ui)
        self.wheels = WheelLocker(plan=plan, engine=self.engine, ui=ui)

    @property
    def engine_name(self) -> str:
        return self.engine.name

    @property
    def kept_packages(self) -> frozenset[str]:
        return self.engine.keeps

    def forget_cached(self, names: list[str]) -> None:
        if names:
            self.engine.forget_cached(names)

    @property
    def memory(self) -> Any:
        return self.wheels.memory

    def lock_target(self, *, requirements: list[str]) -> LockTarget:
        from ..lockfile.model import LockTarget

        pins = self._prebuilt_first(requirements)
        plan = self.plan
        wheels = self.wheels.lock([*requirements, *pins])
        os_name, _sep, arch = plan.platform.partition("-")
        torch = next((w.version for w in wheels if w.name == "torch"), plan.torch_version)
        return LockTarget(name=plan.target_name, os=os_name, arch=arch, tier=plan.tier, python=plan.python,
                          backend=self.name, torch=torch, wheels=wheels, build_tools=self._lock_build_tools(wheels))

    def _prebuilt_first(self, requirements: list[str]) -> list[str]:
        """Pins of the prebuilt wheels (``prebuilt``) of packages that would compile against torch; the plan
        gets their pages as find-links sources, and says which wheel came from where."""
        from ..sources.prebuilt import find_prebuilt, with_prebuilt

        matches = find_prebuilt(self.plan, requirements, self.ui)
        if not matches:
            return []
        self.plan = self.wheels.plan = with_prebuilt(self.plan, matches)
        for reason in self.plan.reasons[-len(matches):]:
            self.ui.step(reason)
        return [m.pin for m in matches]

    def _lock_build_tools(self, wheels: tuple[LockedWheel, ...]) -> tuple[LockedWheel, ...]:
        """The nvcc of the tier's CUDA, locked apart from the env's files (it is unpacked into the cache, never
        installed), when something in this target is built against torch: the project, or a locked sdist."""
        import dataclasses

        from ..engines.base import SDIST_SUFFIXES
        from .cudatool import needs_build_tools, pypi_toolkit
        from .torchbuild import against_torch

        plan = self.plan
        builds = against_torch(plan.intent.project_dir) is not None or any(
            w.filename.endswith(SDIST_SUFFIXES) for w in wheels)
        toolkit = pypi_toolkit(plan.cuda_version)
        if toolkit is None or not needs_build_tools(plan, builds):
            return ()
        alone = dataclasses.replace(plan, packages=(), import_requirements=())
        with self.ui.progress(_("locking the CUDA {cuda} compiler for builds against torch").format(
                cuda=toolkit.cuda)):
            return WheelLocker(plan=alone, engine=self.engine, ui=self.ui).lock(list(toolkit.requirements))

    # -- building ---------------------------------------------------------------------------------
    def create(self) -> None:
        self.engine.create_venv(python=self.plan.python_path or self.plan.python, path=self.env_path)

    def materialise(self, target: LockTarget, new_env: Callable[[], None] | None = None) -> list[Path]:
        """A hash-checked local file for every wheel (cache, local folders, then the plan's sources, lazily).

        ``up`` calls this before it changes an env, so a download failure leaves it exactly as it
        was; a new env (``new_env``) may get the files already on this machine while the others
        download, and is cleared if this fails.
        """
        if new_env is None:
            return self.wheels.fetch(target.wheels)
        made = new_env

        def into_new_env(files: list[Path], hashes: dict[str, str]) -> bool:
            """The files ``install`` names by their path, into the new env now (one it asks for by name from
            its find-links folder, ``_listed``, is left to it: named two ways, uv would install it twice)."""
            listed = self._listed(files)
            by_path = [f for f in files if f.name not in listed]
            if not by_path:
                return False
            made()
            return self.engine.install_early(env_python=self.python(), files=by_path, hashes=hashes)
        return self.wheels.fetch(target.wheels, into_new_env)

    def install(self, *, target: LockTarget, reinstall: bool = False, files: list[Path] | None = None,
                keep_extra: bool = False) -> None:
        """Install the target's files; ``files`` are those ``materialise`` returned (fetched now if not given)."""
        from ..engines.base import SDIST_SUFFIXES
        from .torchbuild import needs_torch

        files = self.materialise(target) if files is None else files
        hashes = {w.filename: w.sha256 for w in target.wheels}
        against = [f for f in files if f.name.endswith(SDIST_SUFFIXES) and needs_torch(f)]
        rest = [f for f in files if f not in against]
        with self.ui.progress(_("installing {count} packages ({installer})").format(count=len(rest),
                                                                                 installer=self.engine.name)):
            self.engine.install_files(env_python=self.python(), files=rest, hashes=hashes, reinstall=reinstall,
                                      keep_extra=keep_extra, listed=self._listed(rest))
        if against:
            self._install_built(target, against, hashes)

    def _listed(self, files: list[Path]) -> dict[str, str]:
        """The files the resolve found in the plan's find-links folders, alone there (``engines.uv.listed_alone``).

        The torch family is left out: the resolve saw those files as direct references (a stub, the
        fetched file), and the engine unpacked them under their path (``warm_cache``).
        """
        from ..engines.uv import listed_alone
        from ..sources.locate import torch_family
        from .wheellock import plan_sources

        sources = plan_sources(self.plan)
        links = [*sources.pypi.find_links, *(w for w in sources.wheelhouses if w not in sources.pypi.find_links)]
        return listed_alone(files, links, frozenset(torch_family())) if links else {}

    def _install_built(self, target: LockTarget, sdists: list[Path], hashes: dict[str, str]) -> None:
        """The sdists that compile against torch: built (or taken from the cache) now that torch is installed."""
        from .torchbuild import built_wheel

        torch = next((w.version for w in target.wheels if w.name == "torch"), target.torch)
        wheels = [built_wheel(f, hashes.get(f.name, ""), self.plan, self.python(), torch, self.ui, target.build_tools)
                  for f in sdists]
        self.engine.install_files(env_python=self.python(), files=wheels, keep_extra=True)

    def remove(self, names: list[str]) -> None:
        from ..engines.pip import installing_pip, pip_tool_environ
        from ..engines.uv import run_tool

        if names:
            run_tool([*installing_pip(self.python()), "uninstall", "--yes", "--quiet", *names],
                     what=_("removing packages added by hand ({names})").format(names=", ".join(names)),
                     env=pip_tool_environ())

    def python(self) -> Path:
        from .state import env_python

        return env_python(self.env_path)

    def installed(self) -> dict[str, str]:
        from .state import distributions, fingerprint

        return distributions(fingerprint(self.env_path, self.plan.python))
