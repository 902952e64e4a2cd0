"""Probe this machine: OS/arch/glibc/WSL, NVIDIA (driver, CUDA it supports, GPUs + compute
capability), AMD ROCm, Apple MPS, Pythons, conda executables and CUDA toolkits.

Why each source is its own module and wrapped here: a missing or broken driver, a hung tool or
an odd file must never stop the probe; it becomes a line in ``Machine.findings`` and the rest
of the machine is still reported. ``root``, ``environ`` and ``run`` are injectable so tests run
against fake sysfs/proc trees and recorded command outputs. Sources are imported lazily so
``import torchenv.probing`` (e.g. for ``--assume-*``) costs nothing.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ..reasons import MACHINE, reason

if TYPE_CHECKING:
    from ..machine import CondaExe, CudaToolkit, Machine, PythonInstall
    from .context import ProbeContext, Runner

__all__ = ["probe_machine", "probe_pythons_only"]

T = TypeVar("T")


def make_context(*, environ: Mapping[str, str] | None = None, root: str | os.PathLike[str] = "/",
                 run: Runner | None = None, system: str | None = None,
                 machine: str | None = None) -> ProbeContext:
    import platform

    from .context import ProbeContext, run_command

    return ProbeContext(root=Path(root), environ=dict(os.environ if environ is None else environ),
                        run=run or run_command, system=system or platform.system(),
                        machine=machine or platform.machine())


def _guarded(ctx: ProbeContext, what: str, fn: Callable[[], T], default: T) -> T:
    """A source that crashes costs its own facts only, and says so."""
    try:
        return fn()
    except Exception as exc:
        ctx.note(reason("probe.crashed", MACHINE, what=what, error=f"{type(exc).__name__}: {exc}"))
        return default


def probe_machine(*, environ: Mapping[str, str] | None = None, root: str | os.PathLike[str] = "/",
                  run: Runner | None = None, system: str | None = None, machine: str | None = None,
                  nvml: Any = None, toolkits: bool = True) -> Machine:
    """Probe the machine. Never raises for missing/broken drivers or tools: those are findings.

    ``system``/``machine`` override ``platform.system()``/``platform.machine()`` and ``nvml`` a
    pynvml-like module (False: skip NVML) — for tests, like ``root``, ``environ`` and ``run``.
    ``toolkits=False`` leaves out the CUDA toolkits (``nvcc --version`` is a subprocess per
    toolkit): no plan depends on them (torch wheels bring their own CUDA runtime), so ``up`` and
    ``lock`` skip them; ``probe``, ``plan`` and ``doctor`` show them.
    """
    from ..machine import Machine
    from .conda import probe_conda
    from .nvidia.detect import probe_nvidia
    from .osinfo import OsInfo, normalise_arch, normalise_os, probe_os
    from .pythons import probe_pythons

    ctx = make_context(environ=environ, root=root, run=run, system=system, machine=machine)
    fallback_os = normalise_os(ctx.system)
    osinfo = _guarded(ctx, "the OS", lambda: probe_os(ctx),
                      OsInfo(fallback_os, normalise_arch(ctx.machine, fallback_os), None, False))
    nvidia = _guarded(ctx, "NVIDIA GPUs", lambda: probe_nvidia(ctx, nvml), None)
    rocm = _guarded(ctx, "AMD GPUs", lambda: _rocm(ctx), None) if osinfo.os == "linux" else None
    apple = _guarded(ctx, "Apple silicon", lambda: _apple(ctx, osinfo.arch), None) if ctx.system == "Darwin" else None
    conda: list[CondaExe] = _guarded(ctx, "conda", lambda: probe_conda(ctx), [])
    pythons: list[PythonInstall] = _guarded(ctx, "Pythons", lambda: probe_pythons(ctx, conda), [])
    found_toolkits: list[CudaToolkit] = _guarded(ctx, "CUDA toolkits", lambda: _toolkits(ctx), []) \
        if toolkits else []
    if osinfo.wsl and nvidia is None:
        ctx.note(reason("probe.wsl_no_gpu", MACHINE))
    return Machine(os=osinfo.os, arch=osinfo.arch, glibc=osinfo.glibc, wsl=osinfo.wsl, nvidia=nvidia,
                   rocm=rocm, apple=apple, pythons=pythons, conda=conda, cuda_toolkits=found_toolkits,
                   cuda_visible_devices=ctx.environ.get("CUDA_VISIBLE_DEVICES"), findings=list(ctx.findings))


def _rocm(ctx: ProbeContext) -> Any:
    from .rocm import probe_rocm  # each source imported only where it can find something

    return probe_rocm(ctx)


def _apple(ctx: ProbeContext, arch: str) -> Any:
    from .apple import probe_apple

    return probe_apple(ctx, arch)


def _toolkits(ctx: ProbeContext) -> list[CudaToolkit]:
    from .cuda_toolkits import probe_cuda_toolkits

    return probe_cuda_toolkits(ctx)


def probe_pythons_only(*, environ: Mapping[str, str] | None = None, root: str | os.PathLike[str] = "/",
                       run: Runner | None = None) -> list[PythonInstall]:
    """Just the interpreters (for ``--assume-*`` machines that still build the env here): no GPU probing."""
    from .conda import probe_conda
    from .pythons import probe_pythons

    ctx = make_context(environ=environ, root=root, run=run)
    conda: list[CondaExe] = _guarded(ctx, "conda", lambda: probe_conda(ctx), [])
    return _guarded(ctx, "Pythons", lambda: probe_pythons(ctx, conda), [])
