"""System CUDA toolkits (nvcc): not needed by torch wheels, needed to compile extensions.

Why record them: torch wheels bring their own CUDA runtime, so a toolkit never decides the
plan, but a toolkit whose version differs from the wheel's CUDA breaks extension builds
(apex, DeepSpeed ops), which ``doctor`` explains. Versions are "X.Y", read from files when
the layout has them (``version.json``, ``version.txt``, or the pip-style ``dist-info`` of
``nvidia-cuda-nvcc``) and from ``nvcc --version`` ("release 12.4,") otherwise.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

from ..machine import CudaToolkit
from ..reasons import MACHINE, reason
from .context import DEFAULT_TIMEOUT_S, ProbeContext, describe_failure

_RELEASE = re.compile(r"release (\d+\.\d+)")
_XY = re.compile(r"(\d+\.\d+)")
_WINDOWS_ROOT = r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA"


def _version_from_files(root: Path) -> str | None:
    try:
        data = json.loads((root / "version.json").read_text())
        match = _XY.match(str(data.get("cuda", {}).get("version", "")))
        if match:
            return match.group(1)
    except (OSError, ValueError, AttributeError):
        pass
    try:
        match = re.search(r"CUDA Version (\d+\.\d+)", (root / "version.txt").read_text())
        if match:
            return match.group(1)
    except OSError:
        pass
    try:
        for meta in (root / "dist-info").glob("nvidia_cuda_nvcc-*.dist-info"):
            match = re.match(r"nvidia_cuda_nvcc-(\d+\.\d+)", meta.name)
            if match:
                return match.group(1)
    except OSError:
        pass
    return None


def nvcc_release(ctx: ProbeContext, nvcc: Path) -> str | None:
    try:
        proc = ctx.run([str(nvcc), "--version"], DEFAULT_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as exc:
        ctx.note(describe_failure(f"{nvcc} --version", exc, DEFAULT_TIMEOUT_S))
        return None
    match = _RELEASE.search(proc.stdout or "")
    return match.group(1) if match else None


def _nvcc_in(root: Path) -> Path | None:
    for name in ("nvcc", "nvcc.exe"):
        if (root / "bin" / name).is_file():
            return root / "bin" / name
    return None


def _is_toolkit_root(root: Path) -> bool:
    return _nvcc_in(root) is not None and any(
        (root / marker).exists() for marker in ("version.json", "version.txt", "dist-info", "include/cuda.h", "nvvm"))


def probe_cuda_toolkits(ctx: ProbeContext) -> list[CudaToolkit]:
    found: list[CudaToolkit] = []
    seen: set[str] = set()

    def add(root: Path, source: str, version: str | None = None) -> None:
        key = os.path.realpath(root)
        if key in seen:
            return
        seen.add(key)
        if version is None:
            version = _version_from_files(root)
            if version is None and (nvcc := _nvcc_in(root)):
                version = nvcc_release(ctx, nvcc)
        found.append(CudaToolkit(version=version, path=str(root), source=source))

    nvcc = ctx.which("nvcc")
    if nvcc is not None:
        root = Path(os.path.realpath(nvcc)).parent.parent
        if _is_toolkit_root(root):
            add(root, "nvcc", _version_from_files(root) or nvcc_release(ctx, nvcc))
        else:                       # a wrapper script (/usr/local/bin/nvcc): record the command itself
            add(nvcc, "nvcc", nvcc_release(ctx, nvcc))
    for var in ("CUDA_HOME", "CUDA_PATH"):
        value = ctx.environ.get(var)
        if not value:
            continue
        root = ctx.path(value)
        if _nvcc_in(root):
            add(root, var)
        else:
            ctx.note(reason("probe.no_toolkit", MACHINE, var=var, value=value))
    bases = [(ctx.path("/usr/local"), "cuda*")] if ctx.system != "Windows" else [(ctx.path(_WINDOWS_ROOT), "v*")]
    for base, pattern in bases:
        try:
            roots = sorted(base.glob(pattern))
        except OSError:
            continue
        for root in roots:
            if root.is_dir() and _nvcc_in(root):
                add(root, "/usr/local" if ctx.system != "Windows" else "Program Files")
    return found
