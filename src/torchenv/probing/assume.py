"""The machine a command plans for: probed, loaded from ``--machine FILE``, or built from ``--assume-*``.

Why an assumed machine ignores this host (except its Pythons): planning for another machine must
give the same Plan wherever it runs, so nothing probed here may leak in. Defaults for what no
flag says: ``linux``/``x86_64`` (``macos`` → ``arm64``), glibc unknown (None), no GPU.
Pythons: ``--assume-python`` gives versions only (no path on this host); without it the real
interpreters found here are listed (Pythons only: no GPU probing), so ``up`` can still build
the env on this machine.

``--assume-gpu`` without a driver (from ``--assume-driver`` or the ``--machine`` file) is refused:
the driver decides which CUDA builds can run at all (cu130 needs R580+), and silently assuming
the newest one would produce plans that fail on exactly the older machines people plan for.

Import cost matters: ``torchenv plan`` with an assumed machine must start in < 0.3 s, so this
path imports neither pynvml nor any probe source except ``pythons``.
"""
from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING, Any

from ..errors import MachineFileError
from ..i18n import _
from ..machine import AppleInfo, Gpu, Machine, NvidiaInfo, PythonInstall, RocmInfo
from ..reasons import MACHINE, reason

if TYPE_CHECKING:
    from ..options import MachineSpec

DEFAULT_OS = "linux"
DEFAULT_ARCH = {"linux": "x86_64", "windows": "x86_64", "macos": "arm64"}
_OSES = ("linux", "windows", "macos")
_CC = re.compile(r"^(\d{1,2})\.(\d)$")
_PYTHON = re.compile(r"^3\.\d{1,2}(?:\.\d{1,2})?t?$")      # "3.14t": a free-threaded interpreter
_GLIBC = re.compile(r"^2\.\d{1,2}$")
_GFX = re.compile(r"^gfx[0-9]{1,2}[0-9a-f]{2}$")


def machine_for(spec: MachineSpec, *, toolkits: bool = True) -> Machine:
    """``--machine FILE`` (+ any ``--assume-*`` on top), else ``--assume-*`` alone, else the probe
    (``toolkits=False``: without the CUDA toolkits, which no plan reads)."""
    if spec.machine:
        return apply_assumptions(Machine.load(spec.machine), spec, fresh=False)
    if spec.has_assumptions:
        os_name = spec.assume_os or DEFAULT_OS
        base = Machine(os=os_name, arch=DEFAULT_ARCH.get(os_name, "x86_64"), assumed=True)
        return apply_assumptions(base, spec, fresh=True)
    from . import probe_machine

    return probe_machine(toolkits=toolkits)


def _bad(flag: str, value: object, problem: str, hint: str) -> MachineFileError:
    return MachineFileError(f"{flag} {value}: {problem}", hint=hint)


def _arch_for(os_name: str, arch: str) -> str:
    """macOS spells 64-bit ARM ``arm64``; Linux and Windows ``aarch64``."""
    if os_name == "macos" and arch == "aarch64":
        return "arm64"
    if os_name != "macos" and arch == "arm64":
        return "aarch64"
    return arch


def _driver_flag(value: str) -> str:
    from .nvidia.driver_cuda import cuda_for_driver, is_driver_version

    value = value.strip()
    if not is_driver_version(value):
        raise _bad("--assume-driver", value, _("not an NVIDIA driver version"),
                   _("write it as nvidia-smi shows it, e.g. --assume-driver 550.54.14 (or just 550)"))
    if cuda_for_driver(value) is None:
        raise _bad("--assume-driver", value, _("older than any driver CUDA 10.1 supports"),
                   _("torch's CUDA builds need driver 418.39 or newer; use --assume-no-gpu for a CPU plan"))
    return value


def _gpu_flag(value: str, index: int) -> Gpu:
    from .kb_lookup import representative_gpu

    match = _CC.match(value.strip())
    if not match or int(match.group(1)) < 1:
        raise _bad("--assume-gpu", value, _("not a compute capability"),
                   _("write MAJOR.MINOR, e.g. --assume-gpu 8.6 (RTX 30xx, A10) or 9.0 (H100); "
                     "repeat the flag once per GPU"))
    cc = f"{int(match.group(1))}.{match.group(2)}"
    example = representative_gpu(cc)
    sm = f"sm_{cc.replace('.', '')}"
    name = f"assumed GPU ({sm}, like {example})" if example else f"assumed GPU ({sm})"
    return Gpu(name=name, compute_capability=cc, index=index)


def _python_flag(value: str) -> PythonInstall:
    if not _PYTHON.match(value.strip()):
        raise _bad("--assume-python", value, _("not a Python 3 version"),
                   _("write X.Y, e.g. --assume-python 3.11 or 3.14t for a free-threaded one (repeat for each "
                     "Python the target has)"))
    return PythonInstall(version=value.strip(), path="", source="assumed")


def _platform(base: Machine, spec: MachineSpec) -> tuple[str, str]:
    """(OS, architecture) of the assumed machine; the base machine's arch only when the OS is unchanged."""
    os_name = spec.assume_os or base.os
    if os_name not in _OSES:
        raise _bad("--assume-os", os_name, _("unknown OS"), _("use linux, windows or macos"))
    arch = spec.assume_arch or (base.arch if os_name == base.os else DEFAULT_ARCH[os_name])
    if arch not in ("x86_64", "aarch64", "arm64"):
        raise _bad("--assume-arch", arch, _("unknown architecture"), _("use x86_64, aarch64 or arm64"))
    return os_name, _arch_for(os_name, arch)


def _linux_only(spec: MachineSpec, os_name: str) -> dict[str, Any]:
    """glibc, WSL and ROCm exist only on Linux: the assumed glibc, or these facts cleared for another OS."""
    glibc = spec.assume_glibc
    changes: dict[str, Any] = {}
    if glibc is not None:
        if not _GLIBC.match(glibc.strip()):
            raise _bad("--assume-glibc", glibc, _("not a glibc version"), _("write X.Y, e.g. --assume-glibc 2.28"))
        if os_name != "linux":
            raise _bad("--assume-glibc", glibc, _("glibc only exists on Linux (the assumed OS is {os})").format(
                os=os_name), _("drop --assume-glibc or use --assume-os linux"))
        changes["glibc"] = glibc.strip()
    if os_name != "linux":
        changes.update(glibc=None, wsl=False, rocm=None)
    return changes


def _apple(base: Machine, os_name: str, arch: str, fresh: bool) -> dict[str, Any]:
    """On an assumed Mac: the probed Apple facts when the base is this Mac, else MPS on arm64; none elsewhere."""
    if os_name == "macos":
        return {"apple": base.apple if base.os == "macos" and not fresh else (
            AppleInfo(chip=None, mps=True) if arch == "arm64" else None)}
    return {"apple": None} if base.apple is not None else {}


def _pythons(spec: MachineSpec, fresh: bool) -> dict[str, Any]:
    if spec.assume_python:
        return {"pythons": [_python_flag(v) for v in spec.assume_python]}
    if fresh:
        from . import probe_pythons_only

        return {"pythons": probe_pythons_only()}
    return {}


def apply_assumptions(base: Machine, spec: MachineSpec, *, fresh: bool) -> Machine:
    """Lay the ``--assume-*`` flags over ``base``. Raises MachineFileError (exit 2) naming the bad flag."""
    os_name, arch = _platform(base, spec)
    changes: dict[str, Any] = {"os": os_name, "arch": arch, "assumed": True}
    findings = list(base.findings)
    changes.update(_linux_only(spec, os_name))
    changes["nvidia"] = _assumed_nvidia(base, spec, os_name, findings)
    if spec.assume_no_gpu:
        changes["rocm"] = None
    if spec.assume_gfx:
        changes["rocm"] = _assumed_rocm(spec, os_name)
    changes.update(_apple(base, os_name, arch, fresh))
    changes.update(_pythons(spec, fresh))
    changes["findings"] = findings
    return dataclasses.replace(base, **changes)


def _assumed_rocm(spec: MachineSpec, os_name: str) -> RocmInfo:
    """AMD GPUs by gfx target: the fact ROCm wheels are checked against (their compiled gfx list)."""
    values = [v.strip().lower() for v in spec.assume_gfx]
    for value in values:
        if not _GFX.match(value):
            raise _bad("--assume-gfx", value, _("not an AMD gfx target"),
                       _("write it as rocminfo / rocm-smi show it, e.g. --assume-gfx gfx90a (MI200), gfx942 (MI300), "
                         "gfx1100 (RX 7900)"))
    if os_name != "linux" or spec.assume_no_gpu:
        raise _bad("--assume-gfx", values[0], _("ROCm torch wheels exist for Linux only") if os_name != "linux"
                   else _("contradicts --assume-no-gpu"), _("drop --assume-gfx, or use --assume-os linux"))
    return RocmInfo(version=None, gfx=values)


def _refuse_nvidia_flags(spec: MachineSpec, os_name: str) -> None:
    """--assume-driver/--assume-gpu contradict --assume-no-gpu, and mean nothing on macOS."""
    driver_flag, gpu_flags = spec.assume_driver, spec.assume_gpu
    if not (driver_flag or gpu_flags):
        return
    flag = "--assume-driver" if driver_flag else "--assume-gpu"
    if spec.assume_no_gpu:
        raise MachineFileError(_("--assume-no-gpu contradicts {flag}").format(flag=flag),
                               hint=_("drop one of them: a machine with no GPU has no GPU driver to assume"))
    if os_name == "macos":
        raise MachineFileError(_("{flag}: macOS has no NVIDIA CUDA support (the assumed OS is macos)").format(flag=flag),
                               hint=_("plan for macOS without GPU flags (torch uses MPS there), or use --assume-os "
                                      "linux"))


def _assumed_gpus(base: Machine, spec: MachineSpec, driver: str | None, findings: list[str]) -> list[Any]:
    """The GPUs from --assume-gpu (which needs a driver to plan against), else the base machine's."""
    if spec.assume_gpu:
        if not driver:
            raise MachineFileError(_("--assume-gpu {value} needs a driver version to plan against").format(
                                       value=spec.assume_gpu[0]),
                                   hint=_("add --assume-driver, e.g. --assume-driver 580.95.05 (the driver decides "
                                          "which CUDA builds can run at all)"))
        return [_gpu_flag(value, i) for i, value in enumerate(spec.assume_gpu)]
    gpus = list(base.nvidia.gpus) if base.nvidia else []
    if not gpus:
        findings.append(reason("probe.assumed_driver_only", MACHINE, driver=driver))
    return gpus


def _assumed_nvidia(base: Machine, spec: MachineSpec, os_name: str, findings: list[str]) -> NvidiaInfo | None:
    _refuse_nvidia_flags(spec, os_name)
    if spec.assume_no_gpu:
        return None
    driver_flag = spec.assume_driver
    if not (driver_flag or spec.assume_gpu):
        return base.nvidia if os_name != "macos" else None
    from .nvidia.driver_cuda import cuda_for_driver

    driver = _driver_flag(driver_flag) if driver_flag else (base.nvidia.driver if base.nvidia else None)
    gpus = _assumed_gpus(base, spec, driver, findings)
    cuda = cuda_for_driver(driver, os_name) if driver_flag else (
        base.nvidia.cuda_driver_version if base.nvidia else cuda_for_driver(driver, os_name))
    return NvidiaInfo(driver=driver, cuda_driver_version=cuda, gpus=gpus, source="assumed",
                      hidden_by_cuda_visible_devices=0)
