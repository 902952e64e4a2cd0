"""CondaBackend end to end: hybrid (conda Python + torch wheels) and all-conda, lock, reinstall."""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.conda.helpers import cpu_machine, gpu_machine, make_plan
from tests.support import make_wheel, sha256_of
from tests.support.skips import requires

from torchenv.backends.conda import CondaBackend, UvWheelPart
from torchenv.engines.rattler import RattlerEngine
from torchenv.errors import BackendError, EnvError
from torchenv.lockfile.model import LockedWheel
from torchenv.ui import Ui

PY = ".".join(map(str, sys.version_info[:2]))
TAG = f"cp{PY.replace('.', '')}-cp{PY.replace('.', '')}-linux_x86_64"


class LocalWheels(UvWheelPart):
    """The real wheel installer; locking returns local fake wheels (the venv side's resolver is not ours)."""

    def __init__(self, wheels: list[Path], **kw) -> None:
        super().__init__(**kw)
        self.files = wheels
        self.asked: list[list[str]] = []

    def lock(self, *, plan, requirements):
        self.asked.append(requirements)
        return tuple(LockedWheel(name=f.name.split("-")[0], version=f.name.split("-")[1], filename=f.name,
                                 url=f.as_uri(), sha256=sha256_of(f), index="local", source="torch-index")
                     for f in self.files)


class NoSolve(RattlerEngine):
    def solve(self, **kw):
        raise AssertionError("an install from the lock must not solve")


def _backend(plan, env: Path, cache: Path, wheels=(), engine=None) -> CondaBackend:
    ui = Ui(quiet=True)
    return CondaBackend(plan=plan, env_path=env, ui=ui, engine=engine or RattlerEngine(cache_dir=cache),
                        wheel_part=LocalWheels(list(wheels), env_path=env, ui=ui))


def _run_py(env: Path, code: str) -> str:
    return subprocess.run([str(env / "bin" / "python"), "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip()


@requires(sys.platform == "linux", "the channel's fake python links a Linux interpreter")
def test_hybrid_env_has_conda_python_and_nvcc_and_the_torch_wheel(py_channel, tmp_path):
    wheels = [make_wheel(tmp_path / "whl", "torch", "2.5.1+cu126", tag=TAG),
              make_wheel(tmp_path / "whl", "einops", "0.8.0")]
    plan = make_plan(gpu_machine(), channels=(str(py_channel),), python=PY, packages=("cuda-nvcc",))
    env = tmp_path / "env"
    backend = _backend(plan, env, tmp_path / "cache", wheels)
    t0 = time.perf_counter()
    target = backend.lock_target(requirements=["einops"])
    t1 = time.perf_counter()
    backend.create()
    backend.install(target=target)
    t2 = time.perf_counter()
    print(f"hybrid lock {t1 - t0:.2f}s, install {t2 - t1:.2f}s")

    assert target.backend == "conda" and target.torch == "2.5.1+cu126"
    assert "__cuda=12.9=0" in target.virtual_packages and target.channels == (py_channel.as_uri(),)
    names = {p.name: p for p in target.conda}
    assert "pytorch" not in names                        # torch comes as a wheel in this mode
    assert names["cuda-nvcc"].version.startswith("12.6") and names["cuda-version"].version == "12.6"
    assert any("cuda-nvcc pinned to 12.6.*" in r for r in backend.reasons)
    assert _run_py(env, "import sys, torch; print(sys.prefix, torch.__version__)") == f"{env} 2.5.1+cu126"
    installed = backend.installed()
    assert installed["torch"] == "2.5.1+cu126" and installed["cuda-nvcc"] == "12.6.85"
    assert installed["python"].startswith(PY)

    # the same lock on another prefix: no solve, same conda records, same wheels
    env2 = tmp_path / "env2"
    again = _backend(plan, env2, tmp_path / "cache2", engine=NoSolve(cache_dir=tmp_path / "cache2"))
    again.create()
    again.install(target=target)
    assert again.installed() == {**installed}
    assert _run_py(env2, "import torch; print(torch.__version__)") == "2.5.1+cu126"


def test_conda_torch_source_locks_the_cuda_pytorch_build(channel, tmp_path):
    plan = make_plan(gpu_machine(), channels=(str(channel),), torch_source="conda")
    backend = _backend(plan, tmp_path / "env", tmp_path / "cache")
    target = backend.lock_target(requirements=[])
    backend.create()
    backend.install(target=target)
    assert target.torch == "2.5.1" and not target.wheels
    assert backend.installed()["pytorch"] == "2.5.1"
    assert (tmp_path / "env" / "lib" / "torch_cuda.txt").exists()


def test_conda_torch_source_without_gpu_gets_cpu_build(channel, tmp_path):
    plan = make_plan(cpu_machine(), channels=(str(channel),), torch_source="conda", tier="cpu")
    target = _backend(plan, tmp_path / "env", tmp_path / "cache").lock_target(requirements=[])
    assert next(p for p in target.conda if p.name == "pytorch").build.startswith("cpu_")
    assert not target.virtual_packages or not any(v.startswith("__cuda") for v in target.virtual_packages)


def test_hybrid_refuses_conda_packages_that_bring_their_own_pytorch(channel, tmp_path):
    plan = make_plan(gpu_machine(), channels=(str(channel),), packages=("pytorch-gpu",))
    with pytest.raises(BackendError, match="pytorch") as err:
        _backend(plan, tmp_path / "env", tmp_path / "cache").lock_target(requirements=[])
    assert 'torch-source = "conda"' in err.value.hint


def test_create_will_not_take_over_a_venv(tmp_path):
    venv = tmp_path / ".venv"
    venv.mkdir()
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    plan = make_plan(cpu_machine(), channels=("conda-forge",), tier="cpu")
    with pytest.raises(EnvError, match="holds a venv"):
        _backend(plan, venv, tmp_path / "cache").create()
    assert (venv / "pyvenv.cfg").read_text() == "home = /usr/bin\n"


def test_lock_file_round_trip_keeps_what_a_no_solve_install_needs(channel, tmp_path):
    """torchenv.lock must carry depends/build_number/timestamp so conda-meta matches the solved install."""
    from torchenv.lockfile.io import read_lock, write_lock
    from torchenv.lockfile.model import Lockfile

    plan = make_plan(gpu_machine(), channels=(str(channel),), torch_source="conda")
    target = _backend(plan, tmp_path / "env", tmp_path / "cache").lock_target(requirements=[])
    write_lock(tmp_path / "torchenv.lock", Lockfile(intent_hash="sha256:" + "0" * 64, targets=(target,)))
    back = read_lock(tmp_path / "torchenv.lock").targets[0]
    assert back.conda == target.conda
    assert back.virtual_packages == tuple(sorted(target.virtual_packages))
