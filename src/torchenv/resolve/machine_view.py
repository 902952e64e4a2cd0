"""What the resolver needs to know about a machine, derived once: platform key, mode, GPUs with a CC.

Why: the Machine dataclass records what the probe saw (a GPU may lack a compute capability,
macOS arm64 may say "aarch64", GPUs may be hidden by CUDA_VISIBLE_DEVICES). The resolver
should decide on one normalised view and explain the normalisations as warnings.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from .. import kb
from ..machine import Machine
from ..reasons import MACHINE, Joined, Reason, reason

_ARCH = {"amd64": "x86_64", "x64": "x86_64", "arm64": "aarch64", "aarch64": "aarch64", "x86_64": "x86_64"}


def platform_key(machine: Machine) -> str:
    """``linux-x86_64`` / ``linux-aarch64`` / ``windows-x86_64`` / ``macos-arm64`` / ``macos-x86_64``."""
    arch = _ARCH.get(machine.arch.lower(), machine.arch.lower())
    if machine.os == "macos" and arch == "aarch64":
        arch = "arm64"
    return f"{machine.os}-{arch}"


@dataclass(frozen=True)
class GpuView:
    name: str
    cc: str | None
    jetson: bool
    assumed_index: int | None = None      # position among several assumed GPUs (None: one, or a real GPU)

    @property
    def label(self) -> str:
        """``GeForce GTX 1080 Ti`` (vendor prefix dropped: every GPU here is NVIDIA); assumed GPUs are told
        apart by number when there are several."""
        if self.name.startswith("assumed GPU"):
            return (reason("gpu.assumed", MACHINE) if self.assumed_index is None
                    else reason("gpu.assumed_n", MACHINE, number=self.assumed_index + 1))
        name = self.name[7:] if self.name.startswith("NVIDIA ") else self.name
        return name or "GPU"

    def describe(self) -> Reason:
        if not self.cc:
            return reason("gpu.cc_unknown", MACHINE, gpu=self.label)
        return reason("gpu.described", MACHINE, gpu=self.label, sm=self.cc.replace(".", ""),
                      family=kb.gpu_family(self.cc))


@dataclass(frozen=True)
class MachineView:
    platform: str
    driver_os: str                    # linux | windows (WSL reports the Windows host driver)
    mode: str                         # cuda | rocm | cpu | mps
    driver: str | None
    gpus: tuple[GpuView, ...]
    gfx: tuple[str, ...] = ()
    glibc: str | None = None
    warnings: tuple[Reason, ...] = field(default=())

    def summary(self) -> Reason:
        if self.mode == "cuda":
            gpus = Joined(tuple(g.describe() for g in self.gpus))
            driver = (reason("machine.driver", MACHINE, driver=self.driver) if self.driver
                      else reason("machine.driver_unknown", MACHINE))
            return reason("machine.gpus" if len(self.gpus) != 1 else "machine.gpu", MACHINE, platform=self.platform,
                          driver_text=driver, count=len(self.gpus), gpus=gpus)
        if self.mode == "rocm":
            return reason("machine.rocm", MACHINE, platform=self.platform, gfx=", ".join(self.gfx))
        if self.mode == "mps":
            return reason("machine.mps", MACHINE, platform=self.platform)
        return reason("machine.no_gpu", MACHINE, platform=self.platform)


def _gpu_views(machine: Machine, warnings: list[Reason]) -> list[GpuView]:
    """Each GPU with its compute capability (from the GPU table when the probe had none; a warning says which)."""
    gpus = []
    for g in machine.gpus:
        cc = g.compute_capability or kb.gpu_cc(g.name)
        if not g.compute_capability:
            warnings.append(reason("warn.cc_from_table", MACHINE, gpu=g.name, cc=cc) if cc else
                            reason("warn.cc_unknown", MACHINE, gpu=g.name))
        gpus.append(GpuView(name=g.name or f"GPU {g.index}", cc=cc, jetson=kb.is_jetson(cc, g.name or "")))
    assumed = [i for i, g in enumerate(gpus) if g.name.startswith("assumed GPU")]
    if len(assumed) > 1:
        for n, i in enumerate(assumed):
            gpus[i] = replace(gpus[i], assumed_index=n)
    return gpus


def _mode(machine: Machine, platform: str, gpus: list[GpuView]) -> str:
    """cuda | rocm | cpu | mps: what the build is planned for."""
    if machine.os == "macos":
        return "mps" if platform == "macos-arm64" else "cpu"
    if gpus:
        return "cuda"
    if machine.rocm and machine.rocm.gfx:
        return "rocm"
    return "cpu"


def _hidden_gpus_warning(machine: Machine) -> Reason | None:
    """Why a machine with an NVIDIA driver gets a CPU plan (its GPUs hidden, or none visible)."""
    if machine.nvidia is None or not machine.nvidia.driver:
        return None
    hidden = machine.nvidia.hidden_by_cuda_visible_devices
    if machine.cuda_visible_devices is not None or hidden:
        why = reason("machine.hidden_by_cvd", MACHINE, value=repr(machine.cuda_visible_devices),
                     count=hidden or reason("words.all"))
    else:
        why = reason("machine.no_gpu_visible", MACHINE)
    return reason("warn.driver_but_hidden", MACHINE, driver=machine.nvidia.driver, why=why)


def _falls_back_to_cpu(machine: Machine, gpus: list[GpuView]) -> bool:
    """The ``cpu`` mode reached because nothing else applied (not macOS, no CUDA GPU, no ROCm GPU)."""
    return machine.os != "macos" and not gpus and not (machine.rocm and machine.rocm.gfx)


def view(machine: Machine) -> MachineView:
    """The resolver's view of ``machine``; each normalisation it makes (a capability taken from the GPU table,
    GPUs hidden by CUDA_VISIBLE_DEVICES, an unknown driver) is said as a warning."""
    warnings: list[Reason] = []
    platform = platform_key(machine)
    driver_os = "windows" if machine.os == "windows" or machine.wsl else "linux"
    gpus = _gpu_views(machine, warnings)
    mode = _mode(machine, platform, gpus)
    hidden = _hidden_gpus_warning(machine) if _falls_back_to_cpu(machine, gpus) else None
    if hidden:
        warnings.append(hidden)
    if mode == "cuda" and machine.driver is None:
        warnings.append(reason("warn.driver_unknown", MACHINE))
    return MachineView(platform=platform, driver_os=driver_os, mode=mode, driver=machine.driver,
                       gpus=tuple(gpus), gfx=tuple(machine.rocm.gfx) if machine.rocm else (),
                       glibc=machine.glibc, warnings=tuple(warnings))
