"""The real ``python -m torchenv`` in a subprocess, as a user runs it from a shell.

Why subprocesses: closed or full stdout, a deleted working directory and ASCII-only encodings
are properties of the process torchenv starts in; an in-process ``main()`` cannot meet them.
"""
from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
MACHINE = ("--assume-os", "linux", "--assume-arch", "x86_64", "--assume-no-gpu", "--assume-python", "3.11")
TOML = '[torch]\nversion = "2.4"\ncuda = "cpu"\npython = "3.11"\n'


@dataclass(frozen=True)
class Ran:
    rc: int
    out: str
    err: str

    @property
    def text(self) -> str:
        return self.out + self.err

    @property
    def err_lines(self) -> list[str]:
        return [line for line in self.err.splitlines() if line.strip()]


@dataclass
class Shell:
    """Runs torchenv with a private HOME/TORCHENV_HOME; ``sh`` wraps it where the shell matters."""

    home: Path

    def environ(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("PIP_", "UV_", "XDG_", "CONDA", "VIRTUAL_ENV", "TORCHENV_", "PYTHONIO"))}
        env.update(HOME=str(self.home), TORCHENV_HOME=str(self.home / "torchenv"), PYTHONPATH=str(REPO / "src"),
                   NO_COLOR="1", COLUMNS="200", TERM="dumb")
        env.update(extra)
        return env

    def torchenv(self, *args: str, cwd: Path, env: dict[str, str] | None = None, stdout=subprocess.PIPE,
                 script: str | None = None, timeout: float = 120) -> Ran:
        """``python -m torchenv ARGS`` in ``cwd``; with ``script``, run as ``sh -c SCRIPT`` where "$@" is it."""
        cmd = [sys.executable, "-m", "torchenv", *args]
        if script is not None:
            cmd = ["sh", "-c", script, "sh", *cmd]
        p = subprocess.run(cmd, cwd=cwd, env=self.environ(**(env or {})), stdout=stdout,
                           stderr=subprocess.PIPE, text=True, timeout=timeout)
        return Ran(p.returncode, p.stdout or "", p.stderr)


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
