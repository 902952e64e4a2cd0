"""The venv backend: a virtual environment filled with wheels by the uv or pip engine.

Why locking happens in two steps: torchenv first pins every torch-family file itself
(``backends.locate``: exact version, wheel tags, sha256, from the tier's torch source or a
local wheelhouse), then lets the engine resolve the rest of the closure from the PyPI side
with those files given as direct references. A torch-family package that appears only as
a dependency (``triton``) is located the same way and the closure is resolved once more,
so no torch-family file ever comes from wherever an installer happened to find it first.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import BackendError, SourceError
from ..i18n import _
from .base import Backend

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..engines.base import WheelEngine
    from ..lock.model import LockedWheel, LockTarget
    from ..resolve.plan import Plan
    from ..sources.model import Sources
    from ..ui import Ui


def make_engine(name: str, ui: Any = None) -> WheelEngine:
    if name == "pip":
        from ..engines.pip import PipEngine

        return PipEngine(ui=ui)
    if name == "uv":
        from ..engines.uv import UvEngine

        return UvEngine(ui=ui)
    raise BackendError(_("unknown installer {name!r}").format(name=name), hint=_('[env] installer is "uv" or "pip"'))


def plan_sources(plan: Plan) -> Sources:
    """The plan's package sources: a resolved wheel plan always has them, so ``None`` is a resolver bug."""
    if plan.sources is None:
        raise BackendError(_("the plan has no package sources"), hint=_("this is a bug in the resolver"))
    return plan.sources


class WheelLocker:
    """Pins a plan's wheels: torch-family files located and fetched by torchenv, the rest resolved by the engine.

    Why a class of its own: the venv backend and the wheel half of a conda env (``torch-source = "wheels"``)
    lock wheels by the same rules (supply chain, mirrors, hashes); each hands in its own plan as it is.
    """

    def __init__(self, *, plan: Plan, engine: WheelEngine, ui: Ui | None) -> None:
        from .getfile import SourceMemory

        self.plan, self.engine, self.ui = plan, engine, ui
        self.memory = SourceMemory(ui)   # hosts that failed in this run (lock and install share it)

    # -- locking --------------------------------------------------------------------------------
    def _locate(self, name: str, version: str, source: str) -> tuple[LockedWheel, str]:
        """(LockedWheel with canonical URL and verified sha256, ``file://`` URL of the cached file).

        Why fetch while locking: the engine resolves the rest of the closure from the torch
        files' metadata; given the mirror's URL it would download the file itself (a second
        time, with no fallback, and read dependencies from bytes nobody checked). Here the
        file is fetched once through ``backends.getfile`` (hash-checked, falling back over
        the plan's torch sources) and the engine reads the verified copy.
        """
        import dataclasses

        from .getfile import pypi_file, torch_file
        from .locate import FROM_PYPI, locate

        plan = self.plan
        sources = plan_sources(plan)
        found = locate(sources, name, version, source=source, tier=plan.tier, python=plan.python,
                       platform=plan.platform, ui=self.ui, memory=self.memory)
        wheel = found.wheel
        if source == FROM_PYPI:
            path, sha = pypi_file(sources, wheel, first=found.found_url, memory=self.memory, ui=self.ui)
        else:
            path, sha = torch_file(sources, wheel.filename, wheel.sha256 or None, first=found.found_url,
                                   memory=self.memory, ui=self.ui)
        return dataclasses.replace(wheel, sha256=sha, size=path.stat().st_size), path.resolve().as_uri()

    def _pulled_in(self, name: str, version: str) -> tuple[LockedWheel, str]:
        """A torch-family package the resolve pulled in, from the torch source; said as such when it lacks it."""
        from ..errors import PulledInFamily
        from .locate import FROM_TORCH_INDEX

        try:
            return self._locate(name, version, FROM_TORCH_INDEX)
        except SourceError as exc:
            raise PulledInFamily(exc.message, name=name, hint=exc.hint) from None

    def lock(self, requirements: list[str]) -> tuple[LockedWheel, ...]:
        """Every wheel of the plan plus ``requirements``, exactly pinned and hash-locked, sorted."""
        from ..sources.index import normalize
        from .locate import FROM_PYPI, torch_family

        plan = self.plan
        sources = plan_sources(plan)
        family = torch_family()
        pinned: dict[str, tuple[LockedWheel, str]] = {}
        for pkg in plan.packages:
            name = normalize(pkg.name)
            if name in family:
                pinned[name] = self._locate(name, pkg.version, pkg.source)
        pypi = sources.pypi
        extra_links = [w for w in sources.wheelhouses if w not in pypi.find_links]
        needs = import_needs_missing(plan, requirements)
        for _round in range(3):
            reqs = [f"{name} @ {url}" for name, (_w, url) in sorted(pinned.items())] + list(requirements)
            resolved, needs = self._resolve(reqs, needs, extra_links)
            strays = [w for w in resolved if normalize(w.name) in family and normalize(w.name) not in pinned]
            if not strays or plan.pypi_default_build:
                break
            for w in strays:   # e.g. triton pulled in by torch: must come from the torch source too
                pinned[normalize(w.name)] = self._pulled_in(normalize(w.name), w.version)
        else:
            raise SourceError("the torch-family packages kept changing while resolving: "
                              + ", ".join(sorted(pinned)), hint=_("report this with `torchenv plan --json`"))
        wheels = []
        for w in resolved:
            name = normalize(w.name)
            if name in pinned:
                wheels.append(pinned[name][0])
            elif name in family:   # PyPI's default build: exactly pinned, hash-locked, from the PyPI side
                wheels.append(_replace(w, name=name, source=FROM_PYPI))
            else:
                wheels.append(_replace(w, name=name))
        self._remember_hashed(wheels)
        missing = set(pinned) - {w.name for w in wheels}
        if missing:
            raise BackendError(_("the resolver dropped {items} from the environment").format(
                                   items=', '.join(sorted(missing))),
                               hint=_("a requirement marker excludes it on this platform; check your requirements"))
        return tuple(sorted(wheels, key=lambda w: (w.name, w.filename)))

    def _resolve(self, reqs: list[str], needs: list[str], extra_links: list[str]) -> tuple[list[LockedWheel], list[str]]:
        """Resolve ``reqs`` plus the plan's import needs (numpy); without them, said, if only they fail.

        Why soft: numpy only silences a warning of ``import torch``; a PyPI side that cannot
        serve it (an internal index, an offline folder) must not stop an environment that
        resolves without it.
        """
        plan = self.plan

        def run(lines: list[str]) -> list[LockedWheel]:
            return self.engine.resolve(requirements=lines, python_version=plan.python, platform=plan.platform,
                                       pypi=plan_sources(plan).pypi, find_links=extra_links)

        if not needs:
            return run(reqs), needs
        try:
            return run(reqs + needs), needs
        except BackendError:
            resolved = run(reqs)          # raises the project's own error when that is the problem
        if self.ui is not None:
            self.ui.warn(f"{', '.join(needs)} could not be resolved from the PyPI side, so it is left out: "
                         "`import torch` will warn that it is missing")
        return resolved, []

    def _remember_hashed(self, wheels: list[LockedWheel]) -> None:
        """Record the sha256 the engine computed (``--generate-hashes``) for each local file it resolved.

        Why: ``materialise`` (now and in every later run) would otherwise read every local wheel
        again to hash it, a second pass over the whole stack on a project whose wheelhouse is
        local; the lock's sha256 *is* that hash, kept by (path, size, mtime) like any verified
        local file, and the engine checks it once more when it installs (``--require-hashes``).
        """
        from ..sources.fetch import remember_verified
        from ..sources.index import local_path

        hashed = {}
        for w in wheels:
            path = local_path(w.url) if w.url.startswith("file:") else None
            if path is not None and path.is_file() and w.sha256:
                hashed[path] = w.sha256
        if hashed:
            remember_verified(hashed)

    def fetch(self, wheels: Sequence[LockedWheel]) -> list[Path]:
        """A hash-checked local file for every wheel (cache, local folders, then the plan's sources, lazily)."""
        from .getfile import wheel_file

        sources = plan_sources(self.plan)
        wheels = list(wheels)
        if len(wheels) < 2 or self.ui is None:
            return [wheel_file(sources, w, memory=self.memory, ui=self.ui) for w in wheels]
        from concurrent.futures import ThreadPoolExecutor

        from ..sources.ranged import budget_size

        # all files at once: torch-family and PyPI-side downloads share the run's connection budget
        with self.ui.progress(_("getting {count} files").format(count=len(wheels))), \
                ThreadPoolExecutor(max_workers=min(len(wheels), budget_size(), 8)) as pool:
            futures = [pool.submit(wheel_file, sources, w, memory=self.memory, ui=self.ui) for w in wheels]
            try:
                return [f.result() for f in futures]
            except BaseException:
                for f in futures:
                    f.cancel()
                raise


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
        from ..lock.model import LockTarget

        plan = self.plan
        wheels = self.wheels.lock(requirements)
        os_name, _sep, arch = plan.platform.partition("-")
        torch = next((w.version for w in wheels if w.name == "torch"), plan.torch_version)
        return LockTarget(name=plan.target_name, os=os_name, arch=arch, tier=plan.tier, python=plan.python,
                          backend=self.name, torch=torch, wheels=wheels)

    # -- building ---------------------------------------------------------------------------------
    def create(self) -> None:
        self.engine.create_venv(python=self.plan.python_path or self.plan.python, path=self.env_path)

    def materialise(self, target: LockTarget) -> list[Path]:
        """A hash-checked local file for every wheel (cache, local folders, then the plan's sources, lazily).

        ``up`` calls this before it creates or changes the env, so a download failure
        leaves the env (or its absence) exactly as it was.
        """
        return self.wheels.fetch(target.wheels)

    def install(self, *, target: LockTarget, reinstall: bool = False, files: list[Path] | None = None) -> None:
        """Install the target's files; ``files`` are those ``materialise`` returned (fetched now if not given)."""
        files = self.materialise(target) if files is None else files
        hashes = {w.filename: w.sha256 for w in target.wheels}
        with self.ui.progress(_("installing {count} packages ({installer})").format(count=len(files),
                                                                                 installer=self.engine.name)):
            self.engine.install_files(env_python=self.python(), files=files, hashes=hashes, reinstall=reinstall)

    def python(self) -> Path:
        from .state import env_python

        return env_python(self.env_path)

    def installed(self) -> dict[str, str]:
        from .state import distributions, fingerprint

        return distributions(fingerprint(self.env_path, self.plan.python))


def _replace(wheel: LockedWheel, **changes: Any) -> LockedWheel:
    import dataclasses

    return dataclasses.replace(wheel, **changes)


def import_needs_missing(plan: Plan, requirements: list[str]) -> list[str]:
    """The plan's ``import_requirements`` (numpy for ``import torch``) the project does not name itself."""
    import re

    named = {re.sub(r"[-_.]+", "-", m.group(1)).lower()
             for m in (re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", r) for r in requirements) if m}
    return [spec for spec in plan.import_requirements
            if re.sub(r"[-_.]+", "-", re.split(r"[<>=!~;\[ ]", spec)[0]).lower() not in named]
