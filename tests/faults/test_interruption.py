"""Ctrl-C and kill -9 at each stage of ``up``: the next ``up`` finishes the job, nothing is half-written.

The project starts from a good env + lock; then requirements.txt gains ``six``, so ``up``
must re-lock, download, install, write the lock and verify. The run is killed (the whole
process group, as a terminal's Ctrl-C or a crash would) at one point of that work.
"""
from __future__ import annotations

import signal
from dataclasses import dataclass

import pytest
from tests.support.skips import unavailable
from tests.support.world import SIX_FILE, TORCH_FILE

from torchenv.lockfile.io import read_lock

# the one file whose download a kill must land in: only its answer waits, the index pages do not
SLOW_SIX = {f"files/{SIX_FILE}": 1.0}
SLOW_TORCH = {f"files/{TORCH_FILE}": 1.0}


@dataclass(frozen=True)
class Point:
    label: str
    hook: str | None          # pause point in tests/support/hooked_cli.py, or None: poll for a file
    slow_pypi: dict | None = None    # {file: seconds} the PyPI mirror waits before answering
    verify: bool = False


POINTS = [
    Point("download (partial file in the cache)", None, slow_pypi=SLOW_SIX),
    Point("install (one package in, the rest not)", "install-partial"),
    Point("lock write (temp file written, not renamed)", "lock-write"),
    Point("verify (after install and lock)", "verify", verify=True),
]
SIGNALS = [pytest.param(signal.SIGKILL, id="kill-9"), pytest.param(signal.SIGINT, id="ctrl-c")]


class Sig:
    def __init__(self, sig):
        self.sig = sig
        self.label = "kill -9" if sig == signal.SIGKILL else "Ctrl-C (SIGINT)"


def _reached(world, point: Point):
    if point.hook:
        return world.marker.exists
    return lambda: bool(world.cache_partials())


@pytest.mark.parametrize("sig", [pytest.param(Sig(p.values[0]), id=p.id) for p in SIGNALS])
@pytest.mark.parametrize("point", POINTS, ids=[p.hook or "download" for p in POINTS])
@pytest.mark.fault("{sig} during {point}", where="`torchenv up` after requirements.txt gained a package",
                   expect="lock is the old bytes or a complete new one; no *.tmp left; the next `up` finishes "
                          "(env imports the new package, lock lists it); $HOME config untouched")
def test_interrupted_up_is_finished_by_the_next_up(guard, point, sig, observed):
    world = guard.world
    old_lock = world.lock.read_bytes()
    (world.project / "requirements.txt").write_text("six\n")
    guard.before["project"] = guard._take()["project"]      # the user's edit is part of "before"
    world.serve(pypi_slow=point.slow_pypi)
    extra = ("--verify",) if point.verify else ()
    proc = world.popen(*extra, hook=point.hook)
    killed = world.kill_when(proc, _reached(world, point), sig.sig)

    now = world.lock.read_bytes()
    assert now == old_lock or read_lock(world.lock).target("linux-x86_64-cpu").wheel("six"), \
        "torchenv.lock is neither the old lock nor a complete new one"
    if sig.sig == signal.SIGINT:
        assert killed.rc == 130, killed.text
        assert "interrupted" in killed.err and "Traceback" not in killed.err, killed.err
        assert world.leftovers() == [] and world.cache_partials() == []
        observed(f"exit 130, '{killed.err.strip().splitlines()[-1][:80]}'")

    world.serve()
    again = world.up(*extra and ())
    assert again.rc == 0, again.text
    assert world.env_imports("six") == "1.16.0" and world.env_imports("torch") == "2.4.1+cpu"
    assert read_lock(world.lock).target("linux-x86_64-cpu").wheel("six").version == "1.16.0"
    assert world.leftovers() == [], "temp files left in the project after the next up"
    observed(f"next up: {again.status}")
    assert world.up().out.strip().endswith("(target linux-x86_64-cpu)"), "third up should be a no-op"
    after = guard._take()
    assert after["home"] == guard.before["home"], "config under $HOME changed"
    assert (world.project / "torchenv.toml").read_bytes() == b'[torch]\nversion = "2.4"\ncuda = "cpu"\npython = "3.11"\n'


@pytest.mark.fault("kill -9 during the first `up`'s download", where="fresh project, slow torch mirror",
                   expect="no lock written; next `up` repairs the half-made env and writes the lock")
def test_killed_first_up_is_finished_by_the_next(world, observed):
    world.serve(slow=SLOW_TORCH)
    proc = world.popen()
    world.kill_when(proc, lambda: bool(world.cache_partials()), signal.SIGKILL)
    assert not world.lock.exists(), "a lock was written before the install finished"
    world.serve()
    again = world.up()
    assert again.rc == 0, again.text
    assert world.env_imports() == "2.4.1+cpu"
    assert read_lock(world.lock).target("linux-x86_64-cpu").wheel("torch")
    assert world.leftovers() == []
    observed(f"next up: {again.status}")


@pytest.mark.fault("kill -9 leaves a partial download in the cache", where="artifact cache (`TORCHENV_HOME`)",
                   expect="a later `up` that downloads the file removes the dead partial (no disk leak per crash)")
def test_stale_partial_downloads_do_not_pile_up(world, observed):
    import os
    import time

    world.serve(slow=SLOW_TORCH)
    proc = world.popen()
    world.kill_when(proc, lambda: bool(world.cache_partials()), signal.SIGKILL)
    partials = world.cache_partials()
    assert partials
    cache = world.torchenv_home / "cache" / "artifacts"
    for rel in partials:          # the crash was yesterday: no live download owns these
        os.utime(cache / rel, (time.time() - 86400, time.time() - 86400))
    world.serve()
    assert world.up().rc == 0
    observed(f"left after next up: {world.cache_partials() or 'none'}")
    assert world.cache_partials() == [], "partial downloads of killed runs stay in the cache forever"


@pytest.mark.fault("kill -9 right after the env folder was created", where="the first `torchenv up` of a project",
                   expect="the next plain `up` recognises the half-made env as its own and finishes it (no --force)")
def test_kill_right_after_the_env_was_created_is_finished_by_the_next_up(world, observed):
    proc = world.popen(hook="venv-created")
    world.kill_when(proc, world.marker.exists, signal.SIGKILL)
    assert (world.project / ".venv" / "pyvenv.cfg").is_file(), "the kill did not land after the env was made"
    again = world.up()
    assert again.rc == 0, again.text
    assert world.env_imports() == "2.4.1+cpu"
    observed(f"next `up`: exit 0, '{again.gist('ready', 80) or again.out.strip().splitlines()[-1][:80]}'")


# --- `torchenv run`: signals to its process group, and a kill -9 of torchenv itself -----------

# Counts every delivery: the C-level handler writes one byte per signal to the wakeup pipe (a
# Python-level counter would merge two that arrive before the interpreter looks).
COUNTER = ("import os, select, signal, sys, time\n"
           "r, w = os.pipe(); os.set_blocking(w, False)\n"
           "signal.signal(signal.SIGTERM, lambda s, f: None)\n"
           "signal.set_wakeup_fd(w)\n"
           "open(sys.argv[1], 'w').write(str(os.getpid()))\n"
           "select.select([r], [], [], 60)\n"
           "time.sleep(2.0)          # the checkpoint a training script saves on SIGTERM\n"
           "got = os.read(r, 100)\n"
           "open(sys.argv[1] + '.count', 'w').write(str(got.count(bytes([signal.SIGTERM]))))\n")
SLEEPER = ("import os, sys, time\n"
           "open(sys.argv[1], 'w').write(str(os.getpid()))\n"
           "time.sleep(60)\n")


def _run_in_own_session(world, script: str, pidfile, out=None):
    """`torchenv run -- python -c SCRIPT PIDFILE` as a job runner starts it (a session and group of its own)."""
    import os
    import subprocess
    import sys
    import time

    proc = subprocess.Popen([sys.executable, "-m", "torchenv", "run", "-C", str(world.project), "--",
                             "python", "-c", script, str(pidfile)], env=dict(os.environ, COLUMNS="500"),
                            stdout=out or subprocess.PIPE, stderr=out or subprocess.PIPE, text=True,
                            start_new_session=True,
                            stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while not (pidfile.exists() and pidfile.read_text()):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the command never started"
        time.sleep(0.02)
    return proc, int(pidfile.read_text())


def _gone(pid: int) -> bool:
    """Ended (a zombie counts: its parent, now init, may be slow to reap it)."""
    import os
    from pathlib import Path

    try:
        os.kill(pid, 0)
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (ProcessLookupError, FileNotFoundError):
        return True


@pytest.mark.fault("SIGTERM to the process group of `torchenv run` (as a job runner stops a job)",
                   where="`torchenv run -- python train.py` whose script saves a checkpoint on SIGTERM",
                   expect="the script gets SIGTERM once, finishes its clean-up, and torchenv exits with its code")
def test_group_sigterm_reaches_the_command_once(ready, tmp_path, observed):
    import os
    import time

    pidfile = tmp_path / "pid"
    proc, child = _run_in_own_session(ready, COUNTER, pidfile)
    # torchenv held still while the group's signal lands, so the command surely has it before torchenv
    # could pass on another (two signals close together can merge into one and hide the second)
    os.kill(proc.pid, signal.SIGSTOP)
    os.killpg(proc.pid, signal.SIGTERM)        # torchenv leads its group: the group it and the command started in
    time.sleep(0.5)
    os.kill(proc.pid, signal.SIGCONT)
    try:
        _, err = proc.communicate(timeout=30)
    except Exception:
        proc.kill()
        os.kill(child, signal.SIGKILL)
        raise
    count = (tmp_path / "pid.count").read_text()
    assert count == "1", f"the command got {count} SIGTERMs for one sent to the group"
    assert proc.returncode == 0, err
    observed(f"the command counted {count} SIGTERM; torchenv exit {proc.returncode}")


@pytest.mark.fault("kill -9 of `torchenv run`", where="`torchenv run -- python train.py` (Linux)",
                   expect="the command gets SIGTERM from the kernel (PR_SET_PDEATHSIG) and ends; nothing is orphaned")
def test_killed_torchenv_run_leaves_no_orphan(ready, tmp_path, observed):
    import os
    import sys
    import time

    if not sys.platform.startswith("linux"):
        unavailable("PR_SET_PDEATHSIG is Linux's")
    with open(tmp_path / "out", "w") as out:         # not a pipe: the command would hold it open
        proc, child = _run_in_own_session(ready, SLEEPER, tmp_path / "pid", out)
    proc.kill()
    proc.wait()
    deadline = time.monotonic() + 20
    while not _gone(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    orphaned = not _gone(child)
    if orphaned:
        os.kill(child, signal.SIGKILL)
    assert not orphaned, f"the command (pid {child}) outlived the killed torchenv"
    observed("the command ended with torchenv (SIGTERM from the kernel)")
