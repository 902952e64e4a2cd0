"""A CUDA-tier build against torch gets the nvcc of the tier's CUDA from PyPI, and a host-compiler check.

A user on a machine without a CUDA toolkit (a laptop, a CI runner) runs ``torchenv up`` on a project with
CUDA ops for the cu130 tier: the build must see ``CUDA_HOME`` at an nvcc of CUDA 13.0 -- locked with sha256
in the target's build-tool section, unpacked into torchenv's cache, never into the env -- and not a newer
one the index also has. The fake PyPI side serves fake ``nvidia-cuda-nvcc`` wheels whose ``nvcc`` is a
shell script; the project's build backend records the environment it ran with.
"""
from __future__ import annotations

import dataclasses
import json
import os

import pytest
from tests.support.inbackend import write_package_project
from tests.support.packages import build_index, make_wheel

from torchenv.backends import cudatool

NVCC = "#!/bin/sh\necho 'nvcc: NVIDIA (R) Cuda compiler driver'\necho 'Cuda compilation tools, release {v}'\n"


def _fake_toolkit(world) -> None:
    """nvidia-cuda-nvcc 13.0.88 and 13.1.80 (the pin must pick 13.0), and the wheels it needs, on the PyPI side."""
    wheels = world.root / "nvidia"
    files = {}
    for v in ("13.0.88", "13.1.80"):
        files.setdefault("nvidia-cuda-nvcc", []).append(make_wheel(
            wheels, "nvidia-cuda-nvcc", v, tag="py3-none-manylinux2014_x86_64",
            requires=["nvidia-nvvm", "nvidia-cuda-runtime", "nvidia-cuda-crt"],
            extra_files={"nvidia/cu13/bin/nvcc": NVCC.format(v=v[:4])}))
        files.setdefault("nvidia-cuda-runtime", []).append(make_wheel(
            wheels, "nvidia-cuda-runtime", v, tag="py3-none-manylinux2014_x86_64",
            extra_files={"nvidia/cu13/include/cuda_runtime.h": "/* runtime */\n",
                         "nvidia/cu13/lib/libcudart.so.13": "not a library\n"}))
        for name, path in (("nvidia-cuda-crt", "include/crt/host_config.h"), ("nvidia-nvvm", "bin/cicc"),
                           ("nvidia-cuda-cccl", "include/cccl/cuda/std/version")):
            files.setdefault(name, []).append(make_wheel(wheels, name, v, tag="py3-none-manylinux2014_x86_64",
                                                         extra_files={f"nvidia/cu13/{path}": "x\n"}))
    build_index(world.root / "pypi", files)


RECORDING = ("    import json, shutil, subprocess\n"
             "    here = os.path.dirname(__file__)\n"
             "    nvcc = shutil.which('nvcc')\n"
             "    seen = dict(os.environ, NVCC_SAYS=subprocess.run([nvcc], capture_output=True, text=True).stdout"
             " if nvcc else '')\n"
             "    open(os.path.join(here, 'BUILD_ENV.json'), 'w').write(json.dumps(seen))\n")


def _cuda_project(project) -> None:
    """A project whose build imports torch (CUDA ops) and records ``os.environ`` as its build saw it."""
    write_package_project(project)
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace("requires = []", 'requires = ["torch"]'))
    backend = project / "demo_backend.py"
    head = "def build_editable(wheel_directory, config_settings=None, metadata_directory=None):\n"
    backend.write_text(backend.read_text().replace(head, head + RECORDING))


@pytest.fixture
def cuda_world(world, monkeypatch):
    """The fake world planned for the cu130 tier (CUDA 13.0), without a toolkit of its own."""
    def cu130(request):
        plain = world.plan(request.intent, torch_url=world.torch_source_url or None)
        return dataclasses.replace(plain, tier="cu130", cuda_version="13.0")

    world.planner = cu130
    for name in ("CUDA_HOME", "CUDA_PATH", "TORCH_CUDA_ARCH_LIST"):
        monkeypatch.delenv(name, raising=False)
    return world


@pytest.mark.parametrize("installer", ["uv"])
def test_a_cuda_tier_build_gets_the_tiers_nvcc_unpacked_from_locked_wheels(cuda_world):
    world = cuda_world
    _fake_toolkit(world)
    _cuda_project(world.project)
    world.run_up()
    seen = json.loads((world.project / "BUILD_ENV.json").read_text())
    tools = world.read_lock().target("linux-x86_64-cu130").build_tools
    assert {w.name: w.version for w in tools} == {n: "13.0.88" for n in (
        "nvidia-cuda-nvcc", "nvidia-cuda-runtime", "nvidia-cuda-crt", "nvidia-nvvm", "nvidia-cuda-cccl")}, \
        "pinned to the tier's CUDA 13.0, not the index's newer 13.1"
    assert all(len(w.sha256) == 64 for w in tools)
    home = cudatool.toolkit_folder(tools) / "nvidia/cu13"
    assert seen["CUDA_HOME"] == str(home), "CUDA_HOME is the unpacked toolkit in torchenv's cache"
    assert "release 13.0" in seen["NVCC_SAYS"], "the nvcc on the build's PATH is the tier's"
    assert (home / "lib64" / "libcudart.so").exists(), "linkable as torch.utils.cpp_extension expects"
    assert (home / "include" / "cuda_runtime.h").is_file() and (home / "include" / "crt" / "host_config.h").is_file()
    env_files = {p.name for p in world.env.rglob("*")}
    assert "nvcc" not in env_files and not any(d.startswith("nvidia") for d in world.dists()), \
        "the toolchain is not installed into the user's env"
    assert "[[target.build-tool]]" in world.lock.read_text()


@pytest.mark.parametrize("installer", ["uv"])
def test_a_cuda_build_without_a_cxx_compiler_says_the_exact_fix(cuda_world, monkeypatch, capsys):
    from torchenv.flows.up import run_up
    from torchenv.ui import Ui

    world = cuda_world
    _fake_toolkit(world)
    _cuda_project(world.project)
    bare = world.root / "bare-bin"      # the env's tools and uv, but no c++/g++/clang++
    bare.mkdir()
    monkeypatch.setenv("PATH", f"{bare}{os.pathsep}{os.path.dirname(os.sys.executable)}")
    monkeypatch.delenv("CXX", raising=False)
    run_up(world.project, world.options(), Ui())
    said = " ".join(capsys.readouterr().err.split())
    assert "no C++ compiler found" in said
    assert "sudo apt-get install g++" in said and "sudo dnf install gcc-c++" in said


def test_a_gcc_newer_than_the_tiers_cuda_accepts_is_named_with_the_compiler_to_install():
    too_new = cudatool.HostCompiler("/usr/bin/g++", gcc_major=14)
    said = cudatool.host_compiler_problem(too_new, "12.4")
    assert said is not None and "GCC 14" in said and "CUDA 12.4 accepts GCC 13 at most" in said
    assert "sudo apt-get install g++-13" in said and "export CC=gcc-13 CXX=g++-13" in said
    assert cudatool.host_compiler_problem(cudatool.HostCompiler("/usr/bin/g++", 13), "12.4") is None
    assert cudatool.host_compiler_problem(cudatool.HostCompiler("/usr/bin/g++", 14), "12.8") is None
    assert cudatool.host_compiler_problem(too_new, None) is None, "a CPU build has no CUDA limit"


def test_the_recipe_pins_the_pypi_nvcc_to_the_tiers_cuda_and_says_where_pypi_has_none():
    kit = cudatool.pypi_toolkit("13.0")
    assert kit is not None and "nvidia-cuda-nvcc==13.0.*" in kit.requirements and kit.home == "nvidia/cu13"
    assert cudatool.pypi_toolkit("12.4") is None, "the cu12 nvcc wheels carry no nvcc driver"
    assert "no nvcc driver" in (cudatool.no_pypi_nvcc("12.4") or "")
    assert cudatool.max_gcc("11.8") == 11 and cudatool.max_gcc("12.6") == 13 and cudatool.max_gcc("13.0") == 15


def test_nvccs_unsupported_gcc_error_in_a_build_log_is_explained_with_the_compiler_to_install():
    from torchenv.engines.failures import explain_build

    log = ("building 'fastop._C' extension\n/usr/local/cuda/include/crt/host_config.h:143:2: error: #error -- "
           "unsupported GNU version! gcc versions later than 13 are not supported! The nvcc flag "
           "'-allow-unsupported-compiler' can be used to override this version check\nerror: command "
           "'/usr/local/cuda/bin/nvcc' failed with exit code 1\n")
    failure = explain_build(log, "fastop", "/p/.torchenv/build-logs/fastop.log")
    assert failure.kind == "host compiler too new for CUDA"
    assert "sudo apt-get install g++-13" in failure.hint and "export CC=gcc-13 CXX=g++-13" in failure.hint


def test_a_cuda_12_build_with_no_toolkit_here_says_pypi_has_no_nvcc_and_how_to_get_one():
    said = cudatool.missing_toolkit("12.4") or ""
    assert "no nvcc of CUDA 12.4 here (nvidia-cuda-nvcc-cu12" in said and "no nvcc driver" in said
    assert "cuda-nvcc=12.4" in said and "export CUDA_HOME=" in said
    assert cudatool.missing_toolkit(None) is None


def test_the_archs_compiled_are_the_locks_gpus_before_the_probed_ones(monkeypatch, tmp_path):
    from pathlib import Path
    from types import SimpleNamespace

    from torchenv.backends.buildenv import build_environ
    from torchenv.backends.torchbuild import locked_capabilities
    from torchenv.machine import Gpu, Machine, NvidiaInfo

    monkeypatch.delenv("TORCH_CUDA_ARCH_LIST", raising=False)
    machine = Machine(os="linux", arch="x86_64", nvidia=NvidiaInfo(driver="580", cuda_driver_version="13.0",
                                                                   gpus=[Gpu(name="here", compute_capability="8.6")]))
    (tmp_path / "torchenv.lock").write_text(
        'version = 1\nintent-hash = "x"\n\n[machine]\ncompute_capabilities = ["9.0", "12.0", "9.0"]\n')
    plan = SimpleNamespace(cuda_version="13.0", machine=machine, compiled_archs=(),
                           intent=SimpleNamespace(project_dir=tmp_path))
    locked = locked_capabilities(plan)
    assert build_environ(plan, Path("/e/bin/python"), locked_capabilities=locked)["TORCH_CUDA_ARCH_LIST"] == "9.0;12.0"
    assert build_environ(plan, Path("/e/bin/python"))["TORCH_CUDA_ARCH_LIST"] == "8.6", "no lock: the probed GPU"
    (tmp_path / "torchenv.lock").write_text("not a lock [")
    assert locked_capabilities(plan) == ()
