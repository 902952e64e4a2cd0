"""Nothing lost: after each failed `up`, the existing env, torchenv.lock, torchenv.toml, requirements.txt
and the user's config under $HOME (pip.conf, .condarc) are byte for byte what they were.

(The bad-input, lock-tampering and read-only rows check the same with the same guard.)
"""
from __future__ import annotations

import signal

import pytest
from tests.faults.tools.mounts import small_tmpfs
from tests.support import closed_port_url
from tests.support.world import SIX_FILE


def unreachable(world, tmp_path):
    world.torch_url = world.pypi_url = closed_port_url()
    world.pypi_url += "/simple"
    return world.up()


def ctrl_c_mid_download(world, tmp_path):
    world.serve(pypi_slow={f"files/{SIX_FILE}": 1.0})     # only the new package's file waits
    proc = world.popen()
    return world.kill_when(proc, lambda: bool(world.cache_partials()), signal.SIGINT)


def disk_full_cache(world, tmp_path):
    (world.project / "requirements.txt").write_text("bigpkg\n")
    with small_tmpfs(tmp_path / "cachefs", "4m") as fs:
        world.torchenv_home = fs / "home"
        return world.up()


FAILURES = [pytest.param("mirrors unreachable", unreachable, id="unreachable"),
            pytest.param("Ctrl-C during the download", ctrl_c_mid_download, id="ctrl-c"),
            pytest.param("download cache disk full", disk_full_cache, id="disk-full")]


@pytest.mark.parametrize("label,fail", FAILURES)
@pytest.mark.fault("{label} while adding a package", where="`up` on a working project after requirements.txt changed",
                   expect="`up` fails; env, lock, torchenv.toml, requirements.txt, ~/.config/pip/pip.conf and "
                          "~/.condarc unchanged byte for byte; no temp files left")
def test_failed_up_loses_nothing(guard, tmp_path, label, fail, observed):
    world = guard.world
    (world.project / "requirements.txt").write_text("six\n")
    guard.accept_user_edits()
    snapshot_reqs = (world.project / "requirements.txt").read_bytes()
    r = fail(world, tmp_path)
    (world.project / "requirements.txt").write_bytes(snapshot_reqs)   # the fault may have edited it for the test
    assert r.rc != 0 and "Traceback" not in r.text, r.text
    guard.check(observed)
    assert world.leftovers() == []
    assert world.env_imports() == "2.4.1+cpu"


@pytest.mark.fault("torchenv.lock is a symbolic link to a lock shared by several checkouts",
                   where="`torchenv up` after requirements.txt changed",
                   expect="the new lock is written through the link (the shared file changes, the link stays)")
def test_a_linked_lock_is_written_through(ready, observed):
    shared = ready.root / "shared" / "team.lock"
    shared.parent.mkdir()
    ready.lock.rename(shared)
    ready.lock.symlink_to(shared)
    (ready.project / "requirements.txt").write_text("six\n")
    r = ready.up()
    assert r.rc == 0, r.text
    assert ready.lock.is_symlink(), "the link was replaced by a plain file: the checkouts no longer share a lock"
    assert 'name = "six"' in shared.read_text(), "the shared lock was not updated"
    observed("exit 0; torchenv.lock is still the link and the shared lock now has six")
