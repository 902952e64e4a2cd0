"""What the resolver needs to know about a machine, derived once: platform key, mode, GPUs with a CC.

Why: the Machine dataclass records what the probe saw (a GPU may lack a compute capability,
macOS arm64 may say "aarch64", GPUs may be hidden by CUDA_VISIBLE_DEVICES). The resolver
should decide on one normalised view and explain the normalisations as warnings.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from .. import kb
from ..machine import Machine

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
            return "the assumed GPU" if self.assumed_index is None else f"assumed GPU {self.assumed_index + 1}"
        name = self.name[7:] if self.name.startswith("NVIDIA ") else self.name
        return name or "GPU"

    def describe(self) -> str:
        if not self.cc:
            return f"{self.label} (compute capability unknown)"
        return f"{self.label} (sm_{self.cc.replace('.', '')}, {kb.gpu_family(self.cc)})"


@dataclass(frozen=True)
class MachineView:
    platform: str
    driver_os: str                    # linux | windows (WSL reports the Windows host driver)
    mode: str                         # cuda | rocm | cpu | mps
    driver: str | None
    gpus: tuple[GpuView, ...]
    gfx: tuple[str, ...] = ()
    glibc: str | None = None
    warnings: tuple[str, ...] = field(default=())

    def summary(self) -> str:
        if self.mode == "cuda":
            gpus = ", ".join(g.describe() for g in self.gpus)
            driver = f"NVIDIA driver {self.driver}" if self.driver else "NVIDIA driver version unknown"
            return f"machine: {self.platform}, {driver}, {len(self.gpus)} GPU{'s' if len(self.gpus) != 1 else ''}: {gpus}"
        if self.mode == "rocm":
            return f"machine: {self.platform}, AMD ROCm GPU(s): {', '.join(self.gfx)}"
        if self.mode == "mps":
            return f"machine: {self.platform} (Apple silicon: the cpu build includes MPS)"
        return f"machine: {self.platform}, no usable GPU"


def _gpu_views(machine: Machine, warnings: list[str]) -> list[GpuView]:
    """Each GPU with its compute capability (from the GPU table when the probe had none; a warning says which)."""
    gpus = []
    for g in machine.gpus:
        cc = g.compute_capability or kb.gpu_cc(g.name)
        if not g.compute_capability:
            if cc:
                warnings.append(f"{g.name}: compute capability not reported; {cc} taken from the GPU table "
                                "(recipes/gpus.toml)")
            else:
                warnings.append(f"{g.name}: compute capability unknown, so its compiled-code check is skipped; "
                                "give it with --assume-gpu X.Y")
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


def _hidden_gpus_warning(machine: Machine) -> str | None:
    """Why a machine with an NVIDIA driver gets a CPU plan (its GPUs hidden, or none visible)."""
    if machine.nvidia is None or not machine.nvidia.driver:
        return None
    hidden = machine.nvidia.hidden_by_cuda_visible_devices
    if machine.cuda_visible_devices is not None or hidden:
        why = f"CUDA_VISIBLE_DEVICES={machine.cuda_visible_devices!r} hides {hidden or 'all'} GPU(s)"
    else:
        why = "no GPU is visible"
    return (f"an NVIDIA driver ({machine.nvidia.driver}) is installed but {why}: planning a CPU "
            "build; unset CUDA_VISIBLE_DEVICES (or pass --cuda) to plan for the GPUs")


def _falls_back_to_cpu(machine: Machine, gpus: list[GpuView]) -> bool:
    """The ``cpu`` mode reached because nothing else applied (not macOS, no CUDA GPU, no ROCm GPU)."""
    return machine.os != "macos" and not gpus and not (machine.rocm and machine.rocm.gfx)


def view(machine: Machine) -> MachineView:
    warnings: list[str] = []
    platform = platform_key(machine)
    driver_os = "windows" if machine.os == "windows" or machine.wsl else "linux"
    gpus = _gpu_views(machine, warnings)
    mode = _mode(machine, platform, gpus)
    hidden = _hidden_gpus_warning(machine) if _falls_back_to_cpu(machine, gpus) else None
    if hidden:
        warnings.append(hidden)
    if mode == "cuda" and machine.driver is None:
        warnings.append("NVIDIA driver version unknown: the driver floor of the tier could not be checked")
    return MachineView(platform=platform, driver_os=driver_os, mode=mode, driver=machine.driver,
                       gpus=tuple(gpus), gfx=tuple(machine.rocm.gfx) if machine.rocm else (),
                       glibc=machine.glibc, warnings=tuple(warnings))
