"""Scenarios 3 and 4: a dead or misbehaving torch mirror. Without a fallback ``up`` fails fast,
names the mirror and leaves nothing behind; with one it falls back, says so, and succeeds.

``[mirror] fallback`` takes mirror names, so the loopback fallback mirror is named in the user's
mirrors file (``[torch.e2e-fallback]``), as a user names their own.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from tests.support import closed_port_url, serve_dir, sha256_of
from tests.support.connects import read_log

from .conftest import TIER, TORCH, TORCH_FILE, assert_ok, family_hits, file_hits, pypi_tree, torch_mirror_tree


def _tree_snapshot(root):
    return {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_dead_torch_mirror_without_fallback_fails_fast_naming_it_and_leaves_nothing(e2e, e2e_wheels):
    pypi_tree(e2e.root / "B", e2e_wheels, planted=True)
    dead = closed_port_url()
    with serve_dir(e2e.root / "B") as b:
        e2e.write_toml(f'torch = "{dead}"\npypi = "{b}/simple"\n')
        run = e2e.up()
        assert family_hits(b.hits) == [], "no torch from the PyPI side when the torch mirror is dead"
    assert run.rc != 0
    assert run.elapsed < 15, f"took {run.elapsed:.1f} s"
    assert dead in run.text, run.text
    assert "Traceback" not in run.text
    assert not e2e.env.exists(), "no env may be created"
    assert not e2e.lock.exists(), "no lock may be written"
    assert e2e.proxy_asked == [], "pinned without fallback: the official index is not tried"


def test_dead_torch_mirror_leaves_an_existing_env_and_lock_untouched(e2e, e2e_wheels):
    torch_mirror_tree(e2e.root / "A", [e2e_wheels.torch, e2e_wheels.vision])
    pypi_tree(e2e.root / "B", e2e_wheels)
    dead = closed_port_url()
    with serve_dir(e2e.root / "A") as a, serve_dir(e2e.root / "B") as b:
        e2e.write_toml(f'torch = "{a}"\npypi = "{b}/simple"\n')
        assert_ok(e2e.up())
        lock_before = e2e.lock.read_bytes()
        env_before = _tree_snapshot(e2e.env)
        e2e.write_toml(f'torch = "{dead}"\npypi = "{b}/simple"\n')
        (e2e.project / "requirements.txt").write_text("fakedep\n")   # changed requirements: re-lock
        run = e2e.up()
    assert run.rc != 0 and dead in run.text, run.text
    assert run.elapsed < 15
    assert e2e.lock.read_bytes() == lock_before
    assert _tree_snapshot(e2e.env) == env_before
    assert e2e.origin() == "genuine"


def test_dead_torch_mirror_with_fallback_falls_back_says_so_and_succeeds(e2e, e2e_wheels):
    torch_mirror_tree(e2e.root / "F", [e2e_wheels.torch, e2e_wheels.vision])
    pypi_tree(e2e.root / "B", e2e_wheels)
    dead = closed_port_url()
    with serve_dir(e2e.root / "F") as f, serve_dir(e2e.root / "B") as b:
        e2e.add_presets(f'[torch.e2e-fallback]\nbase = "{f}"\nlayout = "index"\n')
        e2e.write_toml(f'torch = "{dead}"\npypi = "{b}/simple"\nfallback = ["e2e-fallback"]\n')
        run = e2e.up()
        assert_ok(run)
        assert file_hits(f.hits, TORCH_FILE), f.hits
        assert family_hits(b.hits) == []
    assert run.elapsed < 30
    # named either as it fails, or (found dead by the plan's probe a moment before) as it is skipped
    assert dead.removeprefix("http://") in run.text and ("trying the next source" in run.text
                                                   or "not asking it again" in run.text), run.text
    assert e2e.origin() == "genuine" and e2e.installed_version("torch") == TORCH
    lock = e2e.read_lock().target(f"linux-x86_64-{TIER}")
    assert lock.wheel("torch").url.startswith(f"https://download.pytorch.org/whl/{TIER}/")
    assert lock.wheel("torch").sha256 == sha256_of(e2e_wheels.torch)


_FAILURES = {
    "http-403": {"fail": {f"{TIER}/{TORCH_FILE}": 403}},
    "drop-mid-file": {"drop_after": {f"{TIER}/{TORCH_FILE}": 100}},
    "wrong-bytes": {},   # the listing publishes the genuine sha256, the file is another build
}


@pytest.mark.parametrize("failure", [
    "http-403",
    "drop-mid-file",
    "wrong-bytes",
])
def test_misbehaving_torch_mirror_falls_back_to_a_good_one_and_names_it(e2e, e2e_wheels, failure):
    a_files = [e2e_wheels.planted_same if failure == "wrong-bytes" else e2e_wheels.torch, e2e_wheels.vision]
    torch_mirror_tree(e2e.root / "A", a_files, listed_hash={TORCH_FILE: sha256_of(e2e_wheels.torch)})
    torch_mirror_tree(e2e.root / "F", [e2e_wheels.torch, e2e_wheels.vision])
    pypi_tree(e2e.root / "B", e2e_wheels)
    e2e.extra_env["UV_HTTP_RETRIES"] = "0"   # uv would retry the truncated download for ~20 s
    with serve_dir(e2e.root / "A", **_FAILURES[failure]) as a, serve_dir(e2e.root / "F") as f, \
            serve_dir(e2e.root / "B") as b:
        e2e.add_presets(f'[torch.e2e-fallback]\nbase = "{f}"\nlayout = "index"\n')
        e2e.write_toml(f'torch = "{a}"\npypi = "{b}/simple"\nfallback = ["e2e-fallback"]\n')
        run = e2e.up()
        assert_ok(run)
        assert file_hits(a.hits, TORCH_FILE), "the preferred mirror was tried first"
        assert file_hits(f.hits, TORCH_FILE), "and the file came from the fallback"
        assert family_hits(b.hits) == []
    assert a.removeprefix("http://") in run.text, run.text    # the warning names the failing mirror
    assert e2e.origin() == "genuine"
    assert e2e.read_lock().target(f"linux-x86_64-{TIER}").wheel("torch").sha256 == sha256_of(e2e_wheels.torch)


def test_working_mirror_leaves_fallbacks_and_the_official_index_alone(e2e, e2e_wheels):
    torch_mirror_tree(e2e.root / "A", [e2e_wheels.torch, e2e_wheels.vision])
    torch_mirror_tree(e2e.root / "F", [e2e_wheels.torch, e2e_wheels.vision])
    pypi_tree(e2e.root / "B", e2e_wheels)
    with serve_dir(e2e.root / "A") as a, serve_dir(e2e.root / "F") as f, serve_dir(e2e.root / "B") as b:
        e2e.add_presets(f'[torch.e2e-fallback]\nbase = "{f}"\nlayout = "index"\n')
        e2e.write_toml(f'torch = "{a}"\npypi = "{b}/simple"\nfallback = ["e2e-fallback"]\n')
        assert_ok(e2e.up())
        assert file_hits(a.hits, TORCH_FILE)
        assert f.hits == [], f"the fallback mirror was asked although the first one worked: {f.hits}"
    assert e2e.proxy_asked == [], f"download.pytorch.org was asked although a mirror worked: {e2e.proxy_asked}"


def test_wrong_bytes_on_a_mirror_never_shape_the_lock(e2e, e2e_wheels, tmp_path):
    from tests.support import make_wheel

    from .conftest import TAG, with_marker

    bad = with_marker(make_wheel(tmp_path / "bad-raw", "torch", TORCH, tag=TAG, requires=["fakedep>=1", "plantdep"]),
                      "planted", tmp_path / "bad")
    torch_mirror_tree(e2e.root / "A", [bad, e2e_wheels.vision], listed_hash={TORCH_FILE: sha256_of(e2e_wheels.torch)})
    torch_mirror_tree(e2e.root / "F", [e2e_wheels.torch, e2e_wheels.vision])
    pypi_tree(e2e.root / "B", e2e_wheels)
    from tests.support import build_index

    build_index(e2e.root / "B", {"fakedep": [e2e_wheels.fakedep],
                                 "plantdep": [make_wheel(tmp_path / "pd", "plantdep", "1.0")]})
    with serve_dir(e2e.root / "A") as a, serve_dir(e2e.root / "F") as f, serve_dir(e2e.root / "B") as b:
        e2e.add_presets(f'[torch.e2e-fallback]\nbase = "{f}"\nlayout = "index"\n')
        e2e.write_toml(f'torch = "{a}"\npypi = "{b}/simple"\nfallback = ["e2e-fallback"]\n')
        run = e2e.up()
    assert_ok(run)
    assert e2e.origin() == "genuine"
    names = {w.name for w in e2e.read_lock().target(f"linux-x86_64-{TIER}").wheels}
    assert "plantdep" not in names, "a dependency read from refused bytes is in the lock"


@pytest.mark.parametrize("layout", ["index", "flat"])
def test_fresh_up_downloads_each_torch_wheel_once(e2e, e2e_wheels, layout):
    torch_mirror_tree(e2e.root / "A", [e2e_wheels.torch, e2e_wheels.vision], layout=layout)
    pypi_tree(e2e.root / "B", e2e_wheels)
    with serve_dir(e2e.root / "A") as a, serve_dir(e2e.root / "B") as b:
        layout_line = f'torch-layout = "{layout}"\n' if layout == "flat" else ""
        e2e.write_toml(f'torch = "{a}"\n{layout_line}pypi = "{b}/simple"\n')
        assert_ok(e2e.up())
        assert len(file_hits(a.hits, TORCH_FILE)) == 1, a.hits


CUT_S = 0.3    # how long a hanging connect really waits in these tests


def _watch_connects(e2e) -> Path:
    """Log each connect's asked timeout and cut a hanging one to ``CUT_S`` (tests/support/connects.py), so a
    test counts what the hang costs instead of waiting it out."""
    from tests.support.connects import CAP, LOG

    log = e2e.root / "connects.log"
    e2e.extra_env.update({LOG: str(log), CAP: str(CUT_S)})
    return log


def _asked_briefly(asked: list[float | None]) -> bool:
    """Each connect was given a short connect timeout (at most 5 s), not the read timeout or none."""
    return all(t is not None and t <= 5 for t in asked)


def test_hanging_torch_mirror_without_fallback_fails_within_seconds(e2e, e2e_wheels):
    from tests.support import blackhole_url

    pypi_tree(e2e.root / "B", e2e_wheels)
    with blackhole_url() as hang, serve_dir(e2e.root / "B") as b:
        e2e.write_toml(f'torch = "{hang}"\npypi = "{b}/simple"\n')
        log = _watch_connects(e2e)
        run = e2e.up()
    assert run.rc != 0 and hang in run.text, run.text
    asked = read_log(log, hang.removeprefix("http://"))
    assert len(asked) == 1 and _asked_briefly(asked), f"connect timeouts asked: {asked}\n{run.text}"
    uncut = run.elapsed + sum(t - CUT_S for t in asked)     # what the run takes with the timeouts asked
    assert uncut < 15, f"took {run.elapsed:.1f} s, {uncut:.1f} s uncut"
    assert not e2e.env.exists() and not e2e.lock.exists()


def test_hanging_torch_mirror_with_fallback_is_asked_once_per_stage_not_per_file(e2e, e2e_wheels):
    from tests.support import blackhole_url

    torch_mirror_tree(e2e.root / "F", [e2e_wheels.torch, e2e_wheels.vision])
    pypi_tree(e2e.root / "B", e2e_wheels)
    with blackhole_url() as hang, serve_dir(e2e.root / "F") as f, serve_dir(e2e.root / "B") as b:
        e2e.add_presets(f'[torch.e2e-fallback]\nbase = "{f}"\nlayout = "index"\n')
        e2e.write_toml(f'torch = "{hang}"\npypi = "{b}/simple"\nfallback = ["e2e-fallback"]\n')
        log = _watch_connects(e2e)
        run = e2e.up()
    assert_ok(run)
    assert e2e.origin() == "genuine"
    # counted, not timed: the hanging mirror is asked once, by the plan's reachability probe, then remembered
    # dead for the run (the lock starts from that memory), never once per stage or per file
    hung = read_log(log, hang.removeprefix("http://"))
    assert len(hung) == 1 and _asked_briefly(hung), f"connect timeouts asked: {hung}:\n{run.text}"


def test_install_from_lock_with_dead_preferred_mirror_says_it_fell_back(e2e, e2e_wheels):
    import shutil

    torch_mirror_tree(e2e.root / "A", [e2e_wheels.torch, e2e_wheels.vision])
    torch_mirror_tree(e2e.root / "F", [e2e_wheels.torch, e2e_wheels.vision])
    pypi_tree(e2e.root / "B", e2e_wheels)
    dead = closed_port_url()
    e2e.write_toml()
    with serve_dir(e2e.root / "A") as a, serve_dir(e2e.root / "F") as f, serve_dir(e2e.root / "B") as b:
        e2e.user_config(f'[mirror]\ntorch = "{a}"\npypi = "{b}/simple"\n')
        assert_ok(e2e.up())
        shutil.rmtree(e2e.env)
        shutil.rmtree(e2e.torchenv_home)
        e2e.add_presets(f'[torch.e2e-fallback]\nbase = "{f}"\nlayout = "index"\n')
        e2e.user_config(f'[mirror]\ntorch = "{dead}"\npypi = "{b}/simple"\nfallback = ["e2e-fallback"]\n')
        run = e2e.up("--frozen")
        assert_ok(run)
        assert file_hits(f.hits, TORCH_FILE)
    assert e2e.origin() == "genuine"
    assert dead.removeprefix("http://") in run.text, f"the fallback was silent:\n{run.text}"


def test_install_from_lock_with_a_pinned_mirror_never_falls_back_to_the_official_index(e2e, e2e_wheels):
    """The lock records download.pytorch.org URLs; a user who pinned a mirror without fallback must not see
    torchenv contact it behind their back, even when the mirror lacks a file."""
    import shutil

    torch_mirror_tree(e2e.root / "A", [e2e_wheels.torch, e2e_wheels.vision])
    pypi_tree(e2e.root / "B", e2e_wheels)
    with serve_dir(e2e.root / "A") as a, serve_dir(e2e.root / "B") as b:
        e2e.write_toml(f'torch = "{a}"\npypi = "{b}/simple"\n')
        assert_ok(e2e.up())
        shutil.rmtree(e2e.env)
        shutil.rmtree(e2e.torchenv_home)                  # an empty artifact cache
        (e2e.root / "A" / TIER / TORCH_FILE).unlink()     # the mirror lost torch
        run = e2e.up("--frozen")
    assert run.rc != 0 and TORCH_FILE in run.text, run.text
    assert "Traceback" not in run.text
    assert e2e.proxy_asked == [], f"the official index was contacted: {e2e.proxy_asked}"
    assert not e2e.env.exists()


def test_install_from_lock_without_a_mirror_uses_the_official_index(e2e, e2e_wheels):
    """No mirror configured: the plan's torch source is download.pytorch.org itself (here: the refusing proxy)."""
    pypi_tree(e2e.root / "B", e2e_wheels)
    torch_mirror_tree(e2e.root / "A", [e2e_wheels.torch, e2e_wheels.vision])
    with serve_dir(e2e.root / "A") as a, serve_dir(e2e.root / "B") as b:
        e2e.write_toml(f'torch = "{a}"\npypi = "{b}/simple"\n')
        assert_ok(e2e.up())
    import shutil

    shutil.rmtree(e2e.env)
    shutil.rmtree(e2e.torchenv_home)
    with serve_dir(e2e.root / "B") as b:
        e2e.write_toml(f'pypi = "{b}/simple"\n')
        run = e2e.up("--frozen")
    assert run.rc != 0
    assert any("download.pytorch.org" in h for h in e2e.proxy_asked), (e2e.proxy_asked, run.text)
