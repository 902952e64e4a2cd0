"""What verify should expect, read from ``torchenv.lock`` and the env's state file.

Why separate from the checks: the lock is optional (a user may verify any env), the lock
reader may be absent in a partial install, and a lock holds several targets; choosing the
one this env was built from is a decision with its own rules:
``<env>/.torchenv/state.json`` names it, else the only target, else the one for this OS/arch.
"""
from __future__ import annotations

import json
import platform
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..lockfile.model import LockTarget
    from ..machine import Machine
    from ..probing.context import ProbeContext

TORCH_FAMILY = ("torch", "torchvision", "torchaudio")
CONDA_NAMES = {"pytorch": "torch"}   # conda package name -> import/dist name


@dataclass(frozen=True)
class Expectations:
    expected: dict[str, str] = field(default_factory=dict)
    target: str | None = None
    tier: str | None = None
    os: str | None = None
    notes: tuple[str, ...] = ()           # why there are no (or partial) expectations


def tier_cuda(tier: str) -> dict[str, str]:
    """``cu121`` -> {"cuda": "12.1"}; ``cu130`` -> {"cuda": "13.0"}; ``cpu`` -> {"cuda": "none"}."""
    if tier.startswith("cu") and tier[2:].isdigit() and len(tier) >= 4:
        digits = tier[2:]
        return {"cuda": f"{digits[:-1]}.{digits[-1]}"}
    if tier.startswith("rocm"):
        return {"hip": tier[4:]}
    if tier in ("cpu", "mps"):
        return {"cuda": "none"}
    return {}


def expected_from_target(target: LockTarget) -> dict[str, str]:
    out: dict[str, str] = {}
    for w in target.wheels:
        if w.name in TORCH_FAMILY:
            out[w.name] = w.version
    for c in target.conda:
        name = CONDA_NAMES.get(c.name, c.name)
        if name in TORCH_FAMILY:
            out.setdefault(name, c.version)
    if target.torch:
        out["torch"] = target.torch
    out.update(tier_cuda(target.tier))
    return out


def _state_target(env_prefix: Path) -> str | None:
    try:
        data = json.loads((env_prefix / ".torchenv" / "state.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data.get("target") if isinstance(data, dict) else None


def _this_platform() -> tuple[str, str]:
    import sys

    os_name = {"linux": "linux", "darwin": "macos", "win32": "windows"}.get(sys.platform, sys.platform)
    arch = platform.machine().lower()
    arch = {"amd64": "x86_64", "arm64": "arm64" if os_name == "macos" else "aarch64"}.get(arch, arch)
    return os_name, arch


def expectations(project_dir: Path, env_prefix: Path) -> Expectations:
    """Expectations from ``<project>/torchenv.lock``; empty (with a note) when there is none."""
    from ..lockfile.model import LOCK_FILE

    lock_path = Path(project_dir) / LOCK_FILE
    if not lock_path.is_file():
        return Expectations(notes=(f"no {LOCK_FILE}: versions are reported, not compared",))
    try:
        from ..lockfile.io import read_lock
    except ImportError:
        return Expectations(notes=("this torchenv cannot read lock files; versions are not compared",))
    lock = read_lock(lock_path)   # a malformed lock is the user's to fix: LockError names it
    wanted = _state_target(env_prefix)
    target = lock.target(wanted) if wanted else None
    if target is None and len(lock.targets) == 1:
        target = lock.targets[0]
    if target is None:
        os_name, arch = _this_platform()
        here = [t for t in lock.targets if t.os == os_name and t.arch == arch]
        target = here[0] if len(here) == 1 else None
    if target is None:
        names = ", ".join(t.name for t in lock.targets) or "none"
        return Expectations(notes=(f"{LOCK_FILE} has several targets ({names}) and the env does not record "
                                   f"which it was built from; versions are not compared",))
    return Expectations(expected=expected_from_target(target), target=target.name, tier=target.tier,
                        os=target.os)


def gpu_expected(tier: str | None, target_os: str | None = None, machine: Machine | None = None) -> bool:
    """The one rule for "verify must find a device": a GPU tier in the lock, and a GPU on the machine.

    ``machine``: the one the plan was made for (``up`` passes it, assumed or probed); without it this
    machine's GPU sources are probed (``torchenv verify``). Why ask the machine: a team locks cu126
    for the cluster and verifies on a laptop; a CUDA build with no device is then informational, not
    a failure. Only the GPU sources are probed (no Python/conda/toolkit scan): verify should not pay
    for facts it does not use.
    """
    if tier in ("cpu", "mps") and target_os == "macos":
        return _has_mps(machine)   # the cpu build carries MPS
    if not tier or tier in ("cpu", "mps"):
        return False
    info = _gpu_facts(tier, machine)
    return True if info is _UNKNOWN else bool(getattr(info, "gfx", None) or getattr(info, "gpus", None))


_UNKNOWN = object()   # the probe could not tell: the tier alone decides


def _has_mps(machine: Machine | None) -> bool:
    if machine is not None:
        return machine.os == "macos" and machine.arch == "arm64"
    import sys

    return sys.platform == "darwin" and platform.machine() == "arm64"


def _gpu_facts(tier: str, machine: Machine | None) -> object:
    """The machine's NVIDIA or ROCm facts for ``tier``'s kind (``None``: no such GPU; ``_UNKNOWN``)."""
    rocm = tier.startswith("rocm")
    if machine is not None:
        return machine.rocm if rocm else machine.nvidia
    try:
        from ..probing import make_context
        probe: Callable[[ProbeContext], object]
        if rocm:
            from ..probing.rocm import probe_rocm as probe
        else:
            from ..probing.nvidia.detect import probe_nvidia as probe
    except ImportError:   # no probe in this build
        return _UNKNOWN
    try:
        return probe(make_context())
    except Exception:
        return _UNKNOWN
