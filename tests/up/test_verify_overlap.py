"""``up`` writes torchenv.lock (and the env's pip.conf) while its verify imports torch, not before it.

Why it matters: ``import torch`` takes 2-4 s on a fresh env; the writes need nothing from it.
What must still hold: the verify marker is written before the script starts and says
"failed" after a failing verify; work that fails meanwhile stops the script and leaves the
marker saying the verify did not finish, and no lock.
"""
from __future__ import annotations

import sys

import pytest

SLOW_SCRIPT = "import time; time.sleep({seconds})"   # stands in for checks_script importing torch


def _recorded(world, monkeypatch, *, seconds: float = 1.5, lock_fails: bool = False) -> list[tuple]:
    """Record when the verify script starts and when the lock is written (and whether the script ran then)."""
    import torchenv.lockfile.io as lockio
    import torchenv.verification.runner as runner

    events: list[tuple] = []
    procs: list = []
    real_start, real_write = runner._start, lockio.write_lock

    def start(env_python, config):
        proc = real_start(env_python, config)
        procs.append(proc)
        events.append(("verify started",))
        return proc

    def write_lock(path, lock, *a, **kw):
        running = bool(procs) and procs[-1].poll() is None
        if lock_fails:
            from torchenv.errors import LockError

            raise LockError(f"{path}: disk full")
        real_write(path, lock, *a, **kw)
        events.append(("lock written", running))

    monkeypatch.setattr(runner, "_start", start)
    monkeypatch.setattr(runner, "script_argv",
                        lambda python, config: [sys.executable, "-c", SLOW_SCRIPT.format(seconds=seconds)])
    monkeypatch.setattr(lockio, "write_lock", write_lock)
    events.append(procs)        # the last item: the processes started
    return events


@pytest.mark.parametrize("installer", ["uv"], indirect=True)
def test_the_lock_is_written_while_the_verify_script_runs(world, monkeypatch):
    from torchenv.backends import state as st

    events = _recorded(world, monkeypatch)
    procs = events.pop()
    result = world.run_up("--verify")
    assert events == [("verify started",), ("lock written", True)], events
    assert world.read_lock().target("linux-x86_64-cpu").wheel("torch")
    # the stand-in prints no report: a failed verify, and its marker stays
    assert result.verify_ok is False and st.verify_problem(world.env) == "failed"
    assert procs[0].poll() is not None


@pytest.mark.parametrize("installer", ["uv"], indirect=True)
def test_a_failing_lock_write_stops_the_verify_and_leaves_no_lock(world, monkeypatch):
    from torchenv.backends import state as st
    from torchenv.errors import LockError

    events = _recorded(world, monkeypatch, seconds=60, lock_fails=True)
    procs = events.pop()
    with pytest.raises(LockError, match="disk full"):
        world.run_up("--verify")
    assert procs and procs[0].poll() is not None, "the verify script outlived the run"
    assert not (world.project / "torchenv.lock").exists()
    assert st.verify_problem(world.env) == "was interrupted"     # the next `up` verifies again


@pytest.mark.parametrize("installer", ["uv"], indirect=True)
def test_without_a_verify_the_lock_is_still_written(world, monkeypatch):
    events = _recorded(world, monkeypatch)
    events.pop()
    world.run_up()                                   # --no-verify
    assert events == [("lock written", False)], events
    assert world.read_lock().target("linux-x86_64-cpu").wheel("torch")
