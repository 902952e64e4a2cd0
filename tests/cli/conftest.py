"""The real ``python -m torchenv`` in a subprocess, as a user runs it from a shell.

Why subprocesses: closed or full stdout, a deleted working directory and ASCII-only encodings
are properties of the process torchenv starts in; an in-process ``main()`` cannot meet them.
"""
from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from tests.support.cli import Ran, run_cli, user_shell

TOML = '[torch]\nversion = "2.4"\ncuda = "cpu"\npython = "3.11"\n'


@dataclass
class Shell:
    """Runs torchenv with a private HOME/TORCHENV_HOME; ``sh`` wraps it where the shell matters."""

    home: Path

    def environ(self, **extra: str) -> dict[str, str]:
        return user_shell(home=self.home, torchenv_home=self.home / "torchenv", **{"TERM": "dumb", **extra})

    def torchenv(self, *args: str, cwd: Path, env: dict[str, str] | None = None, stdout=subprocess.PIPE,
                 script: str | None = None, timeout: float = 120) -> Ran:
        """``python -m torchenv ARGS`` in ``cwd``; with ``script``, run as ``sh -c SCRIPT`` where "$@" is it."""
        return run_cli(*args, cwd=cwd, env=self.environ(**(env or {})), stdout=stdout, script=script,
                       timeout=timeout)


@pytest.fixture
def sh(tmp_path) -> Shell:
    home = tmp_path / "home"
    home.mkdir()
    return Shell(home)


@pytest.fixture
def project(tmp_path) -> Path:
    """A project with a torchenv.toml and a source tree below it."""
    root = tmp_path / "proj"
    (root / "src" / "models").mkdir(parents=True)
    (root / "torchenv.toml").write_text(TOML)
    return root
