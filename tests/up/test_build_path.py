"""A build against a torch without CUDA does not see ``nvcc``: setup scripts that find one on PATH (torchsort
calls ``nvcc``) add a ``CUDAExtension``, which a CPU torch's ``cpp_extension`` refuses ("CUDA_HOME
environment variable is not set"). The C++ compiler's folder stays, even when it holds an ``nvcc`` too."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

from torchenv.backends.buildenv import build_environ, build_path_dirs
from torchenv.machine import Machine


def _tool(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755)
    return path


def _folders(tmp_path: Path, monkeypatch) -> tuple[Path, Path, Path]:
    cuda, tools, both = tmp_path / "cuda" / "bin", tmp_path / "tools", tmp_path / "compilers"
    _tool(cuda, "nvcc")
    _tool(tools, "cmake")
    monkeypatch.setenv("CXX", str(_tool(both, "g++")))
    _tool(both, "nvcc")
    return cuda, tools, both


def test_a_cpu_build_sees_no_nvcc_but_keeps_the_compiler_and_every_other_folder(tmp_path, monkeypatch):
    cuda, tools, both = _folders(tmp_path, monkeypatch)
    path = os.pathsep.join(map(str, [cuda, tools, both, tmp_path / "missing"]))
    assert build_path_dirs(path, cuda=False) == [str(tools), str(both), str(tmp_path / "missing")]
    assert build_path_dirs(path, cuda=True) == path.split(os.pathsep), "a CUDA build keeps its nvcc"


def test_a_setup_script_asking_for_nvcc_in_a_cpu_build_does_not_find_it(tmp_path, monkeypatch):
    cuda, tools, _both = _folders(tmp_path, monkeypatch)
    monkeypatch.delenv("CXX")
    monkeypatch.setenv("PATH", os.pathsep.join([str(cuda), str(tools), os.path.dirname(shutil.which("sh") or "/bin/sh")]))
    plan = SimpleNamespace(cuda_version=None, machine=Machine(os="linux", arch="x86_64"), compiled_archs=())
    env = {**os.environ, **build_environ(plan, Path(sys.executable))}
    asks = "import shutil, subprocess\ntry:\n    subprocess.call(['nvcc'])\nexcept FileNotFoundError:\n    print('cpu')\n"
    out = subprocess.run([sys.executable, "-c", asks], env=env, capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "cpu", out.stdout + out.stderr
