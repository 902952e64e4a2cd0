"""`up --offline` from a bundle, in a network namespace with an empty cache: success, and refusals that change nothing."""
from __future__ import annotations

import json
import shutil
import tarfile

from tests.offline.conftest import fresh_home, linux_x86, needs_netns, rewrite_tar, run_offline
from tests.support.console import unwrapped

from torchenv.cli import main

pytestmark = [linux_x86, needs_netns]


def _bundle(fake_project, tmp_path, name="b.tar"):
    out = tmp_path / name
    assert main(["bundle", "-C", str(fake_project.dir), "-o", str(out), "--no-tool", "-q"]) == 0
    return out


def _installed(env) -> dict[str, str]:
    site = next(env.glob("lib/python3.11/site-packages"))
    return {d.name.split("-")[0].lower(): d.name[: -len(".dist-info")].split("-", 1)[1]
            for d in site.glob("*.dist-info")}


def _offline_machine(fake_project, tmp_path):
    """The project as copied to the offline machine: torchenv.toml + torchenv.lock, nothing else."""
    proj = tmp_path / "offline-proj"
    proj.mkdir()
    for name in ("torchenv.toml", "torchenv.lock"):
        shutil.copy(fake_project.dir / name, proj / name)
    return proj


def test_offline_install_from_bundle_with_no_network_and_empty_cache(fake_project, tmp_path):
    bundle = _bundle(fake_project, tmp_path)
    proj = _offline_machine(fake_project, tmp_path)
    lock_before = (proj / "torchenv.lock").read_bytes()
    home = fresh_home(tmp_path)
    proc = run_offline(proj, home, "--from", str(bundle), "--no-verify")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    installed = _installed(proj / ".venv")
    assert installed.pop("pip"), "the env has pip, offline too (the wheel virtualenv ships)"
    assert installed == {"torch": "2.13.0+cpu", "fakedep": "1.0", "tinyextra": "2.0"}
    assert (proj / "torchenv.lock").read_bytes() == lock_before
    state = json.loads((proj / ".venv/.torchenv/state.json").read_text())
    assert state["target"] == "linux-x86_64-cpu"
    # the bundle's files are now in the (formerly empty) cache: the next offline up needs no bundle
    shutil.rmtree(proj / ".venv")
    again = run_offline(proj, home, "--no-verify")
    assert again.returncode == 0, again.stdout + again.stderr
    assert "3 file(s) from the cache" in again.stdout.replace("\n", " ")


def test_offline_install_from_unpacked_bundle_folder(fake_project, tmp_path):
    bundle = _bundle(fake_project, tmp_path)
    unpacked = tmp_path / "unpacked"
    with tarfile.open(bundle) as tf:
        tf.extractall(unpacked, filter="data")
    proj = _offline_machine(fake_project, tmp_path)
    proc = run_offline(proj, fresh_home(tmp_path), "--from", str(unpacked), "--no-verify")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert _installed(proj / ".venv")["torch"] == "2.13.0+cpu"


def test_fresh_folder_takes_the_bundles_project_files(fake_project, tmp_path):
    bundle = _bundle(fake_project, tmp_path)
    proj = tmp_path / "empty"
    proj.mkdir()
    proc = run_offline(proj, fresh_home(tmp_path), "--from", str(bundle), "--no-verify")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (proj / "torchenv.lock").read_bytes() == fake_project.lock.read_bytes()
    assert (proj / ".venv").is_dir()


def _assert_nothing_changed(proj, lock_before):
    assert not (proj / ".venv").exists(), "the env must not be created"
    assert (proj / "torchenv.lock").read_bytes() == lock_before


def test_corrupted_bundle_is_refused_before_anything_changes(fake_project, tmp_path):
    good = _bundle(fake_project, tmp_path)
    bad = tmp_path / "bad.tar"
    rewrite_tar(good, bad, flip="fakedep-1.0-py3-none-any.whl")
    proj = _offline_machine(fake_project, tmp_path)
    before = (proj / "torchenv.lock").read_bytes()
    proc = run_offline(proj, fresh_home(tmp_path), "--from", str(bad), "--no-verify")
    out = unwrapped(proc.stdout + proc.stderr)
    assert proc.returncode == 2, out
    assert "files/fakedep-1.0-py3-none-any.whl in bad.tar: sha256 differs from torchenv.lock" in out
    assert "needed by target linux-x86_64-cpu" in out and "nothing was changed" in out
    _assert_nothing_changed(proj, before)


def test_incomplete_bundle_names_the_missing_file_and_target(fake_project, tmp_path):
    good = _bundle(fake_project, tmp_path)
    bad = tmp_path / "partial.tar"
    rewrite_tar(good, bad, drop="torch-2.13.0+cpu-py3-none-any.whl")
    proj = _offline_machine(fake_project, tmp_path)
    before = (proj / "torchenv.lock").read_bytes()
    proc = run_offline(proj, fresh_home(tmp_path), "--from", str(bad), "--no-verify")
    out = unwrapped(proc.stdout + proc.stderr)
    assert proc.returncode == 2, out
    assert "missing: torch 2.13.0+cpu (torch-2.13.0+cpu-py3-none-any.whl), needed by target linux-x86_64-cpu" in out
    _assert_nothing_changed(proj, before)


def test_existing_env_is_left_alone_when_the_bundle_is_bad(fake_project, tmp_path):
    bundle = _bundle(fake_project, tmp_path)
    proj = _offline_machine(fake_project, tmp_path)
    home = fresh_home(tmp_path)
    assert run_offline(proj, home, "--from", str(bundle), "--no-verify").returncode == 0
    # the lock moves on (a new fakedep) but the bundle brought is the old one: refused, env untouched
    from tests.offline.conftest import write_fake_lock
    from tests.support import make_wheel

    wheels = dict(fake_project.wheels, fakedep=make_wheel(tmp_path / "new", "fakedep", "1.1"))
    write_fake_lock(proj, wheels)
    marker = sorted(p.name for p in (proj / ".venv/lib/python3.11/site-packages").iterdir())
    before = (proj / "torchenv.lock").read_bytes()
    proc = run_offline(proj, home, "--from", str(bundle), "--no-verify")
    assert proc.returncode == 2
    assert "missing: fakedep 1.1" in unwrapped(proc.stdout + proc.stderr)
    assert sorted(p.name for p in (proj / ".venv/lib/python3.11/site-packages").iterdir()) == marker
    assert (proj / "torchenv.lock").read_bytes() == before


def test_no_bundle_and_empty_cache_lists_everything_missing(fake_project, tmp_path):
    proj = _offline_machine(fake_project, tmp_path)
    proc = run_offline(proj, fresh_home(tmp_path), "--no-verify")
    out = unwrapped(proc.stdout + proc.stderr)
    assert proc.returncode == 2
    assert "3 file(s) missing or different" in out and "no --from given" in out
    assert not (proj / ".venv").exists()
