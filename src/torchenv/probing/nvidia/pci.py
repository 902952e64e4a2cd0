"""NVIDIA display devices on the PCI bus, whatever the driver state.

Why: "no GPU" and "a GPU with no working driver" need opposite advice. Reading
``/sys/bus/pci/devices/*/{vendor,class}`` is cheap and needs no NVIDIA software at all.
"""
from __future__ import annotations

from ..context import ProbeContext

NVIDIA_VENDOR = "0x10de"
PCI_DEVICES = "/sys/bus/pci/devices"


def count_nvidia_display_devices(ctx: ProbeContext) -> int:
    """Devices with vendor 0x10de and base class 0x03 (VGA or 3D controller); audio functions excluded."""
    base = ctx.path(PCI_DEVICES)
    try:
        entries = list(base.iterdir())
    except OSError:
        return 0
    count = 0
    for dev in entries:
        try:
            vendor = (dev / "vendor").read_text().strip().lower()
            if vendor != NVIDIA_VENDOR:
                continue
            if (dev / "class").read_text().strip().lower().startswith("0x03"):
                count += 1
        except OSError:
            continue
    return count
