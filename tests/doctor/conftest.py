"""Broken environments for doctor: fake ones on disk (GPU states this machine cannot have) and one real one.

Fake envs hold exactly what doctor reads (dist-info, torch/version.py, a libtorch_cuda.so carrying an arch
string) and no interpreter, so doctor's import check is skipped for them. The real env is torch 2.13.0+cpu
with PyPI's torchvision 0.29.1 (a cu130 build pinned to torch>=2.14.0): it really fails to import.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from tests.doctor._fakes import TORCH_DEPS, tv_wheel
from tests.support.assets import cpu_torch_wheel, shared_uv_cache, uv, uv_source_args


@pytest.fixture(autouse=True)
def _clean_shell(monkeypatch, tmp_path):
    """No host CUDA variables leak into a test; the active-env variables would change which env is read."""
    for var in ("CUDA_VISIBLE_DEVICES", "LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH", "VIRTUAL_ENV", "CONDA_PREFIX",
                "MODULESHOME", "LMOD_CMD"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")


@pytest.fixture(scope="session")
def real_mismatch_env(tmp_path_factory) -> Path:
    """torch 2.13.0+cpu + torchvision 0.29.1 (PyPI, cu130, torch>=2.14.0), built once per session."""
    torch_wheel, tv, uv_bin = cpu_torch_wheel(), tv_wheel(), str(uv())
    env = tmp_path_factory.mktemp("real") / "env"
    # the run's one cache, shared with the other real-torch tests (builds are links); asked for here, not at
    # import: a conftest named on the command line is imported before pytest_configure points it into the run
    uv_env = {**os.environ, "UV_CACHE_DIR": str(shared_uv_cache()), "UV_NO_CONFIG": "1"}
    for cmd in ([uv_bin, "venv", "-q", "-p", "3.11", str(env)],
                [uv_bin, "pip", "install", "-q", "-p", str(env), "--no-deps", str(torch_wheel), str(tv)],
                [uv_bin, "pip", "install", "-q", "-p", str(env), *uv_source_args(), *TORCH_DEPS]):
        cp = subprocess.run(cmd, env=uv_env, capture_output=True, text=True, timeout=600)
        assert cp.returncode == 0, f"building the real mismatched env: {' '.join(cmd)} failed:\n{cp.stderr[-2000:]}"
    return env


@pytest.fixture
def uv_on_path(monkeypatch):
    """Fix commands say ``uv``; put the dev venv's uv first on PATH so a test can run them as printed."""
    monkeypatch.setenv("PATH", f"{uv().parent}:/usr/bin:/bin")
    monkeypatch.setenv("UV_CACHE_DIR", str(shared_uv_cache()))
    assert shutil.which("uv")
