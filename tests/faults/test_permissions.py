"""Permissions: files torchenv writes are as readable as the umask makes any file, and every
permission problem a teammate meets is a message naming the path and its owner, not a traceback.

As root the CLI runs as ``nobody`` (root ignores permission bits); see tests/support/users.py.
"""
from __future__ import annotations

import os
import pwd
import shutil
import stat

import pytest
from tests.support.console import unwrapped
from tests.support.skips import unavailable
from tests.support.users import outsider, shared_dir
from tests.support.world import new_world


@pytest.fixture
def umask():
    """Run the CLI under a given umask (children inherit it), restoring ours afterwards."""
    before = os.umask(0o022)
    os.umask(before)

    def set_mask(mask: int) -> None:
        os.umask(mask)
    yield set_mask
    os.umask(before)


@pytest.mark.fault("umask {mask:o}: lock, state and report modes", where="`torchenv up --verify` on a new project",
                   expect="torchenv.lock and .torchenv/*.json are 0666 minus the umask, like any file the user makes")
@pytest.mark.parametrize("mask", [0o022, 0o002, 0o077], ids=["022", "002", "077"])
def test_project_files_follow_the_umask(world, umask, mask, observed):
    umask(mask)
    r = world.up("--verify")
    assert "Traceback" not in r.text, r.text
    written = [world.lock, *sorted((world.project / ".torchenv").glob("*.json"))]
    assert world.lock.is_file() and len(written) >= 2, (r.text, written)
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in written}
    assert modes == {name: 0o666 & ~mask for name in modes}, modes
    observed(", ".join(f"{n} {m:o}" for n, m in modes.items()))


@pytest.mark.fault("umask 002 in a team's shared folder: lock file, cache, stamps",
                   where="`torchenv up` on a new project with a fresh download cache",
                   expect=".torchenv/up.lock, every cached wheel and every file under .torchenv/ are 0664 (0666 minus "
                          "the umask): a teammate in the group can run `up` and reuse the cache")
def test_shared_files_follow_the_umask(world, umask, observed):
    umask(0o002)
    r = world.up()
    assert r.rc == 0, r.text
    assert world.torchenv_home is not None
    cache = world.torchenv_home / "cache" / "artifacts"   # torchenv's own; uv keeps its cache its own way
    written = [*sorted((world.project / ".torchenv").rglob("*")), *sorted(cache.rglob("*"))]
    files = {str(p): stat.S_IMODE(p.stat().st_mode) for p in written if p.is_file() and not p.is_symlink()}
    assert str(world.project / ".torchenv" / "up.lock") in files, sorted(files)
    assert any(name.endswith(".whl") for name in files), sorted(files)
    wrong = {name: f"{mode:o}" for name, mode in files.items() if mode != 0o664}
    assert not wrong, f"not 0664 under umask 002: {wrong}"
    observed(f"{len(files)} files under .torchenv/ and the cache, all 664 (up.lock and the cached wheels included)")


# --- a teammate who may not read, write or run something ---------------------------------------

@pytest.fixture
def team(mirrors):
    """A project after one `up` by its owner, in a folder other users can enter, and an outsider."""
    who = outsider()
    if who is None:
        unavailable("running as root without setpriv, a 'nobody' user or a Python that user may run")
    base = shared_dir("torchenv-perm-")
    world = new_world(base / "w", mirrors)
    assert world.up().rc == 0
    for folder in (base / "w", world.project):
        folder.chmod(0o755)
    home = base / "outsider"
    home.mkdir()
    who.give(home)
    yield world, who, home
    world.close()
    for path in [base, *base.rglob("*")]:
        if not path.is_symlink():
            path.chmod(0o755)
    shutil.rmtree(base)


def run_as(team_, *args: str, **extra_env: str):
    world, who, home = team_
    env = {"HOME": str(home), "TORCHENV_HOME": str(home / "torchenv"), "PATH": os.environ.get("PATH", ""),
           "NO_COLOR": "1", "COLUMNS": "400", **extra_env}
    return who.run(list(args), cwd=world.project, env=env)


def assert_names(r, path, who):
    flat = unwrapped(r.stderr)
    owner = pwd.getpwuid(path.stat().st_uid).pw_name
    assert r.returncode != 0, r.stdout + r.stderr
    assert "Traceback" not in r.stdout + r.stderr, r.stderr
    assert str(path) in flat and f"owner {owner}" in flat and f"you are {who.name}" in flat, flat
    return flat


@pytest.mark.fault("torchenv.lock not readable by this user", where="a teammate's `up --frozen` (lock mode 0600)",
                   expect="exit non-zero; names the lock, its owner and the chmod to ask for; no traceback")
def test_unreadable_lock_is_named_with_its_owner(team, observed):
    world, who, _home = team
    world.project.chmod(0o777)              # the teammate may write the project, just not read the lock
    shutil.rmtree(world.project / ".torchenv")
    who.deny(world.lock, as_root=0o600, as_self=0)
    r = run_as(team, "up", "--frozen", "--no-verify")
    flat = assert_names(r, world.lock, who)
    assert "cannot read" in flat and "chmod" in flat
    observed(flat[:200])


@pytest.mark.fault("env interpreter not executable by this user",
                   where="`torchenv verify` with .venv/bin closed to them",
                   expect="exit non-zero; names the folder, its owner and the interpreter; no traceback")
def test_env_interpreter_not_runnable_is_named(team, observed):
    world, who, _home = team
    who.deny(world.env / "bin", as_root=0o700, as_self=0)
    r = run_as(team, "verify")
    flat = assert_names(r, world.env / "bin", who)
    assert f"cannot enter {world.env / 'bin'} " in flat and f"needed for {world.env / 'bin' / 'python'}" in flat
    observed(flat[:200])


@pytest.mark.fault("project folder not writable by this user", where="a teammate's `torchenv lock`",
                   expect="exit non-zero; names the folder and its owner; no traceback")
def test_unwritable_project_is_named_with_its_owner(team, observed):
    world, who, _home = team
    shutil.rmtree(world.project / ".torchenv")
    who.deny(world.project, as_root=0o755, as_self=0o555)     # they may enter and read it, not write
    r = run_as(team, "lock", "--torch-mirror", world.torch_url, "--pypi-mirror", world.pypi_url,
               "--assume-os", "linux", "--assume-arch", "x86_64", "--assume-no-gpu", "--assume-python", "3.11")
    flat = assert_names(r, world.project, who)
    assert "cannot create files in" in flat
    observed(flat[:200])


@pytest.mark.fault("config home not writable by this user", where="`torchenv mirror use tuna`, TORCHENV_CONFIG_DIR "
                   "another user's folder", expect="exit non-zero; names the folder, its owner and TORCHENV_CONFIG_DIR")
def test_unwritable_config_home_is_named(team, observed):
    world, who, _home = team
    config = world.root / "someone-elses-config"
    config.mkdir()
    who.deny(config, as_root=0o755, as_self=0o555)
    before = sorted(config.iterdir())
    r = run_as(team, "mirror", "use", "tuna", TORCHENV_CONFIG_DIR=str(config))
    flat = assert_names(r, config, who)
    assert "TORCHENV_CONFIG_DIR" in flat and sorted(config.iterdir()) == before
    observed(flat[:200])


@pytest.mark.fault("download cache not writable by this user", where="a teammate's `up` (own project copy), "
                   "TORCHENV_CACHE_DIR another user's folder",
                   expect="exit non-zero; names the folder, its owner and TORCHENV_CACHE_DIR; no traceback")
def test_unwritable_cache_is_named(team, observed):
    world, who, home = team
    shutil.rmtree(world.project / ".torchenv")
    for path in [world.project, *world.project.rglob("*")]:
        if not path.is_symlink():
            who.give(path)                  # the teammate's own project; only the cache is someone else's
    cache = world.root / "someone-elses-cache"
    cache.mkdir()
    who.deny(cache, as_root=0o755, as_self=0o555)
    (world.project / "requirements.txt").write_text("six\n")    # something new to download
    r = run_as(team, "up", "--no-verify", "--torch-mirror", world.torch_url, "--pypi-mirror", world.pypi_url,
               "--assume-os", "linux", "--assume-arch", "x86_64", "--assume-no-gpu", "--assume-python", "3.11",
               TORCHENV_CACHE_DIR=str(cache), TORCHENV_CONFIG_DIR=str(home / "config"))
    flat = assert_names(r, cache, who)
    assert "TORCHENV_CACHE_DIR" in flat and list(cache.iterdir()) == []
    observed(flat[:200])
