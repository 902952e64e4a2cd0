"""Scenario 5: "a lock made in Beijing installs in Zurich". The lock made through mirrors A (torch)
and B (PyPI side) installs, hash-checked, through other mirrors C and B2 that serve the same bytes
from other hosts, after the env and torchenv's cache are gone and A and B are unreachable; the lock
file stays byte-identical."""
from __future__ import annotations

import shutil

import pytest
from tests.support import serve_dir, sha256_of

from .conftest import TIER, TORCH_FILE, VISION_FILE, assert_ok, family_hits, file_hits, pypi_tree, torch_mirror_tree


def _user_mirrors(torch: str, pypi: str) -> str:
    return f'[mirror]\ntorch = "{torch}"\npypi = "{pypi}/simple"\n'


@pytest.mark.parametrize("installer", ["uv", "pip"])
def test_lock_made_through_one_mirror_installs_through_another(e2e, e2e_wheels, installer):
    e2e.installer = installer
    for name in ("A", "C"):
        torch_mirror_tree(e2e.root / name, [e2e_wheels.torch, e2e_wheels.vision])
    pypi_tree(e2e.root / "B", e2e_wheels)
    pypi_tree(e2e.root / "B2", e2e_wheels)
    e2e.write_toml()          # the project says nothing about mirrors: each user's config.toml does
    with serve_dir(e2e.root / "A") as a, serve_dir(e2e.root / "B") as b:      # Beijing
        e2e.user_config(_user_mirrors(a, b))
        assert_ok(e2e.up())
    lock = e2e.lock.read_bytes()
    assert a.encode() not in lock
    torch_sha = e2e.read_lock().target(f"linux-x86_64-{TIER}").wheel("torch").sha256
    assert torch_sha == sha256_of(e2e_wheels.torch)

    shutil.rmtree(e2e.env)
    shutil.rmtree(e2e.torchenv_home)      # cache (artifacts, uv) and config
    with serve_dir(e2e.root / "C") as c, serve_dir(e2e.root / "B2") as b2:  # Zurich; A and B are gone
        e2e.user_config(_user_mirrors(c, b2))
        run = e2e.up("--frozen")
        assert_ok(run)
        assert file_hits(c.hits, TORCH_FILE) and file_hits(c.hits, VISION_FILE), c.hits
        assert any(h.endswith("fakedep-1.0.0-py3-none-any.whl") for h in b2.hits), b2.hits
        assert family_hits(b2.hits) == []
    assert e2e.lock.read_bytes() == lock, "installing must not rewrite the lock"
    assert e2e.origin() == "genuine" and e2e.origin("torchvision") == "genuine"
    assert e2e.proxy_asked == []


def test_other_mirror_with_other_bytes_is_refused_by_hash(e2e, e2e_wheels):
    """Zurich's torch mirror holds a different build under the same name: the lock's hash refuses it."""
    torch_mirror_tree(e2e.root / "A", [e2e_wheels.torch, e2e_wheels.vision])
    torch_mirror_tree(e2e.root / "C", [e2e_wheels.planted_same, e2e_wheels.vision])
    pypi_tree(e2e.root / "B", e2e_wheels)
    e2e.write_toml()
    with serve_dir(e2e.root / "A") as a, serve_dir(e2e.root / "B") as b:
        e2e.user_config(_user_mirrors(a, b))
        assert_ok(e2e.up())
        lock = e2e.lock.read_bytes()
        shutil.rmtree(e2e.env)
        shutil.rmtree(e2e.torchenv_home)
        with serve_dir(e2e.root / "C") as c:
            e2e.user_config(_user_mirrors(c, b))
            run = e2e.up("--frozen")
    assert run.rc != 0
    assert "sha256" in run.text and TORCH_FILE in run.text, run.text
    assert e2e.lock.read_bytes() == lock
    assert not (e2e.site() / "torch").exists()


def test_frozen_lock_installs_through_a_mirror_given_on_the_command_line(e2e, e2e_wheels):
    for name in ("A", "C"):
        torch_mirror_tree(e2e.root / name, [e2e_wheels.torch, e2e_wheels.vision])
    pypi_tree(e2e.root / "B", e2e_wheels)
    with serve_dir(e2e.root / "A") as a, serve_dir(e2e.root / "B") as b:
        e2e.write_toml(f'torch = "{a}"\npypi = "{b}/simple"\n')   # committed by the Beijing team
        assert_ok(e2e.up())
        lock = e2e.lock.read_bytes()
        shutil.rmtree(e2e.env)
        shutil.rmtree(e2e.torchenv_home)
        with serve_dir(e2e.root / "C") as c:
            run = e2e.up("--frozen", "--torch-mirror", c)
    assert_ok(run)
    assert e2e.lock.read_bytes() == lock
