"""The real ``python -m torchenv`` in a subprocess, with the environment a user's clean shell gives it.

Why one runner: the CLI, fault and mirror end-to-end suites each started torchenv their own way and each
scrubbed the developer's environment a little differently; a variable one of them forgot (a ``UV_`` cache,
a ``PIP_`` index, an active ``VIRTUAL_ENV``) made a test depend on the machine it ran on.

    env = user_shell(home=h, torchenv_home=h / "torchenv", COLUMNS="80")
    ran = run_cli("plan", "-C", str(project), cwd=project, env=env)
    ran.rc, ran.out, ran.err, ran.text, ran.elapsed

``parse_args("up", "-C", dir)`` is the argparse namespace the CLI builds, for in-process runs.
"""
from __future__ import annotations

import argparse
import functools
import os
import re
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# what a developer's shell may carry that a user's would not, or that would redirect torchenv's tools
SCRUBBED = ("PIP_", "UV_", "XDG_", "CONDA", "VIRTUAL_ENV", "TORCHENV_", "PYTHONIO", "PYTHONPATH")
MACHINE = ("--assume-os", "linux", "--assume-arch", "x86_64", "--assume-no-gpu", "--assume-python", "3.11")


@functools.cache
def _parser() -> argparse.ArgumentParser:
    from torchenv.commands import build_parser

    return build_parser()


def parse_args(*argv: str) -> argparse.Namespace:
    """``torchenv ARGV`` as the CLI parses it. The parser is built once per process: building it takes
    ~10 ms, and the in-process ``up`` of a property test runs hundreds of times."""
    return _parser().parse_args(list(argv))


@dataclass(frozen=True)
class Ran:
    """One finished torchenv process: exit status, its two streams, pid and wall seconds."""

    rc: int
    out: str
    err: str
    pid: int = 0
    elapsed: float = 0.0

    @property
    def text(self) -> str:
        return self.out + self.err

    @property
    def err_lines(self) -> list[str]:
        return [line for line in self.err.splitlines() if line.strip()]

    @property
    def status(self) -> str:
        """How ``up`` summed up its work: installed / repaired / synced / up to date / ..."""
        m = re.search(r"\(target [^,()]+, (\w[\w-]*)\)", self.out)
        return m.group(1) if m else ("up to date" if "is up to date" in self.out else "?")

    def gist(self, needle: str, width: int = 160) -> str:
        """The part of the output around ``needle`` (for the reliability table)."""
        flat = " ".join(self.text.split())
        i = flat.find(needle)
        return flat[:width] if i < 0 else flat[max(0, i - width // 3): i + 2 * width // 3]


def user_shell(*, home: Path, torchenv_home: Path, scrub: Sequence[str] = SCRUBBED, **extra: str) -> dict[str, str]:
    """This process's environment less ``scrub`` (prefixes), with a private HOME and torchenv home, this
    checkout's ``src`` importable, plain wide output; ``extra`` last."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(tuple(scrub))}
    env.update(HOME=str(home), TORCHENV_HOME=str(torchenv_home), PYTHONPATH=str(REPO / "src"),
               NO_COLOR="1", COLUMNS="200")
    env.update(extra)
    return env


def cli_command(*args: str, runner: Path | None = None) -> list[str]:
    """``python -m torchenv ARGS``, or ``python RUNNER ARGS`` for a wrapper that hands over to ``cli.main``."""
    return [sys.executable, *([str(runner)] if runner else ["-m", "torchenv"]), *args]


def popen_cli(*args: str, cwd: Path, env: dict[str, str], runner: Path | None = None) -> subprocess.Popen:
    """Started in its own session, so a test can signal it and its children as a terminal would."""
    return subprocess.Popen(cli_command(*args, runner=runner), env=env, cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


def finish(proc: subprocess.Popen, *, timeout: float = 120, started: float | None = None) -> Ran:
    out, err = proc.communicate(timeout=timeout)
    took = time.monotonic() - started if started is not None else 0.0
    return Ran(proc.returncode, out or "", err or "", proc.pid, took)


def run_cli(*args: str, cwd: Path, env: dict[str, str], timeout: float = 120, runner: Path | None = None,
            script: str | None = None, stdout=subprocess.PIPE) -> Ran:
    """Run torchenv to the end; with ``script``, as ``sh -c SCRIPT`` where ``"$@"`` is the torchenv command."""
    cmd = cli_command(*args, runner=runner)
    if script is not None:
        cmd = ["sh", "-c", script, "sh", *cmd]
    start = time.monotonic()
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=timeout)
    return Ran(p.returncode, p.stdout or "", p.stderr or "", 0, time.monotonic() - start)
