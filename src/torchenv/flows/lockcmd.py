"""``torchenv lock``: write or extend torchenv.lock without installing anything.

Why targets for other machines: a team locks once for the cluster
(``linux-x86_64-cu126``), the laptops (``macos-arm64-cpu``) and CI
(``linux-x86_64-cpu``); each machine's ``up`` then installs its own target's files.
A target name says os, arch and tier; the machine behind it is assumed (a GPU and
driver that run that tier, or none), and the intent's ``cuda`` is set to that tier.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import IntentError
from ..i18n import _
from ..reasons import USER, reason
from .planning import Planner, plan_reachable

if TYPE_CHECKING:
    from ..intent.model import Intent
    from ..machine import Machine
    from ..options import LockOptions
    from ..resolve.plan import Plan
    from ..ui import Ui
    from .stages import Project

OSES = ("linux", "windows", "macos")
ARCHES = ("x86_64", "aarch64", "arm64")
ASSUMED_GPU_CC = "9.0"   # Hopper: compiled into every CUDA 11.8-13.x build, x86_64 and aarch64 (compat.md §4.3)


@dataclass(frozen=True)
class TargetSpec:
    os: str
    arch: str
    tier: str

    @property
    def name(self) -> str:
        return f"{self.os}-{self.arch}-{self.tier}"


def parse_target(text: str) -> TargetSpec:
    """``linux-x86_64-cu121`` / ``windows-x86_64-cpu`` / ``macos-arm64-cpu`` -> TargetSpec."""
    from ..intent.versions import InvalidValue, normalise_tier

    parts = text.strip().split("-", 2)
    hint = "write OS-ARCH-TIER, e.g. linux-x86_64-cu126, windows-x86_64-cpu, macos-arm64-cpu"
    if len(parts) != 3:
        raise IntentError(f"{text!r} is not a lock target name", key="--target", hint=hint)
    os_name, arch, tier = parts
    if os_name not in OSES:
        raise IntentError(f"unknown OS {os_name!r} in target {text!r}", key="--target",
                          hint=f"OS is one of {', '.join(OSES)}; {hint}")
    if arch not in ARCHES:
        raise IntentError(f"unknown architecture {arch!r} in target {text!r}", key="--target",
                          hint=f"arch is one of {', '.join(ARCHES)}; {hint}")
    try:
        tier = normalise_tier(tier)
    except InvalidValue as exc:
        raise IntentError(f"target {text!r}: {exc.reason}", key="--target", hint=exc.hint) from None
    if tier == "auto":
        raise IntentError(f"target {text!r} needs a concrete tier, not auto", key="--target", hint=hint)
    return TargetSpec(os_name, arch, tier)


def assumed_machine(spec: TargetSpec, pythons: list[str]) -> Machine:
    """A machine that runs ``spec.tier``: a Hopper GPU and the tier's minimum driver, or no GPU for cpu."""
    from .. import kb
    from ..machine import AppleInfo, Gpu, Machine, NvidiaInfo, PythonInstall, RocmInfo

    nvidia = rocm = apple = None
    if spec.tier.startswith("cu"):
        driver = kb.driver_floor(spec.tier, spec.os)
        if driver is None:
            raise IntentError(f"the knowledge base knows no driver for tier {spec.tier}", key="--target",
                              hint="check the tier name (`torchenv plan --json` lists tiers)")
        nvidia = NvidiaInfo(driver=driver, cuda_driver_version=kb.cuda_version(spec.tier),
                            gpus=[Gpu(name="assumed GPU", compute_capability=ASSUMED_GPU_CC)], source="assumed")
    elif spec.tier.startswith("rocm"):
        rocm = RocmInfo(version=spec.tier[4:], gfx=list(kb.rocm_gfx(spec.tier)[:1]))
    if spec.os == "macos":
        apple = AppleInfo(chip="assumed", mps=spec.arch in ("arm64", "aarch64"))
    return Machine(os=spec.os, arch=spec.arch, nvidia=nvidia, rocm=rocm, apple=apple,
                   pythons=[PythonInstall(version=v, path="", source="assumed") for v in pythons],
                   assumed=True)


def _target_intent(intent: Intent, spec: TargetSpec) -> Intent:
    return dataclasses.replace(intent, torch=dataclasses.replace(intent.torch, cuda=spec.tier)).set_by(
        reason("who.lock_target", USER, name=spec.name), "torch.cuda")


@dataclass(frozen=True)
class LockResult:
    """What ``lock`` wrote: the file, the targets written by this call, every target now in it."""

    lock_path: Path
    written: tuple[str, ...]
    targets: tuple[str, ...]

    @classmethod
    def read(cls, project_dir: Path, written: tuple[str, ...]) -> LockResult:
        from ..lockfile.io import read_lock
        from ..lockfile.model import LOCK_FILE

        path = project_dir / LOCK_FILE
        return cls(path, written, tuple(t.name for t in read_lock(path).targets))


def run_lock(project_dir: Path, options: LockOptions, ui: Ui, *, planner: Planner = plan_reachable) -> list[str]:
    """Resolve and write targets into torchenv.lock; returns the names of the targets written.

    ``planner``: this machine's plan comes from the one ``up`` and ``torchenv plan`` ask (``flows.planning``).
    """
    from .projectlock import project_lock

    project_dir = Path(project_dir).resolve()
    with project_lock(project_dir, ui):
        return _run_locked(project_dir, options, ui, planner)


def _run_locked(project_dir: Path, options: LockOptions, ui: Ui, planner: Planner) -> list[str]:
    """``up``'s first stages (load the project, plan), then lock each target; the lock is written once."""
    from ..backends import make_backend
    from ..lockfile.diff import diff_targets
    from ..lockfile.io import write_lock
    from ..options import UpOptions
    from .lock_record import new_lockfile
    from .project_install import lock_entry
    from .stages import load_project, lock_with

    # the flags the last `up` kept apply here too (and are said), so a plain `lock` plans what a plain `up` would
    project = load_project(project_dir, options.intent, ui,
                           up=UpOptions(intent=options.intent, reset_overrides=options.reset_overrides))
    for w in project.warnings:
        ui.warn(w)
    specs = [parse_target(t) for t in options.targets]
    plans = _target_plans(project, options, specs, planner) if specs else _machine_plans(project, options, ui, planner)
    lock, written = project.lock, []
    for plan in plans:
        target = lock_with(make_backend(plan=plan, env_path=project.env, ui=ui), plan, project, ui)
        for line in diff_targets(lock.target(target.name) if lock is not None else None, target):
            ui.info(f"    {line}")
        lock = new_lockfile(lock, project.intent, list(project.reqs), target, plan, ui, lock_entry(project_dir),
                            project.remembered)
        written.append(target.name)
    assert lock is not None
    write_lock(project.lock_path, lock)
    ui.step(_("wrote {lock} ({written}; targets now: {targets})").format(
        lock=project.lock_path, written=", ".join(written), targets=", ".join(t.name for t in lock.targets)))
    return written


def _machine_plans(project: Project, options: LockOptions, ui: Ui, planner: Planner) -> list[Plan]:
    """This machine's plan, or every target a ``--machine cluster.json`` needs."""
    from ..cluster.hooks import cluster_plans
    from ..intent import project_requirements as reqmod
    from .planning import PlanRequest
    from .stages import plan_for

    with ui.progress(_("planning (probe + resolve)")):
        plans = cluster_plans(project.intent, options.machine, options.sources)
    if plans is None:
        return [plan_for(project, PlanRequest(project.intent, options.machine, options.sources), planner, ui)]
    for plan in plans:
        reqmod.check_against_plan(list(project.reqs), plan)
    return plans


def _target_plans(project: Project, options: LockOptions, specs: list[TargetSpec], planner: Planner) -> list[Plan]:
    """One plan per ``--target``, each for an assumed machine that runs that tier.

    Asked of the same ``planner`` as this machine's plan, so ``lock --target`` locks what ``torchenv plan``
    shows for that machine (``--assume-*``): an assumed machine is planned from the recipes and the tier
    index, and no file is looked up for it.
    """
    from ..intent import project_requirements as reqmod
    from ..probing.assume import machine_for
    from .planning import PlanRequest

    intent, lock = project.intent, project.lock
    pythons = [intent.torch.python] if intent.torch.python else sorted(
        {t.python for t in (lock.targets if lock else ())})
    if not pythons:
        pythons = machine_for(options.machine).python_versions()
    plans = []
    for spec in specs:
        plan = planner(PlanRequest(_target_intent(intent, spec), assumed_machine(spec, pythons), options.sources))
        if plan.target_name != spec.name:
            raise IntentError(f"target {spec.name} resolved to {plan.target_name}", key="--target",
                              hint="the knowledge base maps this OS/arch/tier to another build; "
                                   f"lock {plan.target_name} instead")
        reqmod.check_against_plan(list(project.reqs), plan)
        plans.append(plan)
    return plans
