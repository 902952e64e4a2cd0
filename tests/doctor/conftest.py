"""Broken environments for doctor: fake ones on disk (GPU states this machine cannot have) and one real one.

Fake envs hold exactly what doctor reads (dist-info, torch/version.py, a libtorch_cuda.so carrying an arch
string) and no interpreter, so doctor's import check is skipped for them. The real env is torch 2.13.0+cpu
with PyPI's torchvision 0.29.1 (a cu130 build pinned to torch>=2.14.0): it really fails to import.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

TORCH_WHEEL = Path("/opt/wheels/torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl")
TV_WHEEL = Path("/opt/pypi-more/files/torchvision-0.29.1-cp311-cp311-manylinux_2_28_x86_64.whl")
UV = Path("/work/devenv/bin/uv")
UV_CACHE = Path("/tmp/torchenv-doctor-tests-uv-cache")   # shared across sessions so rebuilds are links, not unzips
TORCH_DEPS = ["filelock", "sympy", "networkx", "jinja2", "fsspec", "typing-extensions", "setuptools", "mpmath",
              "markupsafe", "numpy", "pillow"]


def make_fake_env(root: Path, torch_version: str | None, *, cuda: str | None = None, requires: list[str] = (),
                  archs: str | None = None, companions: dict[str, tuple[str, str]] | None = None,
                  installer: str = "pip", conda_records: list[str] = ()) -> Path:
    """A venv-shaped prefix. ``companions``: name -> (version.py __version__, torch pin like '==2.8.0')."""
    site = root / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True, exist_ok=True)
    (root / "pyvenv.cfg").write_text("home = /usr/bin\nversion_info = 3.11.7\n")
    if torch_version:
        public = torch_version.split("+")[0]
        dist = site / f"torch-{public}.dist-info"
        dist.mkdir()
        meta = ["Metadata-Version: 2.1", "Name: torch", f"Version: {public}"] + [f"Requires-Dist: {r}" for r in requires]
        (dist / "METADATA").write_text("\n".join(meta) + "\n")
        (dist / "INSTALLER").write_text(installer + "\n")
        pkg = site / "torch"
        (pkg / "lib").mkdir(parents=True)
        (pkg / "version.py").write_text(
            "from typing import Optional\n"
            f"__version__ = '{torch_version}'\ndebug = False\ncuda: Optional[str] = {cuda!r}\nhip: Optional[str] = None\n")
        if archs:
            blob = os.urandom(200_000) + b"\x00" + archs.encode() + b"\x00" + os.urandom(50_000)
            (pkg / "lib" / "libtorch_cuda.so").write_bytes(blob)
    for name, (build, pin) in (companions or {}).items():
        public = build.split("+")[0]
        dist = site / f"{name}-{public}.dist-info"
        dist.mkdir()
        (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {public}\n"
                                       f"Requires-Dist: torch ({pin})\n")
        (site / name).mkdir()
        (site / name / "version.py").write_text(f"__version__ = '{build}'\n")
    if conda_records:
        (root / "conda-meta").mkdir()
        for rec in conda_records:
            name, version, build = rec.rsplit("-", 2)
            (root / "conda-meta" / f"{rec}.json").write_text(json.dumps({"name": name, "version": version,
                                                                          "build": build}))
    return root


def run_doctor(capsys, *argv: str) -> tuple[int, dict]:
    """``torchenv doctor --json ...`` in-process; returns (exit code, parsed JSON)."""
    from torchenv.cli import main

    rc = main(["doctor", "--json", *argv])
    out = capsys.readouterr().out
    return rc, json.loads(out)


def by_id(data: dict, fid: str) -> list[dict]:
    return [f for f in data["findings"] if f["id"] == fid]


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
    missing = [str(p) for p in (TORCH_WHEEL, TV_WHEEL, UV) if not p.exists()]
    if missing:
        pytest.skip(f"cannot build the real mismatched env here: missing {', '.join(missing)}")
    env = tmp_path_factory.mktemp("real") / "env"
    uv_env = {**os.environ, "UV_CACHE_DIR": str(UV_CACHE), "UV_NO_CONFIG": "1"}
    idx = ["--find-links", "/opt/wheels", "--index-url", "file:///opt/pypi/simple",
           "--extra-index-url", "file:///opt/pypi-more/simple"]
    for cmd in ([str(UV), "venv", "-q", "-p", "3.11", str(env)],
                [str(UV), "pip", "install", "-q", "-p", str(env), "--no-deps", str(TORCH_WHEEL), str(TV_WHEEL)],
                [str(UV), "pip", "install", "-q", "-p", str(env), *idx, *TORCH_DEPS]):
        cp = subprocess.run(cmd, env=uv_env, capture_output=True, text=True, timeout=600)
        if cp.returncode != 0:
            pytest.skip(f"cannot build the real mismatched env: {' '.join(cmd)} -> {cp.stderr[-500:]}")
    return env


@pytest.fixture
def uv_on_path(monkeypatch):
    """Fix commands say ``uv``; put the dev venv's uv first on PATH so a test can run them as printed."""
    monkeypatch.setenv("PATH", f"{UV.parent}:/usr/bin:/bin")
    monkeypatch.setenv("UV_CACHE_DIR", str(UV_CACHE))
    assert shutil.which("uv")
