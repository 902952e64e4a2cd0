"""A cloned project as a user meets it: ``torchenv init`` then ``torchenv up`` with no flags, on real torch wheels.

The project has a ``pyproject.toml`` (setuptools build system, a console script) whose code imports
torchvision, and no torchenv.toml. On a machine without a GPU whose PyTorch index cannot be reached,
``up`` must still build an env (from what pip's configuration and PyPI can serve), install the project
itself so its console script runs through ``torchenv run``, and a second ``up`` must be a no-op.

    python -m pytest tests/up/test_e2e_real_project.py -m integration -q
"""
from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from tests.support.assets import find_wheel, index_holding, need, shared_uv_cache
from tests.support.cputime import cpu_time
from tests.support.network import pypi_reachable

pytestmark = [pytest.mark.integration, pytest.mark.network]

PYPROJECT = """[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "vision-demo"
version = "0.1.0"
requires-python = ">=3.9"

[project.scripts]
vision-demo = "vision_demo.cli:main"

[tool.setuptools]
packages = ["vision_demo"]
"""

CLI = """import torch
import torchvision


def main():
    x = torch.rand(1, 3, 8, 8)
    y = torchvision.transforms.functional.hflip(x)
    print("vision-demo ok", torchvision.__version__, tuple(y.shape))
"""


def _torchenv(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    exe = Path(sys.executable).parent / "torchenv"
    return subprocess.run([str(exe), *args], cwd=cwd, capture_output=True, text=True, timeout=1500,
                          env={**os.environ, "COLUMNS": "200"})


@pytest.mark.timeout(1800)
def test_init_and_up_with_no_flags_run_the_projects_console_script(tmp_path, monkeypatch):
    need(pypi_reachable(), "PyPI (the CUDA runtime wheels of PyPI's torch build exist only there)")
    need(index_holding("torch", "2.14.1"), "a local simple index (pip's extra-index-url) holding torch 2.14.1")
    need(find_wheel("torchvision", "0.29.1"), "the torchvision 0.29.1 cp311 Linux x86_64 wheel")
    monkeypatch.setenv("UV_CACHE_DIR", str(shared_uv_cache()))    # the CUDA stack unpacked once, shared
    project = tmp_path / "vision-demo"
    (project / "vision_demo").mkdir(parents=True)
    (project / "pyproject.toml").write_text(PYPROJECT)
    (project / "vision_demo" / "__init__.py").write_text("")
    (project / "vision_demo" / "cli.py").write_text(CLI)

    init = _torchenv("init", cwd=project)
    assert init.returncode == 0, init.stdout + init.stderr
    assert "torchvision" in (project / "torchenv.toml").read_text(), "init noticed the torchvision import"
    up = _torchenv("up", cwd=project)
    assert up.returncode == 0, up.stdout + up.stderr
    assert "installed the project itself" in up.stdout + up.stderr

    with ThreadPoolExecutor(3) as pool:     # three reads of the built env, each importing torch: at once
        script_run = pool.submit(_torchenv, "run", "--", "vision-demo", cwd=project)
        elsewhere_run = pool.submit(_torchenv, "run", "-C", str(project), "--", "python", "-c",
                                    "import vision_demo.cli as c; c.main()", cwd=tmp_path)
        pip_run = pool.submit(subprocess.run, [str(project / ".venv" / "bin" / "python"), "-m", "pip", "--version"],
                              capture_output=True, text=True)
    script, elsewhere, pip = script_run.result(), elsewhere_run.result(), pip_run.result()
    assert script.returncode == 0 and "vision-demo ok" in script.stdout, script.stdout + script.stderr
    assert "vision-demo ok" in elsewhere.stdout, elsewhere.stdout + elsewhere.stderr
    assert pip.returncode == 0, pip.stderr

    with cpu_time() as spent:
        again = _torchenv("up", cwd=project)
    assert again.returncode == 0 and "is up to date" in again.stdout, again.stdout + again.stderr
    assert spent.seconds < 1.0, f"the no-op up took {spent.seconds:.2f} CPU seconds"
