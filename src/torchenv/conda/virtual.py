"""Virtual packages (``__cuda``, ``__glibc``, ...) taken from the Machine, not from this host.

Why: the probe (or ``--assume-*`` / ``--machine FILE``) describes the *target* machine, so a
GPU-less CI host can build and lock a CUDA env. The solver sees exactly these, and the lock
target records them, so a later reader knows which machine the solve was for.
Format: ``name=version`` or ``name=version=build`` (conda's ``CONDA_OVERRIDE_*`` words).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..machine import Machine

# Versions conda tools assume when a machine file cannot tell (pixi's and conda-lock's defaults).
DEFAULT_LINUX_KERNEL = "5.10"
DEFAULT_GLIBC = "2.28"
DEFAULT_MACOS = "11.0"

_ARCHSPEC = {"x86_64": "x86_64", "aarch64": "aarch64", "arm64": "arm64"}


def cuda_driver_version(machine: Machine) -> str | None:
    """Highest CUDA the driver supports, as ``__cuda`` wants it (``12.9``), or None without a GPU."""
    nv = machine.nvidia
    if nv is None or not nv.cuda_driver_version:
        return None
    return ".".join(nv.cuda_driver_version.split(".")[:2])


def virtual_packages(machine: Machine) -> tuple[str, ...]:
    """The virtual packages a solver for ``machine`` must see."""
    out: list[str] = []
    if machine.os in ("linux", "macos"):
        out.append("__unix=0=0")
    if machine.os == "linux":
        out.append(f"__linux={DEFAULT_LINUX_KERNEL}=0")
        out.append(f"__glibc={machine.glibc or DEFAULT_GLIBC}=0")
    elif machine.os == "macos":
        out.append(f"__osx={DEFAULT_MACOS}=0")
    elif machine.os == "windows":
        out.append("__win=0=0")
    cuda = cuda_driver_version(machine)
    if cuda and machine.os in ("linux", "windows"):
        out.append(f"__cuda={cuda}=0")
    out.append(f"__archspec=1={_ARCHSPEC.get(machine.arch, machine.arch)}")
    return tuple(out)


def parse(entry: str) -> tuple[str, str, str]:
    """``"__cuda=12.9"`` -> ``("__cuda", "12.9", "0")``."""
    name, _, rest = entry.partition("=")
    version, _, build = rest.partition("=")
    return name, version or "0", build or "0"


def describe(entries: tuple[str, ...] | list[str]) -> str:
    """Short human form for reasons: ``__cuda=12.9, __glibc=2.36``."""
    return ", ".join("=".join(parse(e)[:2]) for e in entries if not e.startswith(("__unix", "__archspec")))
