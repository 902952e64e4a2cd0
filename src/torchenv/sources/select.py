"""Decide the sources for one plan: torch index/mirrors for the tier, the PyPI side, local wheelhouses.

Why here and not in engines: the supply-chain rule is a *decision* recorded in the plan
(with reasons), not something each installer re-derives.
(Mirror presets and the configuration chain extend this in ``sources.mirrors``.)
"""
from __future__ import annotations

from typing import Any

from .model import OFFICIAL_TORCH_BASE, Sources, TorchSource
from .pipconfig import local_dirs, read_pip_config


def select_sources(intent: Any, *, tier: str, platform: str, overrides: Any = None) -> Sources:
    pypi = read_pip_config()
    torch = (TorchSource(url=f"{OFFICIAL_TORCH_BASE}/{tier}", layout="index", name="official"),)
    wheelhouses = tuple(str(p) for p in local_dirs(pypi.find_links))
    reasons = [f"torch family from {torch[0].url} (the official index of tier {tier})",
               f"other packages from the PyPI side: {pypi.origin}"]
    if wheelhouses:
        reasons.append("local wheel folders searched first for exact files (hash-checked): "
                       + ", ".join(wheelhouses))
    return Sources(torch=torch, pypi=pypi, wheelhouses=wheelhouses, reasons=tuple(reasons))
