"""Environments for verify tests: the real CPU torch (session-wide), and tiny fake torches.

Why fake torches: no GPU here, yet a CUDA build without a device, an sm_61 card against an
sm_70+ build, PTX coverage and a libcudart import crash must all be reported correctly. A
fake ``torch`` package in a throwaway venv's site-packages (verify runs ``python -I``, so
PYTHONPATH would be ignored) plays each of those parts.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

CPU_WHEEL = Path("/opt/wheels/torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl")
CPU_TORCH = "2.13.0+cpu"
UV = Path("/work/devenv/bin/uv")


def _has_torch(python: Path) -> bool:
    if not python.exists():
        return False
    probe = subprocess.run([str(python), "-c", "import importlib.metadata as m; print(m.version('torch'))"],
                           capture_output=True, text=True)
    return probe.returncode == 0 and probe.stdout.strip() == CPU_TORCH


@pytest.fixture(scope="session")
def cpu_env() -> Path:
    """Interpreter of a venv with the real torch 2.13.0+cpu (reused across runs: 800 MB install)."""
    prefix = Path(os.environ.get("TORCHENV_TEST_CPU_ENV", "/tmp/verify-env-cpu"))
    python = prefix / "bin" / "python"
    if _has_torch(python):
        return python
    if not CPU_WHEEL.exists():
        pytest.skip(f"real-torch tests need {CPU_WHEEL} (the CPU torch wheel), absent on this machine")
    if not UV.exists():
        pytest.skip(f"real-torch tests need uv at {UV} to build the CPU env")
    subprocess.run([str(UV), "venv", "-q", "-p", "3.11", str(prefix)], check=True)
    subprocess.run([str(UV), "pip", "install", "-q", "-p", str(python), "--find-links", str(CPU_WHEEL.parent),
                    "--extra-index-url", "file:///opt/pypi/simple", f"torch=={CPU_TORCH}"], check=True)
    return python


def _make_venv(root: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    return root


def site_packages(prefix: Path) -> Path:
    return next((prefix / "lib").glob("python3*/site-packages"))


FAKE_TORCH = '''
__version__ = {version!r}

def tensor(data):
    return data

class version:
    cuda = {cuda!r}
    hip = None

class _Props:
    def __init__(self, name, cc):
        self.name = name
        self.major, self.minor = cc
        self.total_memory = 8 * 2 ** 30

class cuda:
    _gpus = {gpus!r}
    @staticmethod
    def is_available():
        return bool(cuda._gpus)
    @staticmethod
    def device_count():
        return len(cuda._gpus)
    @staticmethod
    def get_device_properties(i):
        return _Props(*cuda._gpus[i])
    @staticmethod
    def get_device_capability(i):
        return tuple(cuda._gpus[i][1])
    @staticmethod
    def get_device_name(i):
        return cuda._gpus[i][0]
    @staticmethod
    def get_arch_list():
        return {archs!r}

class backends:
    class cudnn:
        enabled = True
        @staticmethod
        def version():
            return 90100 if version.cuda else None
        @staticmethod
        def is_available():
            return True
    class mps:
        @staticmethod
        def is_available():
            return False
'''


@pytest.fixture
def fake_env(tmp_path):
    """``fake_env(version=, cuda=, gpus=[(name, (major, minor))], archs=[...], source=None)`` -> python."""
    def make(*, version: str = "2.14.1+cu130", cuda: str | None = "13.0", gpus=(), archs=(),
             source: str | None = None, extra: dict[str, str] | None = None) -> Path:
        prefix = _make_venv(tmp_path / f"fake-{len(list(tmp_path.iterdir()))}")
        pkg = site_packages(prefix) / "torch"
        pkg.mkdir()
        text = source if source is not None else FAKE_TORCH.format(
            version=version, cuda=cuda, gpus=[(n, list(cc)) for n, cc in gpus], archs=list(archs))
        (pkg / "__init__.py").write_text(textwrap.dedent(text))
        for rel, body in (extra or {}).items():
            path = site_packages(prefix) / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(body))
        return prefix / "bin" / "python"
    return make


@pytest.fixture
def plain_venv(tmp_path) -> Path:
    """A project dir with an empty ``.venv`` (no torch): enough for run/shell."""
    project = tmp_path / "proj"
    project.mkdir()
    _make_venv(project / ".venv")
    return project
