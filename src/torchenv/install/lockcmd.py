"""``torchenv lock``: write or extend torchenv.lock without installing anything.

Why targets for other machines: a team locks once for the cluster
(``linux-x86_64-cu126``), the laptops (``macos-arm64-cpu``) and CI
(``linux-x86_64-cpu``); each machine's ``up`` then installs its own target's files.
A target name says os, arch and tier; the machine behind it is assumed (a GPU and
driver that run that tier, or none), and the intent's ``cuda`` is set to that tier.
"""
from __future__ import annotations

import argparse
import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import IntentError

if TYPE_CHECKING:
    from ..intent.model import Intent
    from ..machine import Machine
    from ..ui import Ui

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


def assumed_machine(spec: TargetSpec, pythons: list[str]) -> "Machine":
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


def _target_intent(intent: "Intent", spec: TargetSpec) -> "Intent":
    return dataclasses.replace(intent, torch=dataclasses.replace(intent.torch, cuda=spec.tier))


def run_lock(project_dir: Path, args: argparse.Namespace, ui: "Ui") -> list[str]:
    """Resolve and write targets into torchenv.lock; returns the names of the targets written."""
    from .projectlock import project_lock

    project_dir = Path(project_dir).resolve()
    with project_lock(project_dir, ui):
        return _run_locked(project_dir, args, ui)


def _run_locked(project_dir: Path, args: argparse.Namespace, ui: "Ui") -> list[str]:
    from ..commands._options import intent_from_args
    from ..lock.diff import diff_targets
    from ..lock.io import read_lock, write_lock
    from ..lock.model import LOCK_FILE
    from . import noop, requirements as reqmod
    from ..backends import make_backend
    from .project_install import lock_entry
    from .up import make_plan, new_lockfile

    intent = intent_from_args(args)
    reqs, warnings = reqmod.gather(intent, project_dir)
    for w in warnings:
        ui.warn(w)
    lock_path = project_dir / LOCK_FILE
    lock = read_lock(lock_path) if lock_path.exists() else None
    env = noop.env_path_for(intent, project_dir)
    specs = [parse_target(t) for t in (getattr(args, "target", None) or [])]
    plans = []
    if not specs:
        from ..cluster.hooks import cluster_plans

        with ui.progress("planning (probe + resolve)"):
            plans.extend(cluster_plans(intent, args) or [make_plan(intent, args)])
    else:
        from ..resolve.resolver import resolve

        pythons = [intent.torch.python] if intent.torch.python else sorted(
            {t.python for t in (lock.targets if lock else ())})
        if not pythons:
            from ..commands._options import machine_from_args

            pythons = machine_from_args(args).python_versions()
        for spec in specs:
            plan = resolve(_target_intent(intent, spec), assumed_machine(spec, pythons), sources_overrides=args)
            if plan.target_name != spec.name:
                raise IntentError(f"target {spec.name} resolved to {plan.target_name}", key="--target",
                                  hint="the knowledge base maps this OS/arch/tier to another build; "
                                       f"lock {plan.target_name} instead")
            plans.append(plan)
    written = []
    for plan in plans:
        reqmod.check_against_plan(reqs, plan)
        backend = make_backend(plan=plan, env_path=env, ui=ui)
        with ui.progress(f"locking {plan.target_name} ({plan.installer})"):
            target = backend.lock_target(requirements=reqmod.as_lines(reqs))
        old = lock.target(target.name) if lock is not None else None
        for line in diff_targets(old, target):
            ui.info(f"    {line}")
        lock = new_lockfile(lock, intent, reqs, target, plan, ui, lock_entry(project_dir))
        written.append(target.name)
    write_lock(lock_path, lock)
    ui.step(f"wrote {lock_path} ({', '.join(written)}; targets now: {', '.join(t.name for t in lock.targets)})")
    return written
