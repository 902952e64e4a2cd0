"""Resource faults: a full disk (env or cache), a read-only project, an unreachable or silent index."""
from __future__ import annotations

import time

import pytest
from tests.faults.tools.mounts import read_only, small_tmpfs
from tests.support import blackhole_url, closed_port_url, connects
from tests.support.console import unwrapped

from torchenv.lockfile.io import read_lock

CUT_S = 0.3     # how long a hanging connect really waits here (tests/support/connects.py)


@pytest.mark.fault("disk full while installing into the env", where="[env] path on a 14 MB tmpfs (the env's own pip takes about 8); a 12 MB package added",
                   expect="clean error saying the disk is full; old lock and config untouched; old packages still "
                          "import; after freeing space the next `up` finishes")
def test_disk_full_during_install(world, tmp_path, observed):
    with small_tmpfs(tmp_path / "small", "14m") as small:
        (world.project / "torchenv.toml").write_text(world.project.joinpath("torchenv.toml").read_text()
                                                     + f'\n[env]\npath = "{small}/venv"\n')
        r = world.up()
        assert r.rc == 0, r.text
        world.env_path = small / "venv"
        lock = world.lock.read_bytes()
        (world.project / "requirements.txt").write_text("bigpkg\n")
        full = world.up()
        assert full.rc != 0
        flat = unwrapped(full.err)
        assert "No space left on device" in flat and "Traceback" not in full.text, full.text
        assert world.lock.read_bytes() == lock
        observed(f"exit {full.rc}: {full.gist('No space left')}")
        (world.project / "requirements.txt").write_text("six\n")     # the user frees space: drops bigpkg
        again = world.up()
        assert again.rc == 0, again.text
        assert read_lock(world.lock).target("linux-x86_64-cpu").wheel("six")


@pytest.mark.fault("disk full in the download cache", where="`TORCHENV_HOME` on a 4 MB tmpfs; a 12 MB package",
                   expect="clean error saying the disk is full; no lock written; no partial files left in the cache")
def test_disk_full_in_the_cache(world, tmp_path, observed):
    with small_tmpfs(tmp_path / "cachefs", "4m") as fs:
        world.torchenv_home = fs / "home"
        (world.project / "requirements.txt").write_text("bigpkg\n")
        r = world.up()
        flat = unwrapped(r.err)
        assert r.rc != 0 and "No space left on device" in flat and "Traceback" not in r.text, r.text
        assert not world.lock.exists()
        assert world.cache_partials() == []
        observed(f"exit {r.rc}: {r.gist('No space left')}")


@pytest.mark.fault("read-only project, nothing to do", where="project bind-mounted read-only after a good `up`",
                   expect="the no-op `up` still succeeds (it only reads)")
def test_noop_up_works_on_a_read_only_project(world, observed):
    # mirrors in torchenv.toml, so a plain `up` (no flags) means the same intent as the first one
    toml = world.project / "torchenv.toml"
    toml.write_text(toml.read_text() + f'\n[mirror]\ntorch = "{world.torch_url}"\npypi = "{world.pypi_url}"\n')
    assert world.up(mirrors=False).rc == 0
    with read_only(world.project):
        r = world.cli("up", "-C", str(world.project))
    assert r.rc == 0 and "up to date" in r.out, r.text
    observed(r.out.strip()[:100])


@pytest.mark.fault("read-only project, work to do", where="requirements.txt changed, then project mounted read-only",
                   expect="clean error naming the read-only path (no traceback); env, lock, config untouched")
def test_read_only_project_with_work_to_do(guard, observed):
    world = guard.world
    (world.project / "requirements.txt").write_text("six\n")
    guard.accept_user_edits()
    with read_only(world.project):
        r = world.up()
    flat = unwrapped(r.err)
    observed(f"exit {r.rc}: {flat[:140]}")
    assert r.rc != 0 and "Traceback" not in r.text, r.text
    assert "read-only" in flat.lower() and str(world.project) in flat, flat
    guard.check(observed)


@pytest.mark.parametrize("kind", ["closed port", "silent host"])
@pytest.mark.fault("unreachable index ({kind})", where="both mirrors point at a dead 127.0.0.1 port",
                   expect="fails within 30 s, the message names the URL; no lock, no env")
def test_unreachable_index_fails_fast_naming_the_url(world, kind, observed):
    log = world.root / "connects.log"    # each connect's asked timeout; a hanging one cut to CUT_S

    def run(url):
        world.torch_url, world.pypi_url = url, url + "/simple"
        t0 = time.monotonic()
        r = world.up(timeout=120, env={connects.LOG: str(log), connects.CAP: str(CUT_S)})
        return r, time.monotonic() - t0

    if kind == "closed port":
        url = closed_port_url()
        r, took = run(url)
    else:
        with blackhole_url() as url:
            r, took = run(url)
            asked = connects.read_log(log, url.removeprefix("http://"))
            assert asked and all(t is not None and t <= 5 for t in asked), f"connect timeouts asked: {asked}"
            took += sum(t - CUT_S for t in asked)      # what the run takes with the timeouts torchenv asked for
    flat = unwrapped(r.err)
    assert r.rc != 0 and url in flat and "Traceback" not in r.text, r.text
    assert took < 30, f"took {took:.0f} s"
    assert not world.lock.exists() and not world.env.exists()
    bucket = "under 1 s" if took < 1 else "under 10 s" if took < 10 else "under 30 s"
    observed(f"failed {bucket}, exit {r.rc}: {r.gist(url)}")
