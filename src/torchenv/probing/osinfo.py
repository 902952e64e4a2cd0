"""OS, CPU architecture, glibc and WSL2: the platform half of a wheel tag.

Why normalise: Python reports ``AMD64`` on Windows, ``arm64`` on macOS and ``aarch64`` on
Linux for the same ISA; recipes and lock targets key on one spelling per platform
(``linux-aarch64``, ``macos-arm64``), so it is decided here once.
"""
from __future__ import annotations

import os
import platform
import re
from dataclasses import dataclass

from .context import ProbeContext

_OS = {"linux": "linux", "windows": "windows", "darwin": "macos"}
_ARCH = {"x86_64": "x86_64", "amd64": "x86_64", "x64": "x86_64",
         "aarch64": "aarch64", "arm64": "aarch64", "armv8": "aarch64", "armv8l": "aarch64"}


@dataclass(frozen=True)
class OsInfo:
    os: str
    arch: str
    glibc: str | None
    wsl: bool


def normalise_os(system: str) -> str:
    return _OS.get(system.lower(), system.lower() or "unknown")


def normalise_arch(machine: str, os_name: str) -> str:
    """``arm64`` is kept only for macOS (its wheel tag); elsewhere 64-bit ARM is ``aarch64``."""
    arch = _ARCH.get(machine.lower(), machine.lower() or "unknown")
    if os_name == "macos" and arch == "aarch64":
        return "arm64"
    return arch


def glibc_version(ctx: ProbeContext) -> str | None:
    """glibc of the running interpreter (musl and non-Linux: None). Only meaningful for the real root."""
    if not ctx.real:
        return None      # a fake tree has no libc to ask
    try:
        raw = os.confstr("CS_GNU_LIBC_VERSION") or ""      # "glibc 2.36"
    except (AttributeError, ValueError, OSError):
        raw = ""
    match = re.search(r"(\d+\.\d+)", raw)
    if match:
        return match.group(1)
    lib, version = platform.libc_ver()
    return version if lib == "glibc" and version else None


def is_wsl2(ctx: ProbeContext) -> bool:
    """WSL2: a Microsoft kernel *and* the Windows driver's user-space libraries mounted in."""
    version = (ctx.read_text("/proc/version") or "").lower()
    return "microsoft" in version and ctx.exists("/usr/lib/wsl/lib")


def probe_os(ctx: ProbeContext) -> OsInfo:
    os_name = normalise_os(ctx.system)
    arch = normalise_arch(ctx.machine, os_name)
    linux = os_name == "linux"
    return OsInfo(os=os_name, arch=arch,
                  glibc=glibc_version(ctx) if linux else None,
                  wsl=is_wsl2(ctx) if linux else False)
