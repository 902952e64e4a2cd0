"""`torchenv run` and `torchenv shell`: the env's interpreter first, exit codes passed through."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from torchenv.activation import activated_environ, activation_command, find_env
from torchenv.errors import EnvError


def torchenv(*args: str, cwd: Path | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ if env is None else env, COLUMNS="500")   # rich must not wrap messages
    return subprocess.run([sys.executable, "-m", "torchenv", *args], capture_output=True, text=True,
                          cwd=cwd, env=env, stdin=subprocess.DEVNULL)


def test_run_uses_the_env_interpreter(plain_venv):
    res = torchenv("run", "-C", str(plain_venv), "--", "python", "-c",
                   "import os, sys; print(sys.prefix); print(os.environ['VIRTUAL_ENV'])")
    assert res.returncode == 0, res.stderr
    prefix = str(plain_venv / ".venv")
    assert res.stdout.splitlines() == [prefix, prefix]


def test_run_propagates_exit_code_and_unsets_pythonhome(plain_venv, monkeypatch):
    from torchenv.cli import main

    monkeypatch.setenv("PYTHONHOME", "/nonexistent")   # would break the env's python if passed on
    rc = main(["run", "-C", str(plain_venv), "--", "python", "-c",
               "import os, sys; sys.exit(7 if 'PYTHONHOME' not in os.environ else 9)"])
    assert rc == 7


def test_run_reports_a_missing_env(tmp_path):
    res = torchenv("run", "-C", str(tmp_path), "--", "python", "-V")
    assert res.returncode == 1
    assert "no environment here yet" in res.stderr and "torchenv up" in res.stderr


def test_run_command_not_found(plain_venv):
    res = torchenv("run", "-C", str(plain_venv), "--", "no-such-tool-xyz")
    assert res.returncode == 127 and "no-such-tool-xyz: command not found" in res.stderr


def test_run_without_command_is_a_usage_error(plain_venv):
    res = torchenv("run", "-C", str(plain_venv))
    assert res.returncode == 2 and "give the command to run" in res.stderr


def test_shell_without_terminal_prints_activation(plain_venv):
    res = torchenv("shell", "-C", str(plain_venv), env=dict(os.environ, SHELL="/bin/bash"))
    assert res.returncode == 0
    assert res.stdout.strip() == f"source {plain_venv / '.venv' / 'bin' / 'activate'}"


def test_conda_prefix_is_detected_and_activated(tmp_path):
    prefix = tmp_path / "env"
    (prefix / "conda-meta").mkdir(parents=True)
    (prefix / "bin").mkdir()
    (prefix / "bin" / "python").write_text("")
    env = find_env(prefix, windows=False)
    assert env.kind == "conda"
    environ = activated_environ(env, {"PATH": "/usr/bin", "VIRTUAL_ENV": "/old/venv", "PYTHONHOME": "/x"})
    assert environ["PATH"].split(os.pathsep)[0] == str(prefix / "bin")
    assert environ["CONDA_PREFIX"] == str(prefix)
    assert "VIRTUAL_ENV" not in environ and "PYTHONHOME" not in environ
    assert activation_command(env, "/bin/zsh") == f"conda activate {prefix}"


def test_activating_leaves_a_previously_active_venv(plain_venv, tmp_path):
    env = find_env(plain_venv / ".venv")
    environ = activated_environ(env, {"PATH": os.pathsep.join(["/old/venv/bin", "/usr/bin"]),
                                      "VIRTUAL_ENV": "/old/venv"})
    assert environ["PATH"].split(os.pathsep) == [str(plain_venv / ".venv" / "bin"), "/usr/bin"]
    assert environ["VIRTUAL_ENV"] == str(plain_venv / ".venv")


def test_a_folder_that_is_not_an_env_is_refused(tmp_path):
    (tmp_path / "notenv").mkdir()
    with pytest.raises(EnvError, match="not a virtual environment or conda prefix"):
        find_env(tmp_path / "notenv")


def test_run_names_a_dangling_env_link(tmp_path):
    (tmp_path / ".venv").symlink_to(tmp_path / "moved-away")
    res = torchenv("run", "-C", str(tmp_path), "--", "python", "-V")
    assert res.returncode == 1 and "Traceback" not in res.stderr
    assert "is a symbolic link to" in res.stderr and "moved-away" in res.stderr and "does not exist" in res.stderr


def test_shell_print_gives_lines_a_direnv_envrc_can_eval_for_a_conda_prefix(tmp_path):
    """direnv evaluates .envrc in a bash without conda's shell function: `conda activate` would fail there."""
    prefix = tmp_path / "env"
    (prefix / "conda-meta").mkdir(parents=True)
    (prefix / "bin").mkdir()
    (prefix / "bin" / "python").write_text("#!/bin/sh\necho env-python\n")
    (prefix / "bin" / "python").chmod(0o755)
    res = torchenv("shell", "--env", str(prefix), "--print", env=dict(os.environ, SHELL="/bin/bash"))
    assert res.returncode == 0, res.stderr
    ran = subprocess.run(["bash", "-c", f'{res.stdout}\npython; echo "$CONDA_PREFIX"'], capture_output=True,
                         text=True, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert ran.stdout.splitlines() == ["env-python", str(prefix)], ran.stderr


def test_shell_print_for_a_conda_prefix_sets_conda_prefix_not_conda_activate(tmp_path):
    from torchenv.activation import activation_lines

    prefix = tmp_path / "env"
    (prefix / "conda-meta").mkdir(parents=True)
    (prefix / "bin").mkdir()
    (prefix / "bin" / "python").write_text("")
    lines = activation_lines(find_env(prefix, windows=False), "/bin/zsh")
    assert "conda activate" not in lines
    assert f"export CONDA_PREFIX={prefix}" in lines.splitlines()
    assert f'export PATH={prefix / "bin"}:"$PATH"' in lines.splitlines()
    fish = activation_lines(find_env(prefix, windows=False), "/usr/bin/fish").splitlines()
    assert f"set -gx PATH {prefix / 'bin'} $PATH" in fish
