"""How the system around an env resolves CUDA: ldd of torch's libraries, LD_LIBRARY_PATH, toolkits, nvcc.

Why separate from the env scan: these facts depend on the shell (PATH, LD_LIBRARY_PATH, CUDA_HOME)
rather than on the env's files, and each needs a subprocess with a timeout. Every function takes the
environment mapping and a runner so tests can plant a fake ``libcudart.so.11.0`` dir or a fake nvcc.
"""
from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

Runner = Callable[[Sequence[str], float], "subprocess.CompletedProcess[str]"]
_CUDART = re.compile(r"^libcudart\.so\.(\d+)(?:\.(\d+))?")
_TOOLKIT_DIR = re.compile(r"cuda[-_/]?(\d{2})\.?(\d)(?:\.\d+)?(?![\d])", re.I)
_NVCC_RELEASE = re.compile(r"release (\d+)\.(\d+)")


def run_command(argv: Sequence[str], timeout_s: float, env: Mapping[str, str] | None = None
                ) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(argv), capture_output=True, text=True, timeout=timeout_s, errors="replace",
                          stdin=subprocess.DEVNULL, check=False, env=dict(env) if env is not None else None)


def _split(value: str | None) -> list[str]:
    return [p for p in (value or "").split(os.pathsep) if p]


def cudart_on_ld_path(environ: Mapping[str, str]) -> list[tuple[str, str, str]]:
    """(dir, file, CUDA major) for each libcudart.so.* found through LD_LIBRARY_PATH, in search order."""
    out = []
    for d in _split(environ.get("LD_LIBRARY_PATH")):
        try:
            names = sorted(os.listdir(d))
        except OSError:
            continue
        for n in names:
            m = _CUDART.match(n)
            if m:
                out.append((d, n, m.group(1)))
    return out


def ldd(lib: Path, environ: Mapping[str, str], run: Runner | None = None, timeout_s: float = 15.0
        ) -> dict[str, str | None] | None:
    """soname -> resolved path (None = not found) for ``lib``; None when ldd is absent or fails."""
    try:
        if run is not None:
            cp = run(["ldd", str(lib)], timeout_s)
        else:
            cp = run_command(["ldd", str(lib)], timeout_s, env=environ)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if cp.returncode != 0 or "not a dynamic executable" in (cp.stdout + cp.stderr):
        return None
    out: dict[str, str | None] = {}
    for line in cp.stdout.splitlines():
        m = re.match(r"\s*(\S+)\s+=>\s+(not found|\S+)", line)
        if m:
            out[m.group(1)] = None if m.group(2) == "not found" else m.group(2)
    return out


def toolkit_versions(environ: Mapping[str, str]) -> dict[str, list[str]]:
    """CUDA toolkit version -> the PATH / LD_LIBRARY_PATH / CUDA_HOME entries that point at it."""
    found: dict[str, list[str]] = {}

    def add(version: str, where: str) -> None:
        found.setdefault(version, [])
        if where not in found[version]:
            found[version].append(where)

    for var in ("PATH", "LD_LIBRARY_PATH"):
        for d in _split(environ.get(var)):
            m = _TOOLKIT_DIR.search(d)
            has_cuda = (Path(d) / "nvcc").exists() if var == "PATH" else any(
                True for _ in Path(d).glob("libcudart.so*")) if Path(d).is_dir() else False
            if m and (has_cuda or "cuda" in d.lower()):
                add(f"{int(m.group(1))}.{m.group(2)}", f"{var}: {d}")
    for var in ("CUDA_HOME", "CUDA_PATH"):
        m = _TOOLKIT_DIR.search(environ.get(var, ""))
        if m:
            add(f"{int(m.group(1))}.{m.group(2)}", f"{var}={environ[var]}")
    return found


def find_nvcc(environ: Mapping[str, str]) -> Path | None:
    """The nvcc torch.utils.cpp_extension would use: $CUDA_HOME/bin/nvcc, else the first on PATH."""
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if environ.get(var):
            cand = Path(environ[var]) / "bin" / "nvcc"
            if cand.is_file():
                return cand
    for d in _split(environ.get("PATH")):
        cand = Path(d) / "nvcc"
        if cand.is_file() and os.access(cand, os.X_OK):
            return cand
    return None


def nvcc_version(nvcc: Path, environ: Mapping[str, str], timeout_s: float = 10.0) -> str | None:
    try:
        cp = run_command([str(nvcc), "--version"], timeout_s, env=environ)
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = _NVCC_RELEASE.search(cp.stdout)
    return f"{m.group(1)}.{m.group(2)}" if m else None
