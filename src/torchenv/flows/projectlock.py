"""One ``up``/``lock`` at a time per project: ``<project>/.torchenv/up.lock`` (+ the holder's PID beside it).

Why wait instead of failing: two ``up`` runs started together (two terminals, a CI retry)
should end with one good env; the second waits, then finds the env up to date.
"""
from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..i18n import _
from ..paths import STATE_DIR

LOCK_NAME = "up.lock"
PID_NAME = "up.pid"


class _Flock:
    """``filelock.FileLock``'s ``acquire``/``release`` for POSIX, on the same file with the same ``flock``.

    Why not filelock itself here: importing it (typing, inspect, logging, secrets...) costs
    10-35 ms on every ``up`` that is not a no-op; ``fcntl.flock`` is what it calls on POSIX,
    so runs of either kind exclude each other. Elsewhere (Windows) filelock is used.
    """

    def __init__(self, path: str) -> None:
        self.path, self.fd = path, -1

    def acquire(self, timeout: float = -1) -> None:
        import fcntl
        import time

        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666)   # the umask decides, as for every other file
        deadline = None if timeout < 0 else time.monotonic() + timeout
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    self.fd = fd
                    return
                except BlockingIOError:
                    if deadline is not None and time.monotonic() >= deadline:
                        raise _Timeout(self.path) from None
                    time.sleep(0.05)
        except BaseException:
            os.close(fd)
            raise

    def release(self) -> None:
        if self.fd >= 0:
            import fcntl

            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = -1


class _Timeout(TimeoutError):
    """The lock is held by another process (a ``TimeoutError``, as filelock's ``Timeout`` is)."""


def _file_lock(path: str) -> tuple[Any, type[BaseException]]:
    """(a lock on ``path``, the exception its ``acquire`` raises when another process holds it)."""
    try:
        import fcntl  # noqa: F401
    except ImportError:   # pragma: no cover - Windows
        from filelock import FileLock, Timeout

        return FileLock(path), Timeout
    return _Flock(path), _Timeout


@contextmanager
def project_lock(project_dir: Path, ui: Any = None, *, timeout: float = -1) -> Iterator[bool]:
    """Hold the project's lock; yields whether another process held it first (and we waited)."""
    from ..errors import ConcurrentRun

    state = Path(project_dir) / STATE_DIR
    try:
        state.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _not_writable(project_dir, exc) from None
    lock, Timeout = _file_lock(str(state / LOCK_NAME))
    pid_file = state / PID_NAME
    waited = False
    try:
        lock.acquire(timeout=0)
    except Timeout:
        waited = True
        holder = _holder_pid(pid_file, lock, Timeout)
        try:
            if holder is not None:
                _say_waiting(ui, holder, project_dir)
                lock.acquire(timeout=timeout)
        except Timeout:
            raise ConcurrentRun(f"another torchenv (PID {holder}) still holds {state / LOCK_NAME}",
                                hint=f"wait for it, or stop process {holder} if it is stuck") from None
    except OSError as exc:      # read-only project, permissions (after Timeout: it is an OSError too)
        raise _not_writable(project_dir, exc) from None
    try:
        pid_file.write_text(f"{os.getpid()}\n")
        _remove_stale_temps(Path(project_dir))
        yield waited
    finally:
        pid_file.unlink(missing_ok=True)
        lock.release()


PID_WAIT_S = 1.0


def _holder_pid(pid_file: Path, lock: Any, timeout_error: type[BaseException]) -> str | None:
    """The PID the holder wrote, or ``None`` when the lock came free while asking (we hold it now).

    Why poll: the holder writes its PID just after taking the lock and removes it just before
    letting go, so a run that asks in either gap finds no file. It asks again for up to
    ``PID_WAIT_S``, taking the lock if it is free, before it names the holder ``?``.
    """
    import time

    deadline = time.monotonic() + PID_WAIT_S
    while True:
        try:
            holder = pid_file.read_text().strip()
        except OSError:
            holder = ""
        if holder:
            return holder
        try:
            lock.acquire(timeout=0)
            return None
        except timeout_error:
            if time.monotonic() >= deadline:
                return "?"
        time.sleep(0.02)


def _say_waiting(ui: Any, holder: str, project_dir: Path) -> None:
    if ui is not None:
        ui.warn(_("another torchenv (PID {pid}) is working in {project}; waiting for it to finish").format(
            pid=holder, project=project_dir))


def _not_writable(project_dir: Path, exc: OSError) -> Exception:
    from ..errors import EnvError

    keeps = "torchenv keeps torchenv.lock and its run lock (.torchenv/) in the project folder"
    if isinstance(exc, PermissionError):
        from ..oserrors import permission_denied

        denied = permission_denied(exc)
        return EnvError(denied.message, hint=f"{keeps}; {denied.hint}, or work on a writable copy")
    return EnvError(f"cannot write in {project_dir}: {exc.strerror or exc}",
                    hint=f"{keeps}; make it writable, or work on a writable copy")


def _remove_stale_temps(project_dir: Path) -> None:
    """Temp files of a lock write that was killed (kill -9, power loss) before its rename.

    Safe: every writer of torchenv.lock holds this project lock, so no live write owns them.
    """
    for tmp in project_dir.glob(".torchenv.lock.*.tmp"):
        tmp.unlink(missing_ok=True)
