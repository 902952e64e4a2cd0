"""`torchenv run -- CMD ...`: run a command inside the project's environment, exit with its code.

Why not ``source .venv/bin/activate``: it differs per shell and OS and conda prefixes need
more than PATH; this works the same everywhere and in CI.
"""
from __future__ import annotations

import argparse
import errno
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from ..i18n import _
from ._options import add_project

if TYPE_CHECKING:
    import subprocess


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("run", help=_("run a command with the project environment activated"),
                       description=_("Run CMD with the project's environment first on PATH (VIRTUAL_ENV or "
                                     "CONDA_PREFIX set, PYTHONHOME unset) and exit with its exit code."),
                       usage="torchenv run [-C DIR] [--env PATH] -- CMD [ARGS...]")
    add_project(p)
    p.add_argument("--env", metavar="PATH", help=_("environment to use (default: [env] path of torchenv.toml)"))
    p.add_argument("cmd", nargs=argparse.REMAINDER, metavar="CMD", help=_("the command and its arguments"))
    p.set_defaults(func=run, _parser=p)


def run(args: argparse.Namespace) -> int:
    from ..activation import activated_environ, find_env, project_env_path

    cmd = list(args.cmd)
    if cmd and cmd[0] == "--":
        cmd = cmd[1:]
    if not cmd:
        args._parser.error("give the command to run after --, e.g. `torchenv run -- python train.py`")
    env = find_env(project_env_path(Path(args.project).absolute(), args.env))
    environ = activated_environ(env)
    return run_command(cmd, environ)


def run_command(cmd: list[str], environ: dict[str, str]) -> int:
    """Run ``cmd`` (looked up on the activated PATH) and return its exit code (128+N for signal N)."""
    import shutil

    exe = shutil.which(cmd[0], path=environ.get("PATH")) or cmd[0]
    with _signals_held() as held:
        try:
            proc = held.popen([exe, *cmd[1:]], environ)
        except FileNotFoundError:
            return _cannot_start(f"{cmd[0]}: command not found in the environment or on PATH",
                                 "install it into the env (e.g. `torchenv run -- python -m pip install NAME`) or "
                                 "check the name", 127)
        except PermissionError as exc:
            return _cannot_start(f"{cmd[0]}: cannot execute ({exc.strerror})", None, 126)
        except OSError as exc:
            if exc.errno != errno.ENOEXEC:
                raise
            return _cannot_start(*_not_executable(cmd[0], exe), 126)
        code = held.wait(proc)
    return 128 - code if code < 0 else code


def _cannot_start(message: str, hint: str | None, code: int) -> int:
    from ..ui import Ui

    Ui().error(message, hint)
    return code


def _not_executable(name: str, path: str) -> tuple[str, str | None]:
    """Exec format error: a script without ``#!`` (the usual case) or a binary for another machine."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(2)
    except OSError:
        head = b""
    if head != b"#!":
        return (f"{name} has no #! line; run it as `torchenv run -- python {name}`",
                "or add a first line `#!/usr/bin/env python` to it")
    return f"{name}: cannot execute (exec format error: its #! line names no usable interpreter)", None


# Signals a terminal, a job runner (CI, Slurm, systemd) or `kill` sends to stop a command.
FORWARDED = ("SIGTERM", "SIGINT", "SIGHUP")
_SI_KERNEL = 0x80   # si_code of a signal the kernel sent (a terminal's Ctrl-C reaches the whole process group)


class _Held:
    """SIGTERM, SIGINT, SIGHUP (and SIGCHLD) blocked in torchenv, taken with ``sigtimedwait`` and passed on.

    Why ``sigtimedwait`` and not handlers: it tells who sent the signal. A Ctrl-C in the
    terminal already reached the child (same process group), and a second SIGINT would cut
    short its own clean-up (a training script saving a checkpoint); a ``kill -INT`` aimed
    at torchenv alone did not, and is passed on. SIGTERM and SIGHUP are always passed on.
    Blocked before the child starts (and unblocked in it), so no signal slips in between.
    """

    def __init__(self, sigs: set[int], old_mask: set[int]) -> None:
        self.sigs, self.old_mask = sigs, old_mask

    def popen(self, argv: list[str], environ: dict[str, str]) -> subprocess.Popen[bytes]:
        import signal
        import subprocess

        old = self.old_mask
        return subprocess.Popen(argv, env=environ,
                                preexec_fn=(lambda: signal.pthread_sigmask(signal.SIG_SETMASK, old)) if self.sigs
                                else None)

    def wait(self, proc: subprocess.Popen[bytes]) -> int:
        import signal

        if not self.sigs:                         # Windows: console signals reach the child directly
            return _wait_ignoring_ctrl_c(proc)
        while proc.poll() is None:
            info = signal.sigtimedwait(self.sigs, 0.25)
            if info is None or info.si_signo == signal.SIGCHLD:
                continue
            if info.si_signo == signal.SIGINT and info.si_code == _SI_KERNEL:
                continue
            try:
                proc.send_signal(info.si_signo)
            except ProcessLookupError:
                pass
        return proc.returncode


@contextmanager
def _signals_held() -> Iterator[_Held]:
    import signal

    if not hasattr(signal, "sigtimedwait"):
        yield _Held(set(), set())
        return
    sigs = {getattr(signal, name) for name in FORWARDED} | {signal.SIGCHLD}
    old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, sigs)
    try:
        yield _Held(sigs, old_mask)
    finally:
        pending = sigs - set(old_mask)            # already passed on: unblocking must not act on them again
        while pending and signal.sigtimedwait(pending, 0) is not None:
            pass
        signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)


def _wait_ignoring_ctrl_c(proc: subprocess.Popen[bytes]) -> int:
    while True:
        try:
            return proc.wait()
        except KeyboardInterrupt:   # the child got the same Ctrl-C; let it decide to exit
            continue
