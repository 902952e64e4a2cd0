"""Machines and plans for conda tests, built directly (no probe, no resolver)."""
from __future__ import annotations

from torchenv.intent.model import CondaIntent, EnvIntent, Intent, TorchIntent
from torchenv.machine import Gpu, Machine, NvidiaInfo
from torchenv.resolve.plan import Plan, PlannedPackage
from torchenv.sources.model import Sources, TorchSource


def gpu_machine(cuda: str = "12.9", driver: str = "575.57.08") -> Machine:
    return Machine(os="linux", arch="x86_64", glibc="2.36",
                   nvidia=NvidiaInfo(driver=driver, cuda_driver_version=cuda,
                                     gpus=[Gpu("NVIDIA RTX A4000", "8.6")], source="assumed"), assumed=True)


def cpu_machine() -> Machine:
    return Machine(os="linux", arch="x86_64", glibc="2.36", assumed=True)


def make_plan(machine: Machine, *, channels: tuple[str, ...], tier: str = "cu126", python: str = "3.12",
              torch_source: str = "wheels", packages: tuple[str, ...] = (), with_: tuple[str, ...] = (),
              torch: str = "2.5.1", sources: Sources | None = None) -> Plan:
    intent = Intent(torch=TorchIntent(with_=with_), env=EnvIntent(path=".conda-env", backend="conda"),
                    conda=CondaIntent(channels=channels, packages=packages, torch_source=torch_source))
    local = f"+{tier}" if tier != "cpu" else "+cpu"
    cuda = f"{tier[2:-1]}.{tier[-1]}" if tier.startswith("cu") else None
    return Plan(torch_version=torch, tier=tier, tier_status="stable", cuda_version=cuda, python=python,
                backend="conda", installer="uv", platform=machine.platform_key,
                packages=(PlannedPackage("torch", f"{torch}{local}", "torch-index", "tier index"),),
                pypi_default_build=False, reasons=(), machine=machine, intent=intent,
                sources=sources or Sources(torch=(TorchSource(f"https://download.pytorch.org/whl/{tier}"),)))
