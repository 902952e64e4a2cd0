"""A project with a real ``torch.utils.cpp_extension`` C++ op, built by ``torchenv up`` against the real torch.

What a user with such a project (detection, 3D and attention libraries, paper code with custom ops) sees:
a compile error fails ``up`` with the compiler's own ``error:`` line and the saved log; once fixed, ``up``
builds the op against the env's torch (its ``setup.py`` imports torch: no build isolation; setuptools and
wheel locked from the PyPI side) and ``torchenv run`` runs it. Slow: one real torch env, one compile.
"""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.support.assets import cpu_torch_wheel, shared_uv_cache

from torchenv.errors import BuildFailed

pytestmark = pytest.mark.integration

SETUP = '''from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CppExtension

setup(name="addone", version="0.1", packages=["addone"],
      ext_modules=[CppExtension("addone._C", ["addone/op.cpp"], extra_compile_args=["-O0", "-g0"])],
      cmdclass={"build_ext": BuildExtension})
'''
OP = '''#include <torch/extension.h>

torch::Tensor add_one(torch::Tensor x) { return x + 1; }

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("add_one", &add_one); }
'''


def _up(project: Path):
    from torchenv.commands import build_parser
    from torchenv.commands._options import up_options
    from torchenv.flows.up import run_up
    from torchenv.ui import Ui

    return run_up(project, up_options(build_parser().parse_args(["up", "-C", str(project), "--no-verify"])),
                  Ui(quiet=True))


@pytest.mark.timeout(1500)
def test_a_cpp_extension_project_fails_honestly_then_builds_against_the_envs_torch(tmp_path, monkeypatch):
    cpu_torch_wheel()
    monkeypatch.setenv("UV_CACHE_DIR", str(shared_uv_cache()))
    project = tmp_path / "addone-project"
    (project / "addone").mkdir(parents=True)
    (project / "torchenv.toml").write_text('[torch]\nversion = "2.13"\ncuda = "cpu"\npython = "3.11"\n')
    (project / "setup.py").write_text(SETUP)
    (project / "addone" / "__init__.py").write_text("")
    # a header the project forgot: the compiler stops at once (a mistake further down costs the parse of torch's)
    (project / "addone" / "op.cpp").write_text('#include "addone_config.h"\n' + OP)

    start = time.monotonic()
    with pytest.raises(BuildFailed) as raised:
        _up(project)
    failed_s = time.monotonic() - start
    said = str(raised.value)
    assert "addone did not build" in said and "error:" in said and "addone_config.h" in said, said
    assert "No module named 'torch'" not in said, "built against the env's torch, not in isolation"
    assert (project / ".torchenv" / "build-logs" / "addone.log").is_file()
    lock = (project / "torchenv.lock").read_text()
    assert "build-isolation = false" in lock and 'build-requires = ["setuptools>=40.8.0", "wheel"]' in lock
    assert 'name = "setuptools"' in lock and 'name = "wheel"' in lock, "the build requirements are locked"

    (project / "addone" / "op.cpp").write_text(OP)
    start = time.monotonic()
    _up(project)
    built_s = time.monotonic() - start
    run = subprocess.run([sys.executable, "-m", "torchenv", "run", "-C", str(project), "--", "python", "-c",
                          "import torch, addone._C as c; print(c.add_one(torch.zeros(2)).tolist())"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and run.stdout.strip().endswith("[1.0, 1.0]"), run.stdout + run.stderr
    print(f"\nfailed up (env + compile error): {failed_s:.1f} s; fixed up (compile): {built_s:.1f} s")
