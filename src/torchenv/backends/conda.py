"""The conda backend: a conda prefix with Python and conda packages, torch from wheels or conda.

Why two halves: most conda users want conda for what pip cannot give (a Python the machine
lacks, ``cuda-nvcc`` matching torch, MKL), while torch itself comes fastest and freshest as
the tier's wheels (``torch-source = "wheels"``, the default). The conda half is solved by an
engine (the user's conda/mamba/micromamba, else embedded py-rattler); the wheel half is
delegated to a ``WheelPart`` so the venv side's rules (supply chain, mirrors, hashes) apply
unchanged, and tests can stub it. ``torch-source = "conda"`` takes ``pytorch`` from the
channels instead. Both halves land in one ``torchenv.lock`` target.
"""
from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ..errors import BackendError, EnvError
from ..i18n import _
from .base import Backend

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..conda.engine import CondaEngine
    from ..conda.records import CondaRecord
    from ..lockfile.model import LockedWheel, LockTarget
    from ..machine import Machine
    from ..resolve.plan import Plan
    from ..ui import Ui
    from .wheellock import WheelLocker

# conda package names that are the torch stack itself: must not meet torch wheels in one prefix
_CONDA_TORCH = {"pytorch", "pytorch-gpu", "pytorch-cpu", "libtorch", "torchvision", "torchaudio"}


class WheelPart(Protocol):
    """The wheel half of a hybrid env (``torch-source = "wheels"``)."""

    def lock(self, *, plan: Plan, requirements: list[str]) -> tuple[LockedWheel, ...]:
        """The torch stack of ``plan`` plus ``requirements``, resolved to hash-pinned wheels."""

    def fetch_files(self, *, plan: Plan, wheels: Sequence[LockedWheel]) -> list[Path]:
        """A hash-checked local file per wheel (fetched before the env is touched)."""

    def install(self, *, plan: Plan, env_python: Path, wheels: Sequence[LockedWheel],
                reinstall: bool = False, files: Sequence[Path] | None = None) -> None:
        """Install exactly these wheels into ``env_python``'s site-packages, hash-checked, no deps."""


class UvWheelPart:
    """Default wheel half: the venv backend resolves and fetches (its supply-chain, mirror and hash rules,
    unchanged); ``uv pip install --no-deps`` puts the files into the prefix's Python. Not ``uv pip
    sync``: that would uninstall the Python packages conda put in the prefix."""

    def __init__(self, *, env_path: Path, ui: Ui) -> None:
        self.env_path = env_path
        self.ui = ui

    def _locker(self, plan: Plan) -> WheelLocker:
        """The venv backend's wheel rules, for this (conda) plan as it is."""
        try:
            from .wheellock import WheelLocker, make_engine
        except ImportError:
            raise BackendError(_("the wheel half of a conda env needs the venv backend, which this build lacks"),
                               hint=_('use [conda] torch-source = "conda"')) from None
        return WheelLocker(plan=plan, engine=make_engine(plan.installer, self.ui), ui=self.ui)

    def lock(self, *, plan: Plan, requirements: list[str]) -> tuple[LockedWheel, ...]:
        return self._locker(plan).lock(requirements)

    def fetch_files(self, *, plan: Plan, wheels: Sequence[LockedWheel]) -> list[Path]:
        """Local folders and the cache first, then the plan's sources (mirrors: the lock holds canonical URLs)."""
        return self._locker(plan).fetch(wheels) if wheels else []

    def install(self, *, plan: Plan, env_python: Path, wheels: Sequence[LockedWheel],
                reinstall: bool = False, files: Sequence[Path] | None = None) -> None:
        from ..engines.uv import requirements_lines, run_tool, uv_bin, uv_environ

        if not wheels:
            return
        files = list(files) if files is not None else self.fetch_files(plan=plan, wheels=wheels)
        hashes = {w.filename: w.sha256 for w in wheels}
        with tempfile.TemporaryDirectory(prefix="torchenv-wheels-") as tmp:
            req = Path(tmp) / "requirements.txt"
            req.write_text(requirements_lines(files, hashes))
            run_tool([uv_bin(), "pip", "install", "--no-config", "--quiet", "--no-index", "--no-deps",
                      "--require-hashes", *(["--reinstall"] if reinstall else []), "--python", str(env_python),
                      "-r", str(req)],
                     what=f"installing {len(files)} wheels into {self.env_path} (uv)", env=uv_environ())


def select_engine(machine: Machine) -> CondaEngine:
    """The user's conda/mamba/micromamba when on PATH (their .condarc applies), else py-rattler.

    ``TORCHENV_CONDA_ENGINE`` = rattler | conda | mamba | micromamba forces a choice.
    """
    from .. import paths

    forced = os.environ.get("TORCHENV_CONDA_ENGINE", "").strip().lower()
    if forced != "rattler":
        for exe in machine.conda:
            if (not forced or exe.kind == forced) and Path(exe.path).is_file():
                from ..engines.conda_bin import CondaBinary

                return CondaBinary(path=exe.path, kind=exe.kind)
        if forced:
            found = shutil.which(forced)
            if not found:
                raise BackendError(_("TORCHENV_CONDA_ENGINE={forced}, but no {forced} is on PATH").format(
                                       forced=forced),
                                   hint=_("unset it to use the embedded engine (py-rattler)"))
            from ..engines.conda_bin import CondaBinary

            return CondaBinary(path=found, kind=forced)
    from ..engines.rattler import RattlerEngine

    return RattlerEngine(cache_dir=paths.cache_dir() / "conda")


class CondaBackend(Backend):
    name = "conda"

    def __init__(self, *, plan: Plan, env_path: Path, ui: Ui, engine: CondaEngine | None = None,
                 wheel_part: WheelPart | None = None) -> None:
        super().__init__(plan=plan, env_path=env_path, ui=ui)
        self._engine = engine
        self.wheel_part = wheel_part or UvWheelPart(env_path=env_path, ui=ui)
        self.reasons: list[str] = []

    @property
    def engine(self) -> CondaEngine:
        if self._engine is None:
            self._engine = select_engine(self.plan.machine)
        return self._engine

    @property
    def engine_name(self) -> str:
        return self.engine.name

    @property
    def mirrors(self) -> dict[str, tuple[str, ...]]:
        from ..sources.credentials import with_credentials

        mirrors = self.plan.sources.conda_mirrors if self.plan.sources else {}
        return {prefix: tuple(with_credentials(m) for m in urls) for prefix, urls in mirrors.items()}

    # -- deciding ------------------------------------------------------------------------------
    def lock_target(self, *, requirements: list[str]) -> LockTarget:
        from ..conda.channels import conda_subdir
        from ..conda.specs import conda_request
        from ..conda.virtual import describe, virtual_packages
        from ..lockfile.model import LockTarget

        plan = self.plan
        request = conda_request(plan)
        vpkgs = virtual_packages(plan.machine)
        subdir = conda_subdir(plan.platform)
        self.reasons = [*request.reasons,
                        _("solved by {engine} for {subdir} as the target machine sees it ({machine})").format(
                            engine=self.engine.name, subdir=subdir, machine=describe(vpkgs) or _("no virtual packages"))]
        self.ui.step(_("solving conda packages with {engine}: {specs}").format(engine=self.engine.name,
                                                                               specs=", ".join(request.specs)))
        for reason in self.reasons:    # why each spec looks as it does (cuda-nvcc 12.6.* for cu126, ...)
            self.ui.info(f"    {reason}", markup=False)
        records = self.engine.solve(channels=request.channels, specs=request.specs, platform=subdir,
                                    virtual_packages=vpkgs, mirrors=self.mirrors)
        clash = sorted(r.name for r in records if r.name in _CONDA_TORCH)
        wheels: tuple[LockedWheel, ...] = ()
        if not request.torch_from_conda:
            if clash:
                raise BackendError(_("the conda packages pull in {items}, which would sit beside the torch wheels "
                                     "in one prefix").format(items=', '.join(clash)),
                                   hint=_("remove what depends on them from [conda] packages, or set "
                                          '[conda] torch-source = "conda"'))
            wheels = tuple(self.wheel_part.lock(plan=plan, requirements=list(requirements)))
        elif requirements:
            wheels = tuple(self.wheel_part.lock(plan=plan, requirements=list(requirements)))
        torch = self._torch_version(records, wheels)
        return LockTarget(name=plan.target_name, os=plan.machine.os, arch=plan.machine.arch, tier=plan.tier,
                          python=plan.python, backend="conda", torch=torch, wheels=wheels,
                          conda=tuple(r.to_locked() for r in records), virtual_packages=vpkgs,
                          channels=request.channels)

    @staticmethod
    def _torch_version(records: Sequence[CondaRecord], wheels: Sequence[LockedWheel]) -> str:
        wheel = next((w for w in wheels if w.name == "torch"), None)
        if wheel is not None:
            return wheel.version
        rec = next((r for r in records if r.name == "pytorch"), None)
        return rec.version if rec is not None else ""

    # -- doing ---------------------------------------------------------------------------------
    def create(self) -> None:
        """Claim ``env_path`` as a conda prefix: empty or already one; never someone else's directory.

        The interpreter arrives with the conda records in ``install`` (Python is a conda package),
        so one transaction makes the whole prefix.
        """
        path = self.env_path
        if path.exists() and not path.is_dir():
            raise EnvError(_("{path} is a file, not an environment").format(path=path),
                           hint=_("choose another [env] path"))
        held = [p for p in path.iterdir() if p.name != ".torchenv"] if path.is_dir() else []   # the marker is ours
        if held and not (path / "conda-meta").is_dir():
            what = "a venv" if (path / "pyvenv.cfg").exists() else "files that are not a conda environment"
            raise EnvError(_("{path} holds {what}; torchenv will not install a conda env over it").format(
                               path=path, what=what),
                           hint=_('choose another [env] path (e.g. path = ".conda-env"), or move it away yourself'))
        (path / "conda-meta").mkdir(parents=True, exist_ok=True)
        (path / "conda-meta" / "history").touch(exist_ok=True)

    def materialise(self, target: LockTarget, new_env: Callable[[], None] | None = None) -> list[Path]:
        """The wheel half's files, fetched and hash-checked before ``up`` touches the prefix.

        Why only wheels: conda packages are fetched (and sha256-checked) by the engine inside its
        install transaction; a failure there leaves ``up``'s in-progress marker for the repair path.
        """
        return self.wheel_part.fetch_files(plan=self.plan, wheels=target.wheels) if target.wheels else []

    def install(self, *, target: LockTarget, reinstall: bool = False, files: list[Path] | None = None,
                keep_extra: bool = False) -> None:
        """Exactly the target's conda records (no solve), then its wheels, then the env-local configs.

        ``reinstall``: re-link every locked package (``up`` repairing an interrupted or hand-changed env).
        ``files``: what ``materialise`` returned (the wheels are fetched now when not given).
        """
        from ..conda.records import records_from_lock
        from ..conda.virtual import virtual_packages

        if target.backend != "conda" or not target.conda:
            raise BackendError(_("lock target {name} holds no conda packages").format(name=target.name),
                               hint=_('re-lock with `torchenv lock` after setting [env] backend = "conda"'))
        here = {v.split("=")[0]: v for v in virtual_packages(self.plan.machine)}
        for wanted in target.virtual_packages:
            if wanted.startswith("__cuda") and "__cuda" not in here:
                self.ui.warn(_("target {target} was solved for {cuda}, and this machine has no CUDA driver: CUDA "
                               "packages will install, but not run here").format(target=target.name,
                                                                                   cuda=wanted.rsplit("=", 1)[0]))
        self.ui.step(_("installing {count} conda packages into {env} ({engine})").format(
            count=len(target.conda), env=self.env_path, engine=self.engine.name))
        self.engine.install(records=records_from_lock(target.conda), prefix=self.env_path, mirrors=self.mirrors,
                            reinstall=reinstall)
        if target.wheels:
            self.ui.step(_("installing {count} wheels into the prefix's Python").format(count=len(target.wheels)))
            self.wheel_part.install(plan=self.plan, env_python=self.python(), wheels=target.wheels,
                                    reinstall=reinstall, files=files or None)
        self._write_env_config(target)

    def _write_env_config(self, target: LockTarget) -> None:
        """``<prefix>/.condarc`` (channels + conda mirrors) and ``<prefix>/pip.conf`` (PyPI side).

        Why: a later ``conda install`` or ``pip install`` run inside the env should reach the same
        channels and mirrors torchenv used, without touching the user's global files. Not offline:
        the sources then point into a bundle's scratch folder (``up`` skips pip.conf there too).
        """
        from ..sources.envconfig import write_condarc, write_venv_pip_conf
        from ..sources.fetch import offline

        sources = self.plan.sources
        if sources is None or offline():
            return
        channels = list(self.plan.intent.conda.channels) or list(target.channels)
        write_condarc(self.env_path, sources, channels)
        if target.wheels or self.plan.intent.conda.torch_source != "conda":
            write_venv_pip_conf(self.env_path, sources)

    def python(self) -> Path:
        if sys.platform == "win32" or self.plan.machine.os == "windows":
            return self.env_path / "python.exe"
        return self.env_path / "bin" / "python"

    def installed(self) -> dict[str, str]:
        """conda-meta records, then site-packages dist-infos (wheels win: they are what imports)."""
        out: dict[str, str] = {}
        for meta in sorted((self.env_path / "conda-meta").glob("*.json")):
            try:
                data = json.loads(meta.read_text())
                out[data["name"]] = data["version"]
            except (OSError, ValueError, KeyError):
                continue
        for site in [*self.env_path.glob("lib/python*/site-packages"), self.env_path / "Lib" / "site-packages"]:
            for dist in site.glob("*.dist-info"):
                name, _sep, version = dist.name[: -len(".dist-info")].partition("-")
                out[name.lower().replace("_", "-")] = version
        return out
