"""A long build shows where it is: the elapsed time and ninja's ``[12/48]`` step, live, not a frozen spinner.

The fake sdist's build backend prints ninja-style lines with pauses, as ``torch.utils.cpp_extension``
does while it compiles; the display (a terminal console) must show each step while the build runs.
"""
from __future__ import annotations

import io
import re

import pytest
from rich.console import Console
from tests.up.test_build_against_torch import _torch_sdist

from torchenv.backends.buildprogress import build_step
from torchenv.ui import Ui

NINJA_BACKEND = '''
import os, sys, time, zipfile

def get_requires_for_build_wheel(config_settings=None):
    return []

def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    import torch
    for i in range(1, 4):
        print("[%d/3] c++ -MMD -c op%d.cpp -o op%d.o" % (i, i, i), flush=True)
        time.sleep(0.6)
    name = "fastop-1.0-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w") as z:
        z.writestr("fastop.py", "BUILT_WITH = %r\\n" % torch.__version__)
        z.writestr("fastop-1.0.dist-info/METADATA", "Metadata-Version: 2.1\\nName: fastop\\nVersion: 1.0\\n")
        z.writestr("fastop-1.0.dist-info/WHEEL",
                   "Wheel-Version: 1.0\\nGenerator: t\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n")
        z.writestr("fastop-1.0.dist-info/RECORD", "")
    return name
'''


def test_ninja_and_make_steps_are_read_and_other_lines_are_not():
    assert build_step("[12/48] /usr/local/cuda/bin/nvcc -c a.cu").shown == "[12/48]"
    assert build_step("[ 45%] Building CXX object ops.o").shown == "[45%]"
    assert build_step("error: [1/2] is not a step") is None and build_step("building 'op' extension") is None


@pytest.mark.parametrize("installer", ["uv"])
def test_a_build_shows_its_compile_step_and_elapsed_time_while_it_runs(world, monkeypatch):
    from tests.support.packages import build_index

    from torchenv.flows.up import run_up

    monkeypatch.setattr("tests.up.test_build_against_torch.SDIST_BACKEND", NINJA_BACKEND)
    build_index(world.root / "pypi", {"fastop": [_torch_sdist(world.root / "sdists")]})
    (world.project / "requirements.txt").write_text("fastop\n")
    ui, out = Ui(), io.StringIO()
    ui._console = Console(file=out, force_terminal=True, width=140, color_system=None)
    run_up(world.project, world.options(), ui)
    frames = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out.getvalue()).replace("\r", "\n").splitlines()
    building = [f for f in frames if "building fastop-1.0.tar.gz" in f]
    for step in ("[1/3]", "[2/3]", "[3/3]"):
        assert any(step in f and re.search(r"\d:\d\d", f) for f in building), (step, building[-5:])
    assert any(f.startswith("✓") for f in building), "the finished build says so, with its time"


def test_uvs_verbose_build_lines_are_read_too():
    assert build_step("DEBUG [3/7] c++ -c op.cpp").shown == "[3/7]"


def test_a_project_built_against_torch_shows_its_compile_step_while_it_installs(world):
    from tests.up.test_cuda_toolchain import _cuda_project

    from torchenv.flows.up import run_up

    _cuda_project(world.project)
    backend = world.project / "demo_backend.py"
    head = "def build_editable(wheel_directory, config_settings=None, metadata_directory=None):\n"
    backend.write_text(backend.read_text().replace(head, head + (
        "    import sys, time\n"
        "    for i in (1, 2):\n"
        "        print('[%d/2] c++ -c op%d.cpp' % (i, i), file=sys.stderr, flush=True)\n"
        "        time.sleep(0.6)\n")))
    ui, out = Ui(), io.StringIO()
    ui._console = Console(file=out, force_terminal=True, width=140, color_system=None)
    run_up(world.project, world.options(), ui)
    frames = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out.getvalue()).replace("\r", "\n").splitlines()
    installing = [f for f in frames if "installing the project itself" in f]
    assert any("[1/2]" in f for f in installing) and any("[2/2]" in f for f in installing), installing[-5:]
