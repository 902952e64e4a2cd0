"""A torchenv.lock edited by hand, truncated, or written by a newer torchenv: refused with a clear
message naming the lock (and the package), never installed from, never rewritten."""
from __future__ import annotations

import re

import pytest
from tests.support.console import unwrapped
from tests.support.world import TORCH_FILE


def _edit(text: str, package: str, key: str, new: str | None) -> str:
    """Change (or, with None, delete) ``key`` in the ``[[target.package]]`` block of ``package``."""
    blocks = text.split("\n\n")
    for i, block in enumerate(blocks):
        if block.startswith("[[target.package]]") and f'\nname = "{package}"\n' in block:
            pattern = rf'^{key} = .*$\n?'
            blocks[i] = re.sub(pattern, "" if new is None else f"{key} = {new}\n", block + "\n",
                               flags=re.M).rstrip("\n")
            return "\n\n".join(blocks)
    raise AssertionError(f"no package {package} in the lock")


TAMPER = [
    pytest.param("sha256 of torch removed", lambda t: _edit(t, "torch", "sha256", None),
                 ["torchenv.lock", "torch", "sha256"], id="no-sha"),
    pytest.param("sha256 of torch not hex", lambda t: _edit(t, "torch", "sha256", '"xyz"'),
                 ["torchenv.lock", "torch", "64 lowercase hex"], id="bad-sha"),
    pytest.param("garbage TOML in the lock", lambda t: t.replace("[[target]]", "[[target]\n<<< HEAD"),
                 ["torchenv.lock:", "not valid TOML"], id="garbage"),
    pytest.param("lock truncated mid-file", lambda t: t[: len(t) * 2 // 3],
                 ["torchenv.lock"], id="truncated"),
    pytest.param("lock from a newer torchenv", lambda t: t.replace("version = 1\n", "version = 7\n", 1)
                 .replace('torchenv = "', 'torchenv = "9.0.0-', 1),
                 ["torchenv.lock", "newer torchenv", "upgrade torchenv"], id="newer"),
    pytest.param("an entry for torch whose file is another package (six, same version)",
                 lambda t: _edit(t, "torch", "filename", '"' + TORCH_FILE.replace("torch-", "six-", 1) + '"'),
                 ["torchenv.lock:", "package torch", "is the package six"], id="file-of-another-package"),
    pytest.param("a target table replaced by a string", lambda t: t.split("[machine]")[0] + 'target = "x"\n',
                 ["torchenv.lock", "target"], id="target-not-table"),
]


@pytest.mark.parametrize("label,mutate,expect", TAMPER)
@pytest.mark.fault("{label}", where="`torchenv up` on a project with a working env",
                   expect="exit 2 with a message naming the lock and what is wrong; lock and env untouched")
def test_tampered_lock_is_refused(guard, label, mutate, expect, observed):
    world = guard.world
    world.lock.write_text(mutate(world.lock.read_text()))
    guard.accept_user_edits()
    r = world.up()
    flat = unwrapped(r.err)
    assert r.rc == 2, r.text
    assert "Traceback" not in r.text, r.text
    for fragment in expect:
        assert fragment in flat, f"{fragment!r} missing from: {flat}"
    guard.check(observed)
    observed(flat[:150])


@pytest.mark.fault("sha256 of torch changed to another valid hash", where="`torchenv up` after the env was deleted",
                   expect="refused before installing: names the wheel and the locked hash; lock untouched")
def test_lock_hash_that_matches_no_file_is_refused(ready, observed):
    import shutil

    world = ready
    fake = "0" * 64
    world.lock.write_text(_edit(world.lock.read_text(), "torch", "sha256", f'"{fake}"'))
    before = world.lock.read_bytes()
    shutil.rmtree(world.env)
    r = world.up()
    flat = unwrapped(r.err)
    assert r.rc != 0 and "Traceback" not in r.text, r.text
    assert TORCH_FILE in flat and fake in flat, flat
    assert world.lock.read_bytes() == before
    assert not (world.site() / "torch").exists(), "torch was installed despite the hash mismatch"
    observed(f"exit {r.rc}: {flat[:150]}")


@pytest.mark.fault("sha256 of torch changed, env present", where="`torchenv up` on a working env",
                   expect="refused (names the wheel and hash); the working env keeps its packages")
def test_lock_hash_change_keeps_the_working_env(guard, observed):
    world = guard.world
    world.lock.write_text(_edit(world.lock.read_text(), "torch", "sha256", f'"{"1" * 64}"'))
    guard.accept_user_edits()
    r = world.up()
    assert r.rc != 0 and TORCH_FILE in r.err.replace("\n", "") and "Traceback" not in r.text, r.text
    guard.check(observed)
    assert world.env_imports() == "2.4.1+cpu"
    observed(f"exit {r.rc}")


@pytest.mark.fault("version of filelock changed by hand (filename and hash kept)",
                   where="`torchenv up` on a working env",
                   expect="exit 2: the lock names filelock and the inconsistent version")
def test_lock_version_edited_by_hand_is_refused(guard, observed):
    world = guard.world
    world.lock.write_text(_edit(world.lock.read_text(), "filelock", "version", '"3.0.0"'))
    r = world.up()
    flat = unwrapped(r.err)
    observed(f"exit {r.rc}: {' '.join(r.text.split())[:120]}")
    assert r.rc == 2 and "torchenv.lock" in flat and "filelock" in flat and "3.0.0" in flat, r.text
