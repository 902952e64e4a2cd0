"""Ctrl-C and kill -9 at each stage of ``up``: the next ``up`` finishes the job, nothing is half-written.

The project starts from a good env + lock; then requirements.txt gains ``six``, so ``up``
must re-lock, download, install, write the lock and verify. The run is killed (the whole
process group, as a terminal's Ctrl-C or a crash would) at one point of that work.
"""
from __future__ import annotations

import signal
from dataclasses import dataclass

import pytest
from tests.support.world import SIX_FILE, TORCH_FILE

from torchenv.lock.io import read_lock

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
