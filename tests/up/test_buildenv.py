"""What a build against torch is handed: only the archs that will run it, jobs that fit in memory, the
matching CUDA toolkit; a value the user exported wins. Read from the environment given to the build."""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from torchenv.backends.buildenv import GIB, build_environ
from torchenv.flows.project_install import against_torch
from torchenv.machine import CudaToolkit, Gpu, Machine, NvidiaInfo


def _plan(*, cuda: str | None, caps=(), archs=(), toolkits=()):
    machine = Machine(os="linux", arch="x86_64", nvidia=NvidiaInfo(driver="550", cuda_driver_version="12.4",
                                                                   gpus=[Gpu(name="g", compute_capability=c)
                                                                         for c in caps]),
                      cuda_toolkits=list(toolkits))
    return SimpleNamespace(cuda_version=cuda, machine=machine, compiled_archs=tuple(archs))


def test_a_cuda_build_compiles_for_the_probed_gpus_with_the_matching_toolkit(monkeypatch):
    for name in ("TORCH_CUDA_ARCH_LIST", "CUDA_HOME", "MAX_JOBS"):
        monkeypatch.delenv(name, raising=False)
    plan = _plan(cuda="12.4", caps=("8.6", "9.0", "8.6"),
                 toolkits=[CudaToolkit("11.8", "/opt/cuda-11.8", "nvcc"), CudaToolkit("12.4.1", "/opt/cuda-12.4",
                                                                                          "nvcc")])
    env = build_environ(plan, Path("/e/bin/python"), cores=16, available=20 * GIB)
    assert env["TORCH_CUDA_ARCH_LIST"] == "8.6;9.0"
    assert env["CUDA_HOME"] == "/opt/cuda-12.4", "the toolkit of the tier's CUDA, not another one"
    assert env["MAX_JOBS"] == "5", "20 GiB free holds five nvcc jobs, not sixteen"
    assert env["PATH"].startswith("/e/bin")


def test_without_a_gpu_the_torch_builds_archs_are_compiled(monkeypatch):
    monkeypatch.delenv("TORCH_CUDA_ARCH_LIST", raising=False)
    env = build_environ(_plan(cuda="12.4", archs=("sm_80", "sm_90", "sm_100", "compute_90")),
                        Path("/e/bin/python"), cores=2, available=64 * GIB)
    assert env["TORCH_CUDA_ARCH_LIST"] == "8.0;9.0;10.0" and env["MAX_JOBS"] == "2"
    assert "CUDA_HOME" not in env


def test_a_cpu_build_sets_no_cuda_and_the_users_values_win(monkeypatch):
    monkeypatch.setenv("MAX_JOBS", "1")
    env = build_environ(_plan(cuda=None, caps=("8.6",)), Path("/e/bin/python"), cores=8, available=64 * GIB)
    assert "MAX_JOBS" not in env and "TORCH_CUDA_ARCH_LIST" not in env and "CUDA_HOME" not in env


def test_what_builds_against_torch_is_detected(tmp_path):
    (tmp_path / "setup.py").write_text("import os\nfrom torch.utils.cpp_extension import BuildExtension\n")
    found = against_torch(tmp_path)
    assert found is not None and found.build_requires == ("setuptools>=40.8.0", "wheel")
    (tmp_path / "setup.py").write_text("from setuptools import setup\n# import torch later\nsetup()\n")
    assert against_torch(tmp_path) is None
    (tmp_path / "pyproject.toml").write_text('[build-system]\nrequires = ["setuptools", "torch>=2", "ninja"]\n')
    assert against_torch(tmp_path).build_requires == ("setuptools", "ninja")
    (tmp_path / "pyproject.toml").write_text('[build-system]\nrequires = ["setuptools"]\n[project]\nname = "Flash_Attn"\n')
    assert "ninja" in against_torch(tmp_path).build_requires, "a package the builds recipe knows"
