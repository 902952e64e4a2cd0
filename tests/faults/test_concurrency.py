"""Two ``up`` runs at once: on one project (a file lock decides) and on two projects sharing the cache."""
from __future__ import annotations

import re

import pytest
from tests.support.console import unwrapped
from tests.support.world import new_world

from torchenv.lockfile.io import read_lock


@pytest.mark.fault("two `up` on one project at once", where="two terminals, slow mirror so the runs overlap",
                   expect="both exit 0; the second waits, naming the first's PID; one good env and lock")
def test_two_ups_on_one_project_end_with_one_good_env(world, observed):
    world.serve(delay=0.3)
    procs = [world.popen(), world.popen()]
    outs = [p.communicate(timeout=180) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    waits = [(p, o) for p, o in zip(procs, outs) if "another torchenv" in o[0] + o[1]]
    assert len(waits) == 1, f"exactly one run should report waiting: {outs}"
    loser, (out, err) = waits[0]
    winner = next(p for p in procs if p is not loser)
    assert re.search(rf"another torchenv \(PID {winner.pid}\)", out + err), out + err
    assert world.env_imports() == "2.4.1+cpu"
    assert read_lock(world.lock).target("linux-x86_64-cpu").wheel("torch")
    assert world.leftovers() == []
    line = next(x for x in (out + err).splitlines() if "another torchenv" in x)
    observed("both exit 0; second printed: " + re.sub(r"PID \d+", "PID <first run>", line.strip()))


@pytest.mark.fault("two projects sharing one cache run `up` at once", where="`TORCHENV_HOME` shared, same wheels",
                   expect="both succeed with identical locks; the cache holds only complete files")
def test_two_projects_sharing_the_cache_both_succeed(world, mirrors, tmp_path, observed):
    other = new_world(tmp_path / "other", mirrors)
    try:
        other.torchenv_home = world.torchenv_home
        world.serve(delay=0.2)
        other.torch_url, other.pypi_url = world.torch_url, world.pypi_url
        procs = [world.popen(), other.popen()]
        outs = [p.communicate(timeout=180) for p in procs]
        assert [p.returncode for p in procs] == [0, 0], outs
        assert world.env_imports() == other.env_imports() == "2.4.1+cpu"
        assert read_lock(world.lock).targets == read_lock(other.lock).targets
        assert world.cache_partials() == []
        observed("both exit 0, same lock targets")
    finally:
        other.close()


@pytest.mark.fault("`torchenv bundle` after requirements.txt gained a package that is not locked yet",
                   where="a project with a working env and lock",
                   expect="exit 2: the lock is out of date, `torchenv lock` then bundle; no bundle written")
def test_bundle_of_a_stale_lock_is_refused(ready, observed):
    (ready.project / "requirements.txt").write_text("six\n")
    out = ready.root / "offline.tar"
    r = ready.cli("bundle", "-C", str(ready.project), "-o", str(out))
    flat = unwrapped(r.err)
    assert r.rc == 2, r.text
    assert "is out of date" in flat and "torchenv lock" in flat, flat
    assert not out.exists(), "a bundle of the stale lock was written"
    observed(f"exit {r.rc}, '{flat[flat.index('torchenv.lock'):][:140]}'")
