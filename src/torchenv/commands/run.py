"""`torchenv run -- CMD ...`: run a command inside the project's environment, exit with its code.

Why not ``source .venv/bin/activate``: it differs per shell and OS and conda prefixes need
more than PATH; this works the same everywhere and in CI.
"""
from __future__ import annotations

import argparse
import errno
import os
import sys
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
    _refuse_unfinished(env.prefix)
    environ = activated_environ(env)
    return run_command(cmd, environ)


def _refuse_unfinished(prefix: Path) -> None:
    """An env whose last ``up`` stopped mid-install: say so (and why) instead of running in it."""
    from ..backends.state import unfinished
    from ..errors import EnvError

    why = unfinished(prefix)
    if why is not None:
        raise EnvError(_("{prefix} is not fully built: the last `torchenv up` did not finish installing it ({why})").format(
                           prefix=prefix, why=why),
                       hint=_("fix what that `up` reported, then run `torchenv up` to finish the environment "
                              "(`torchenv doctor` shows what is wrong)"))


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

    Why ``sigtimedwait`` and not handlers: it tells who sent the signal. A Ctrl-C or a hangup
    of the terminal (the kernel sends it to the whole foreground process group) already
    reached the child, and a second one would cut short its own clean-up (a training script
    saving a checkpoint); a ``kill`` aimed at torchenv alone did not, and is passed on.
    Why the command gets a process group of its own when there is no terminal: a job runner
    (CI, Slurm, systemd, ``timeout``) signals torchenv's whole group, and nothing tells that
    apart from a ``kill`` of torchenv alone; in a group of its own the command gets only the
    one torchenv passes on, and so does every process it started. On a terminal it stays in
    torchenv's group, which keeps its access to the terminal and job control (Ctrl-Z, ``fg``).
    Blocked before the child starts (and unblocked in it), so no signal slips in between.
    """

    def __init__(self, sigs: set[int], old_mask: set[int]) -> None:
        self.sigs, self.old_mask = sigs, old_mask
        self.own_group = False

    def popen(self, argv: list[str], environ: dict[str, str]) -> subprocess.Popen[bytes]:
        import signal
        import subprocess

        old, parent, own = self.old_mask, os.getpid(), bool(self.sigs) and not _has_terminal()

        def in_child() -> None:
            if own:
                os.setpgid(0, 0)
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
            _end_with_parent(parent)

        proc = subprocess.Popen(argv, env=environ, preexec_fn=in_child if self.sigs else None)
        if own:
            try:
                os.setpgid(proc.pid, proc.pid)    # also from here, so no signal finds the group not made yet
            except OSError:
                pass                              # the child did it first (and may have exec'd already)
        self.own_group = own
        return proc

    def wait(self, proc: subprocess.Popen[bytes]) -> int:
        import signal

        if not self.sigs:                         # Windows: console signals reach the child directly
            return _wait_ignoring_ctrl_c(proc)
        while proc.poll() is None:
            info = signal.sigtimedwait(self.sigs, 0.25)
            if info is None or info.si_signo == signal.SIGCHLD:
                continue
            if info.si_signo in (signal.SIGINT, signal.SIGHUP) and info.si_code == _SI_KERNEL:
                continue                          # the terminal sent it to the child's group as well
            try:
                if self.own_group:
                    os.killpg(proc.pid, info.si_signo)
                else:
                    proc.send_signal(info.si_signo)
            except ProcessLookupError:
                pass
        return proc.returncode


_PR_SET_PDEATHSIG = 1


def _has_terminal() -> bool:
    """Whether torchenv has a controlling terminal (its signals then come from it, to the whole group)."""
    try:
        fd = os.open("/dev/tty", os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return False
    os.close(fd)
    return True


def _end_with_parent(parent: int) -> None:
    """In the child, before exec: the kernel sends it SIGTERM when torchenv dies, even by ``kill -9``.

    Why ``PR_SET_PDEATHSIG`` and not a watchdog process: it costs nothing, needs no second
    process that could itself be killed, and SIGTERM (not SIGKILL) still lets a training
    script save its checkpoint. Linux only; elsewhere the command outlives a killed torchenv
    as before. A torchenv killed before the call is caught by the parent check after it.
    """
    import signal

    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGTERM)


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
