"""The loaded NVIDIA kernel module's version, from sysfs or procfs: no library, no subprocess.

Why it matters even when NVML works: it is the one source that survives a broken user-space
install, so it lets a finding say "module 550.144.03 is loaded but NVML failed" instead of
"no GPU". Files: ``/sys/module/nvidia/version`` holds just the version; ``/proc/driver/nvidia/version``
holds a line such as ``NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.144.03  Release
Build ...`` or, before the open modules, ``NVRM version: NVIDIA UNIX x86_64 Kernel Module  470.82.01  Tue Oct 26 ...``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ...reasons import MACHINE, reason
from ..context import ProbeContext

SYSFS = "/sys/module/nvidia/version"
PROCFS = "/proc/driver/nvidia/version"

_VERSION_IN_LINE = re.compile(r"(?<![\w.])(\d{2,4}\.\d{1,3}(?:\.\d{1,3})?)(?![\w.])")


@dataclass(frozen=True)
class KernelModule:
    version: str
    source: str        # sysfs | proc


def parse_proc_version(text: str) -> str | None:
    """Driver version from ``/proc/driver/nvidia/version``: the first version-shaped word of the NVRM line.

    Works for the proprietary and the open module, any architecture word, single or double spacing,
    and never picks up the GCC version of the second line.
    """
    for line in text.splitlines():
        if line.startswith("NVRM version:"):
            match = _VERSION_IN_LINE.search(line.partition(":")[2])
            return match.group(1) if match else None
    return None


def parse_sysfs_version(text: str) -> str | None:
    value = text.strip()
    return value if _VERSION_IN_LINE.fullmatch(value) else None


def probe_kernel_module(ctx: ProbeContext) -> KernelModule | None:
    """The module version, or None when no NVIDIA module is loaded. Unparsable files become findings."""
    raw = ctx.read_text(SYSFS)
    if raw is not None:
        version = parse_sysfs_version(raw)
        if version:
            return KernelModule(version, "sysfs")
        ctx.note(reason("probe.sysfs_no_version", MACHINE, path=SYSFS, raw=repr(raw.strip()[:60])))
    raw = ctx.read_text(PROCFS)
    if raw is not None:
        version = parse_proc_version(raw)
        if version:
            return KernelModule(version, "proc")
        first = raw.strip().splitlines()[0][:80] if raw.strip() else ""
        ctx.note(reason("probe.procfs_unreadable", MACHINE, path=PROCFS, raw=repr(first)))
    return None
