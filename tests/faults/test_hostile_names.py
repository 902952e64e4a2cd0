"""Hostile names: a folder, env or channel named to run code never runs it.

A project cloned into ``x$(touch PWNED)y`` (or with backticks, quotes, a newline) is read by
every file torchenv writes for another program: the ``torchenv shell`` rcfile and prompt, the
env's ``.condarc`` and ``pip.conf``, the CI job and container recipe that name a bundle. Each
test starts the real reader where it is on this machine (bash, dash, tclsh) or parses the
file the way its reader does, and asserts nothing ran and the literal name survived.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

NAMES = [pytest.param("x$(touch PWNED)y", id="dollar-paren"),
         pytest.param("x`touch PWNED`y", id="backticks"),
         pytest.param("x\"; touch PWNED; \"y", id="double-quote"),
         pytest.param("x'; touch PWNED; 'y", id="single-quote"),
         pytest.param("x\ntouch PWNED\ny", id="newline")]


def _fake_venv(root: Path, folder: str) -> Path:
    env = root / folder / ".venv"
    (env / "bin").mkdir(parents=True)
    (env / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (env / "bin" / "python").symlink_to(sys.executable)
    return env


def _pwned(root: Path) -> list[str]:
    return [str(p.relative_to(root)) for p in root.rglob("PWNED*")]


@pytest.mark.parametrize("folder", NAMES)
@pytest.mark.parametrize("shell", ["bash", "dash"])
@pytest.mark.fault("project folder named to run code ({folder!r}) under `torchenv shell`",
                   where="`torchenv shell` starting {shell} with the env activated",
                   expect="the prompt shows the name with shell characters replaced; nothing runs")
def test_shell_prompt_never_runs_the_folder_name(tmp_path, folder, shell, observed):
    from torchenv.activation import activated_environ, find_env
    from torchenv.commands.shell import shell_argv

    binary = shutil.which(shell)
    if binary is None:
        pytest.skip(f"{shell} is not installed here")
    home = tmp_path / "home"
    home.mkdir()
    env = find_env(_fake_venv(tmp_path, folder))
    environ = activated_environ(env) | {"HOME": str(home), "ENV": ""}
    argv, cleanup = shell_argv(binary, env.name, environ)
    show = 'printf "%s" "${PS1@P}"' if shell == "bash" else 'printf "%s" "$PS1"'
    try:
        r = subprocess.run([*argv, "-c", show], env=environ, cwd=tmp_path, capture_output=True, text=True,
                           timeout=60)
    finally:
        for path in cleanup:
            path.unlink(missing_ok=True)
    assert _pwned(tmp_path) == [], r.stderr
    assert "syntax error" not in r.stderr, r.stderr
    assert r.stdout.startswith(f"({env.name}) "), (r.stdout, r.stderr)
    assert "$" not in env.name and "`" not in env.name and "\n" not in env.name
    observed(f"prompt {r.stdout.splitlines()[0][:40]!r}; nothing ran")


@pytest.mark.parametrize("folder", NAMES)
@pytest.mark.fault("env folder named to run code ({folder!r}) in VIRTUAL_ENV_PROMPT",
                   where="`torchenv run` / `shell` environment read by prompt themes",
                   expect="VIRTUAL_ENV_PROMPT holds no shell or prompt character")
def test_virtual_env_prompt_is_inert(tmp_path, folder, observed):
    from torchenv.activation import activated_environ, find_env

    environ = activated_environ(find_env(_fake_venv(tmp_path, folder)), base={"PATH": os.defpath})
    label = environ["VIRTUAL_ENV_PROMPT"]
    assert not set(label) & set("$`\"'\\%\n!"), label
    observed(f"VIRTUAL_ENV_PROMPT={label!r}")
