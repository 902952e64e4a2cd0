"""torchenv installed the way users install it: ``./bootstrap`` into a fresh tool home.

Why: the dev env is an editable install, so tests that run it never meet what an installed
torchenv meets (no source tree beside the modules, a wheel's RECORD, the tool env's own
dependencies). The ``installed_torchenv`` fixture (tests/conftest.py) runs bootstrap once
per test run; xdist workers share it through :func:`build_once`.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def shared_base(tmp_path_factory) -> Path:
    """This test run's temp root, the same for every xdist worker (each worker has its own basetemp below it)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def build_once(tmp_path_factory, name: str, build: Callable[[Path], None]) -> Path:
    """``<run temp>/name``, made by ``build`` once per test run however many workers ask (file-locked).

    A build that fails leaves no marker, so the next worker tries again (and fails the same way).
    """
    from filelock import FileLock

    target = shared_base(tmp_path_factory) / name
    done = target.with_name(name + ".done")
    with FileLock(str(target) + ".lock"):
        if not done.is_file():
            shutil.rmtree(target, ignore_errors=True)
            build(target)
            done.write_text("")
    return target


def user_environ(**extra: str) -> dict[str, str]:
    """The environment a user's shell gives: no dev-env activation, plain output; pip config kept."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    env.update(NO_COLOR="1", COLUMNS="200", **extra)
    return env


@dataclass(frozen=True)
class InstalledTorchenv:
    home: Path           # TORCHENV_TOOL_HOME bootstrap installed into
    seconds: float       # what ``./bootstrap`` took (0 when another worker built it)

    @property
    def exe(self) -> Path:
        return self.home / "bin" / "torchenv"

    def run(self, *args: str, cwd: Path | None = None, timeout: float = 600,
            **env: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(self.exe), *args], env=user_environ(**env), capture_output=True, text=True,
                              timeout=timeout, cwd=cwd)


def bootstrap(home: Path, *args: str, timeout: float = 900, **env: str) -> subprocess.CompletedProcess:
    """``TORCHENV_TOOL_HOME=home ./bootstrap ARGS`` from this checkout."""
    return subprocess.run([str(REPO / "bootstrap"), *args], env=user_environ(TORCHENV_TOOL_HOME=str(home), **env),
                          capture_output=True, text=True, timeout=timeout)


def install_with_bootstrap(tmp_path_factory) -> InstalledTorchenv:
    timing: list[float] = []

    def build(home: Path) -> None:
        start = time.monotonic()
        proc = bootstrap(home, "--version")
        timing.append(time.monotonic() - start)
        assert proc.returncode == 0, f"./bootstrap failed (exit {proc.returncode}):\n{proc.stdout}{proc.stderr}"

    home = build_once(tmp_path_factory, "bootstrapped-tool", build)
    return InstalledTorchenv(home, timing[0] if timing else 0.0)
