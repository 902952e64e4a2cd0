"""Combine the NVIDIA sources into one NvidiaInfo, turning every failure into a finding.

Why this order: NVML is exact and fast; nvidia-smi is the same library behind a process (it
fails the same way, but exists where pynvml is not installed); the kernel module version
survives a broken user space. A source that fails says why in ``findings`` and the next is
tried; nothing here raises for a missing or broken driver.
"""
from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from ...machine import Gpu, NvidiaInfo
from ...reasons import MACHINE, Joined, Reason, reason
from ..context import ProbeContext
from .driver_cuda import cuda_for_driver
from .kernel import KernelModule, probe_kernel_module

if TYPE_CHECKING:
    from pathlib import Path


def _evidence_of_driver(ctx: ProbeContext, kmod: KernelModule | None, smi: object) -> bool:
    """Worth asking NVML at all? (Loading pynvml costs time; on a CPU box it can only fail.)"""
    return bool(kmod or smi or ctx.system == "Windows"
                or ctx.exists("/dev/nvidiactl") or ctx.exists("/usr/lib/wsl/lib/libnvidia-ml.so.1"))


def probe_nvidia(ctx: ProbeContext, nvml_module: object = None) -> NvidiaInfo | None:
    """``nvml_module``: None = pynvml on a real root (when a driver could answer); False = skip NVML;
    True = pynvml always; any other object = use it as the pynvml module (tests inject fakes)."""
    if ctx.system == "Darwin":
        return None
    from ..osinfo import is_wsl2
    from .smi import find_nvidia_smi

    # WSL2 runs the Windows driver, and nvidia-smi there reports its Windows version number (546.80)
    os_name = "windows" if ctx.system == "Windows" or (ctx.system == "Linux" and is_wsl2(ctx)) else "linux"
    kmod = probe_kernel_module(ctx)
    smi_path = find_nvidia_smi(ctx)

    nvml_error: str | None = None
    if _nvml_wanted(ctx, nvml_module, kmod, smi_path):
        found, nvml_error = _from_nvml(ctx, nvml_module, kmod, smi_path, os_name)
        if found is not None:
            return found
    smi_error: str | None = None
    if smi_path is not None:
        found, smi_error = _from_smi(ctx, smi_path, kmod, os_name, nvml_error)
        if found is not None:
            return found

    return _no_usable_driver(ctx, kmod, nvml_error, smi_error, os_name)


def _no_usable_driver(ctx: ProbeContext, kmod: KernelModule | None, nvml_error: str | None,
                      smi_error: str | None, os_name: str) -> NvidiaInfo | None:
    """Neither NVML nor nvidia-smi listed the GPUs: the kernel module's driver version alone, else notes on why
    (and on NVIDIA GPUs the PCI bus shows without a driver)."""
    said = [reason("probe.nvml_failed", MACHINE, error=nvml_error) if nvml_error else None,
            smi_error if smi_error else (reason("probe.no_smi", MACHINE) if kmod else None)]
    why = Joined(tuple(w for w in said if w), "; ")
    if kmod:
        ctx.note(reason("probe.module_without_tools", MACHINE, version=kmod.version,
                        why=why if why.items else reason("probe.no_tool_listed", MACHINE)))
        return NvidiaInfo(driver=kmod.version, cuda_driver_version=cuda_for_driver(kmod.version, os_name),
                          gpus=[], source=kmod.source)
    if why.items:
        ctx.note(reason("probe.no_driver", MACHINE, why=why))
    from .pci import count_nvidia_display_devices

    if ctx.system == "Linux" and (n := count_nvidia_display_devices(ctx)):
        ctx.note(reason("probe.pci_without_driver", MACHINE, count=n))
    return None


def _nvml_wanted(ctx: ProbeContext, nvml_module: object, kmod: KernelModule | None, smi_path: Path | None) -> bool:
    if nvml_module is None:            # the real pynvml, only where a driver could answer
        return bool(ctx.real and _evidence_of_driver(ctx, kmod, smi_path))
    return nvml_module is not False


def _from_nvml(ctx: ProbeContext, nvml_module: object, kmod: KernelModule | None, smi_path: Path | None,
               os_name: str) -> tuple[NvidiaInfo | None, str | None]:
    """The first fallback: NVML. ``(info, None)``, or ``(None, why it failed)`` (``None`` when simply absent)."""
    from .nvml import NvmlFailed, load_pynvml, read_nvml

    try:
        report = read_nvml(load_pynvml() if nvml_module in (None, True) else nvml_module)
    except NvmlFailed as exc:
        return None, (None if exc.absent and not kmod and not smi_path else exc.reason)
    for problem in report.problems:
        ctx.note(problem)
    if kmod and report.driver and kmod.version != report.driver:
        ctx.note(reason("probe.reboot_pending", MACHINE, version=kmod.version, driver=report.driver))
    cuda = report.cuda_driver_version or cuda_for_driver(report.driver, os_name)
    return _finish(ctx, report.driver, cuda, report.gpus, "nvml", missing_cc_reason=reason("probe.nvml_no_cc", MACHINE)), None


def _from_smi(ctx: ProbeContext, smi_path: Path, kmod: KernelModule | None, os_name: str,
              nvml_error: str | None) -> tuple[NvidiaInfo | None, str | None]:
    """The second fallback: nvidia-smi. ``(info, None)`` or ``(None, why it failed)``."""
    from .smi import SmiFailed, query_gpus

    try:
        smi = query_gpus(ctx, smi_path)
    except SmiFailed as exc:
        return None, exc.reason
    for problem in smi.problems:
        ctx.note(problem)
    if nvml_error:
        ctx.note(reason("probe.nvml_then_smi", MACHINE, error=nvml_error))
    driver = smi.driver or (kmod.version if kmod else None)
    no_cc = reason("probe.smi_old", MACHINE, driver=driver) if "compute_cap" in smi.missing_fields \
        else reason("probe.smi_no_cc", MACHINE)
    return _finish(ctx, driver, cuda_for_driver(driver, os_name), smi.gpus, "nvidia-smi",
                   missing_cc_reason=no_cc), None


def _finish(ctx: ProbeContext, driver: str | None, cuda: str | None, gpus: list[Gpu], source: str, *,
            missing_cc_reason: Reason) -> NvidiaInfo:
    """Fill unknown compute capabilities from the GPU name table, apply CUDA_VISIBLE_DEVICES,
    and note what is still unknown."""
    from .visible import apply_visible_devices

    if not gpus:
        ctx.note(reason("probe.driver_no_gpu", MACHINE, installed=driver or reason("probe.unknown_version", MACHINE)))
    filled: list[Gpu] = []
    for gpu in gpus:
        if gpu.compute_capability is None:
            from ..kb_lookup import gpu_cc

            cc = gpu_cc(gpu.name)
            if cc:
                gpu = dataclasses.replace(gpu, compute_capability=cc)
        if gpu.compute_capability is None:
            ctx.note(reason("probe.cc_unknown", MACHINE, index=gpu.index, name=gpu.name, reason=missing_cc_reason))
        filled.append(gpu)
    visibility = apply_visible_devices(filled, ctx.environ.get("CUDA_VISIBLE_DEVICES"))
    for note in visibility.notes:
        ctx.note(note)
    return NvidiaInfo(driver=driver, cuda_driver_version=cuda, gpus=visibility.gpus, source=source,
                      hidden_by_cuda_visible_devices=visibility.hidden)
