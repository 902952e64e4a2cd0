"""Apple silicon: the chip name and whether torch's MPS backend can exist (macOS arm64).

Why only arm64: PyTorch builds for macOS x86_64 stopped at 2.2 and MPS needs Apple GPUs.
"""
from __future__ import annotations

import subprocess

from ..machine import AppleInfo
from ..reasons import MACHINE, reason
from .context import ProbeContext, describe_failure

_TIMEOUT_S = 2.0


def probe_apple(ctx: ProbeContext, arch: str) -> AppleInfo | None:
    if ctx.system != "Darwin" or arch != "arm64":
        return None
    chip: str | None = None
    try:
        proc = ctx.run(["sysctl", "-n", "machdep.cpu.brand_string"], _TIMEOUT_S)
        if proc.returncode == 0 and proc.stdout.strip():
            chip = proc.stdout.strip()
    except (OSError, subprocess.TimeoutExpired) as exc:
        ctx.note(reason("probe.apple_chip_unknown", MACHINE, failure=describe_failure("sysctl", exc, _TIMEOUT_S)))
    return AppleInfo(chip=chip, mps=True)
