"""`torchenv export modulefile|modulefile-lua`: `module load` under Environment Modules and Lmod, then Python.

Environment Modules runs from its own ``modulecmd.tcl`` (``TORCHENV_TEST_MODULECMD``, set by
.ci/run, or a ``modulecmd`` on PATH); Lmod from a login shell, as users have it. Outside CI a
missing module system skips with the reason; in CI it fails.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from tests.export.conftest import export, write_cuda_lock
from tests.support.skips import unavailable


def _modulecmd() -> str | None:
    found = os.environ.get("TORCHENV_TEST_MODULECMD") or shutil.which("modulecmd.tcl")
    return found if found and Path(found).is_file() else None


def _lmod() -> bool:
    done = subprocess.run(["bash", "-lc", "module --version"], capture_output=True, text=True)
    return "Modules based on Lua" in done.stdout + done.stderr


def _need(present: bool, what: str) -> None:
    if not present:
        unavailable(f"{what} is not installed here (.ci/run installs it)")


PROBE = ("import json, os, sys, torch; print(json.dumps({'torch': torch.__version__, 'prefix': sys.prefix, "
         "'cuda_home': os.environ.get('CUDA_HOME'), 'ld': os.environ.get('LD_LIBRARY_PATH', ''), "
         "'loaded': os.environ.get('LOADEDMODULES', '')}))")


def in_module_shell(system: str, modules: Path, *loads: str, then: str = f'python -c "{PROBE}"',
                    stop_on_error: bool = True):
    if system == "tcl":
        prelude = f'module() {{ eval "$(tclsh {_modulecmd()} bash "$@")"; }}'
        shell = ["bash", "-c"]
    else:
        prelude, shell = "", ["bash", "-lc"]
    script = "\n".join([prelude, "set -e" if stop_on_error else "", f"module use {modules}", *(f"module load {m}" for m in loads), then])
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "CUDA_HOME", "LOADEDMODULES",
                                                                     "_LMFILES_", "MODULEPATH", "__LMOD"))}
    return subprocess.run([*shell, script], capture_output=True, text=True, env=env)


SYSTEMS = [("tcl", "modulefile"), ("lua", "modulefile-lua")]


def _present(system: str) -> None:
    _need(_modulecmd() is not None if system == "tcl" else _lmod(),
          "Environment Modules" if system == "tcl" else "Lmod")


def modules_for(project: Path, kind: str, tmp_path: Path, *names: str) -> Path:
    """A modules folder holding the export of ``project`` under each name (MODULES_DIR/NAME/TARGET)."""
    modules = tmp_path / "modulefiles"
    modules.mkdir()
    for name in names or ("demo",):
        assert export(project, kind, "-o", str(modules), "--name", name) == 0
    return modules


def seen_in(done: subprocess.CompletedProcess) -> dict:
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("system,kind", SYSTEMS)
def test_module_load_activates_the_env_and_its_python_imports_torch(locked, tmp_path, system, kind):
    _present(system)
    seen = seen_in(in_module_shell(system, modules_for(locked.project, kind, tmp_path), "demo/linux-x86_64-cpu"))
    assert seen["torch"] == "2.4.1+cpu"
    assert Path(seen["prefix"]) == locked.env.resolve()
    assert seen["cuda_home"] is None                       # a cpu build sets no toolkit


@pytest.mark.parametrize("system,kind", SYSTEMS)
def test_cuda_module_points_at_the_matching_system_toolkit(tmp_path, monkeypatch, system, kind):
    _present(system)
    project = write_cuda_lock(tmp_path)
    subprocess.run(["python3", "-m", "venv", "--without-pip", str(project / ".venv")], check=True)
    site = next((project / ".venv" / "lib").glob("python3*")) / "site-packages"
    (site / "torch").mkdir(parents=True)
    (site / "torch" / "__init__.py").write_text('__version__ = "2.7.1+cu126"\n')
    for version in ("11.8", "12.6"):                       # two toolkits; the module must take 12.6
        root = tmp_path / f"cuda-{version}"
        (root / "bin").mkdir(parents=True)
        (root / "bin" / "nvcc").write_text("#!/bin/sh\n")
        (root / "bin" / "nvcc").chmod(0o755)
        (root / "version.json").write_text(json.dumps({"cuda": {"version": f"{version}.1"}}))
    monkeypatch.setenv("CUDA_HOME", str(tmp_path / "cuda-12.6"))
    monkeypatch.setenv("CUDA_PATH", str(tmp_path / "cuda-11.8"))
    seen = seen_in(in_module_shell(system, modules_for(project, kind, tmp_path), "demo/linux-x86_64-cu126"))
    assert seen["torch"] == "2.7.1+cu126"
    assert seen["cuda_home"] == str(tmp_path / "cuda-12.6")
    assert seen["ld"].split(":")[0] == str(tmp_path / "cuda-12.6" / "lib64")


@pytest.mark.parametrize("system,kind", SYSTEMS)
def test_two_torchenv_modules_never_stack(locked, tmp_path, system, kind):
    _present(system)
    modules = modules_for(locked.project, kind, tmp_path, "one", "two")
    done = in_module_shell(system, modules, "one/linux-x86_64-cpu", "two/linux-x86_64-cpu",
                           then='echo "LOADED=$LOADEDMODULES"', stop_on_error=False)
    loaded = next(line for line in done.stdout.splitlines() if line.startswith("LOADED="))
    if system == "tcl":                                    # Environment Modules refuses the second one
        assert loaded == "LOADED=one/linux-x86_64-cpu" and "conflict" in done.stderr
    else:                                                  # Lmod swaps one family member for the other
        assert loaded == "LOADED=two/linux-x86_64-cpu" and "replacing" in done.stderr


@pytest.mark.parametrize("system,kind", SYSTEMS)
def test_loading_without_an_env_says_to_run_up(tmp_path, system, kind):
    _present(system)
    done = in_module_shell(system, modules_for(write_cuda_lock(tmp_path), kind, tmp_path), "demo/linux-x86_64-cu126",
                           then="echo loaded")
    assert "loaded" not in done.stdout.split() or done.returncode != 0
    assert "run torchenv up in" in done.stderr
