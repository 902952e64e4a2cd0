"""The environment a build against the env's torch runs in: CUDA_HOME, TORCH_CUDA_ARCH_LIST, MAX_JOBS.

Why: ``torch.utils.cpp_extension`` reads these. Left unset, it compiles for every arch of the torch
build (or fails to find a GPU to ask) and starts one compile job per core, which on a machine with
little memory per core ends in the kernel's out-of-memory killer half an hour in. A value the user
already exported always wins. No GPU is needed to build: the archs come from the probed GPUs, else
from the archs the chosen torch build carries (what will run it).
"""
from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from ..resolve.plan import Plan

GIB = 1 << 30


@dataclass(frozen=True)
class JobBudget:
    """Memory one compile job may take, by kind of build (nvcc on CUDA kernels needs far more than g++)."""
    cuda: int = 4 * GIB
    cxx: int = 2 * GIB


def cuda_arch_list(plan: Plan, locked: tuple[str, ...] = ()) -> str | None:
    """``"8.6;9.0"``: the GPUs the lock was made for (``locked``: its ``[machine] compute_capabilities``), else
    the probed GPUs' compute capabilities, else the torch build's ``sm_XY`` archs."""
    wanted = [c for c in locked if re.fullmatch(r"\d+\.\d+", c)] or [g.compute_capability for g in plan.machine.gpus
                                                                      if g.compute_capability]
    caps = sorted(set(wanted), key=lambda c: tuple(int(x) for x in c.split(".")))
    if caps:
        return ";".join(caps)
    archs = sorted({f"{m.group(1)[:-1]}.{m.group(1)[-1]}" for a in plan.compiled_archs
                    if (m := re.fullmatch(r"sm_(\d{2,3})", a))}, key=lambda c: tuple(int(x) for x in c.split(".")))
    return ";".join(archs) or None


def cuda_home(plan: Plan) -> str | None:
    """The probed CUDA toolkit of the plan's CUDA version (major.minor), else none: a toolkit of another
    version builds ops torch refuses to load ("The detected CUDA version mismatches ...")."""
    want = plan.cuda_version
    if not want:
        return None
    return next((t.path for t in plan.machine.cuda_toolkits
                 if t.version and t.version.split(".")[:2] == want.split(".")[:2]), None)


def max_jobs(cores: int, available: int | None, per_job: int) -> int:
    """As many jobs as cores, but no more than free memory holds (at least one)."""
    if available is None:
        return max(1, cores)
    return max(1, min(cores, available // per_job))


def available_memory() -> int | None:
    """``MemAvailable`` from ``/proc/meminfo`` in bytes; ``None`` where there is none."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def host_compiler() -> str | None:
    """The C++ compiler a setuptools build would run (``$CXX``, else ``c++``/``g++``/``clang++``), or ``None``."""
    names = [os.environ["CXX"].split()[0]] if os.environ.get("CXX") else ["c++", "g++", "clang++"]
    return next((found for name in names if (found := shutil.which(name))), None)


def build_path_dirs(path: str, *, cuda: bool) -> list[str]:
    """``path``'s folders a build against this torch should see: for a torch without CUDA, none that holds
    an ``nvcc`` (unless it also holds the C++ compiler, which the build needs more).

    Why: setup scripts decide to compile their CUDA kernels by finding ``nvcc`` on PATH (torchsort
    calls it), while ``torch.utils.cpp_extension`` of a CPU torch has no CUDA_HOME and refuses every
    ``CUDAExtension`` ("CUDA_HOME environment variable is not set"): on a machine with a CUDA toolkit
    and a CPU torch, the build failed where ``pip install`` of the CPU ops alone would have worked.
    """
    dirs = [d for d in path.split(os.pathsep) if d]
    if cuda:
        return dirs
    compiler = host_compiler()
    keep = os.path.normpath(os.path.dirname(compiler)) if compiler else None
    return [d for d in dirs if os.path.normpath(d) == keep or not os.access(os.path.join(d, "nvcc"), os.X_OK)]


def build_environ(plan: Plan, python: Path, *, budget: JobBudget = JobBudget(),
                  cores: int | None = None, available: int | None = None,
                  toolkit: Path | None = None, locked_capabilities: tuple[str, ...] = ()) -> dict[str, str]:
    """The variables to add to the build's environment; those the user already set are left out.

    ``toolkit``: the unpacked PyPI nvcc of the tier's CUDA (``cudatool``), taken before a probed toolkit; its
    ``bin`` goes on PATH too, as a toolkit's install puts it."""
    cuda = bool(plan.cuda_version)
    out: dict[str, str] = {
        "MAX_JOBS": str(max_jobs(cores or cpu_count(), available if available is not None else available_memory(),
                                 budget.cuda if cuda else budget.cxx)),
        # the env's own scripts first (ninja, cmake installed as build requirements)
        "PATH": os.pathsep.join([str(python.parent), *build_path_dirs(os.environ.get("PATH", ""), cuda=cuda)]),
    }
    if cuda:
        archs, home = cuda_arch_list(plan, locked_capabilities), str(toolkit) if toolkit is not None else cuda_home(plan)
        if toolkit is not None:
            out["PATH"] = f"{toolkit / 'bin'}{os.pathsep}{out['PATH']}"
        if archs:
            out["TORCH_CUDA_ARCH_LIST"] = archs
        if home:
            out["CUDA_HOME"] = home
    return {k: v for k, v in out.items() if k == "PATH" or not os.environ.get(k)}
