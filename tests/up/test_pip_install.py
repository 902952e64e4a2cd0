"""What the pip engine's install costs: no byte-compiling of what it installs, no recompiling of pip itself.

Why it matters: ``pip install`` compiled every module it installed (torch 2.13 cpu: ~17 s of a
~23 s install), which the uv engine never did (``up``'s verify writes the ``.pyc`` that ``import
torch`` needs); and the pip in a fresh env has no bytecode, so each run of it compiled the ~200
modules pip imports again wherever PYTHONDONTWRITEBYTECODE=1 is exported (containers, CI).
"""
from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
from tests.support.inbackend import write_package_project

from torchenv.engines import pip as pip_engine
from torchenv.engines import uv as uv_mod

PIP = pytest.mark.parametrize("installer", ["pip"], indirect=True)


def _site(world):
    return next((world.env / "lib").glob("python3*/site-packages"))


@pytest.fixture
def commands(monkeypatch) -> list[list[str]]:
    """Every command line the engines start."""
    seen: list[list[str]] = []
    real = subprocess.run

    def run(cmd, *args, **kwargs):
        seen.append([str(part) for part in cmd])
        return real(cmd, *args, **kwargs)

    monkeypatch.setattr(uv_mod.subprocess, "run", run)
    return seen


@PIP
def test_installed_packages_are_not_byte_compiled(world):
    world.run_up()          # --no-verify: nothing has imported the packages yet
    site = _site(world)
    assert (site / "torch" / "__init__.py").is_file()
    assert not list(site.glob("torch/**/*.pyc")), "pip compiled torch's modules"
    assert not list(site.glob("filelock/**/*.pyc")), "pip compiled filelock's modules"
    assert world.env_imports("filelock") == "3.1.0"


@PIP
def test_the_env_is_filled_by_the_compiled_pip_torchenv_resolves_with(world, commands):
    write_package_project(world.project)         # the project's editable install too
    world.run_up()
    python = str(world.env / "bin" / "python")
    installs = [cmd for cmd in commands if "install" in cmd and "--dry-run" not in cmd]
    assert len(installs) == 2 and "-e" in installs[1], commands
    resolving_pip = Path(importlib.util.find_spec("pip").origin).parent     # what `--dry-run` ran
    assert all(cmd[:2] == [python, str(resolving_pip / "__pip-runner__.py")] for cmd in installs), \
        f"the env's own (uncompiled) pip ran the install: {installs}"
    assert (_site(world) / "torch-2.4.1+cpu.dist-info" / "INSTALLER").read_text().strip() == "pip"
    own_pip = subprocess.run([python, "-m", "pip", "--version"], capture_output=True, text=True)
    assert own_pip.returncode == 0 and str(world.env) in own_pip.stdout, "the env keeps a pip of its own"


def test_an_env_python_torchenvs_pip_does_not_support_is_filled_by_the_envs_own_pip(tmp_path):
    pip_engine._own_pip_runner.cache_clear()
    env_python = tmp_path / "old-env" / "bin" / "python"
    env_python.parent.mkdir(parents=True)
    (tmp_path / "old-env" / "pyvenv.cfg").write_text("home = /usr/bin\nversion_info = 2.7.18\n")
    assert pip_engine.installing_pip(env_python) == [str(env_python), "-m", "pip"]
    (tmp_path / "old-env" / "pyvenv.cfg").write_text(
        f"home = /usr/bin\nversion_info = {sys.version_info[0]}.{sys.version_info[1]}.0\n")
    assert pip_engine.installing_pip(env_python)[1].endswith("__pip-runner__.py")


@PIP
def test_the_envs_own_pip_keeps_its_bytecode_even_with_pythondontwritebytecode(world, monkeypatch):
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.setattr(pip_engine, "_own_pip_runner", lambda python_version: None,   # torchenv has no usable pip
                        raising=False)
    world.run_up()
    site = _site(world)
    assert list(site.glob("pip/_internal/__pycache__/*.pyc")), "the next pip run compiles pip's modules again"
    assert not list(site.glob("torch/**/*.pyc")), "pip compiled torch's modules"
