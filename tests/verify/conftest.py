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
import tempfile
import textwrap
from pathlib import Path

import pytest
from tests.support.assets import (
    CPU_TORCH,
    cpu_torch_wheel,
    find_wheel,
    index_holding,
    need,
    shared_uv_cache,
    uv,
    uv_source_args,
)

CUDA_TORCH = "2.14.1"


def _has_torch(python: Path, version: str) -> bool:
    if not python.exists():
        return False
    probe = subprocess.run([str(python), "-c", "import importlib.metadata as m; print(m.version('torch'))"],
                           capture_output=True, text=True)
    return probe.returncode == 0 and probe.stdout.strip() == version


def real_torch_env(variable: str, name: str, spec: str, version: str) -> Path:
    """Interpreter of a venv with a real torch, reused across runs (an 800 MB to 5.5 GB install).

    Lives at ``$variable`` or ``<tmp>/name``; built (file-locked, so xdist workers build it once)
    by the dev env's uv from the sources pip's configuration names. A failing build fails the test.
    """
    from filelock import FileLock

    prefix = Path(os.environ.get(variable) or Path(tempfile.gettempdir()) / name)
    python = prefix / "bin" / "python"
    with FileLock(f"{prefix}.lock"):
        if not _has_torch(python, version):
            uv_bin, uv_env = str(uv()), {**os.environ, "UV_CACHE_DIR": str(shared_uv_cache())}
            for cmd in ([uv_bin, "venv", "-q", "--clear", "-p", "3.11", str(prefix)],
                        [uv_bin, "pip", "install", "-q", "-p", str(python), *uv_source_args(), spec]):
                proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1500, env=uv_env)
                assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{proc.stderr[-2000:]}"
            assert _has_torch(python, version), f"{prefix} holds no torch {version} after installing {spec}"
    return python


@pytest.fixture(scope="session")
def cpu_env() -> Path:
    """Interpreter of a venv with the real torch 2.13.0+cpu."""
    return real_torch_env("TORCHENV_TEST_CPU_ENV", "verify-env-cpu", str(cpu_torch_wheel()), CPU_TORCH)


@pytest.fixture(scope="session")
def cu130_env() -> Path:
    """Interpreter of a venv with PyPI's torch 2.14.1 (CUDA 13.0) and its nvidia-* wheels, on a machine without GPU."""
    need(find_wheel("torch", CUDA_TORCH), f"the torch {CUDA_TORCH} cp311 Linux x86_64 wheel (PyPI's CUDA 13.0 build)")
    need(index_holding("nvidia-cublas", "13.1.1.3") or find_wheel("nvidia-cublas", "13.1.1.3", "py3"),
         "the nvidia-* CUDA 13.0 wheels torch 2.14.1 needs")
    return real_torch_env("TORCHENV_TEST_CU130_ENV", "verify-env-cu130", f"torch=={CUDA_TORCH}", CUDA_TORCH)


@pytest.fixture(scope="session")
def cpu_report(cpu_env):
    """verify of the real CPU env as a CPU lock expects it: one run (an ``import torch``) read by every test
    that only looks at its checks."""
    from torchenv.verification import run_verify

    return run_verify(cpu_env, expected={"torch": CPU_TORCH, "cuda": "none"})


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
