"""AMD GPUs via the KFD topology in sysfs, and the installed ROCm version.

Why sysfs rather than ``rocm_agent_enumerator``: the kernel driver lists each GPU's gfx target
even when no ROCm user space is installed (the case torch's ROCm wheels cover, since they bring
their own runtime). Each ``/sys/class/kfd/kfd/topology/nodes/<n>/properties`` has a line
``gfx_target_version 110000`` = major*10000 + minor*100 + stepping (CPU nodes say 0), written as
``gfx`` + major + minor and stepping in hex: 110000 → gfx1100, 90010 → gfx90a, 90402 → gfx942.
"""
from __future__ import annotations

import re

from ..machine import RocmInfo
from ..reasons import MACHINE, reason
from .context import ProbeContext

NODES = "/sys/class/kfd/kfd/topology/nodes"
VERSION_FILE = "/opt/rocm/.info/version"


def gfx_name(target_version: int) -> str | None:
    if target_version <= 0:
        return None
    major, minor, step = target_version // 10000, (target_version // 100) % 100, target_version % 100
    return f"gfx{major}{minor:x}{step:x}"


def _node_gfx(properties: str) -> str | None:
    for line in properties.splitlines():
        key, _, value = line.partition(" ")
        if key == "gfx_target_version" and value.strip().isdigit():
            return gfx_name(int(value.strip()))
    return None


def _node_order(name: str) -> tuple[int, str]:
    return (int(name), "") if name.isdigit() else (1 << 30, name)


def probe_rocm(ctx: ProbeContext) -> RocmInfo | None:
    """gfx targets of all AMD GPU nodes (in node order) and the ROCm version; None when neither exists."""
    gfx: list[str] = []
    try:
        nodes = sorted(ctx.path(NODES).iterdir(), key=lambda p: _node_order(p.name))
    except OSError:
        nodes = []
    for node in nodes:
        try:
            name = _node_gfx((node / "properties").read_text(errors="replace"))
        except OSError:
            continue
        if name:
            gfx.append(name)
    raw = ctx.read_text(VERSION_FILE)
    match = re.match(r"\s*(\d+\.\d+(?:\.\d+)?)", raw or "")
    version = match.group(1) if match else None
    if not gfx and not version:
        return None
    override = ctx.environ.get("HSA_OVERRIDE_GFX_VERSION")
    if gfx and override:
        ctx.note(reason("probe.hsa_override", MACHINE, override=override, gfx=", ".join(gfx)))
    if version and not gfx:
        ctx.note(reason("probe.rocm_no_gpu", MACHINE, version=version))
    return RocmInfo(version=version, gfx=gfx)
