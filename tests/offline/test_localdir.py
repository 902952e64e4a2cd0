"""`--from DIR` with loose files a user downloaded by hand: matched by name, checked by sha256."""
from __future__ import annotations

import shutil

from tests.offline.conftest import fresh_home, linux_x86, needs_netns, run_offline
from tests.support import make_wheel
from tests.support.console import unwrapped

pytestmark = [linux_x86, needs_netns]


def _copy_project(fake_project, tmp_path, *, lock=True):
    proj = tmp_path / "offline-proj"
    proj.mkdir()
    shutil.copy(fake_project.dir / "torchenv.toml", proj)
    if lock:
        shutil.copy(fake_project.lock, proj)
    return proj


def test_loose_folder_installs_offline(fake_project, tmp_path):
    loose = tmp_path / "downloads" / "nested"
    loose.mkdir(parents=True)
    for whl in fake_project.wheels.values():
        # browsers save "+" as "%2B"; torchenv matches the name as the index wrote it
        shutil.copy(whl, loose / whl.name.replace("+", "%2B"))
    (loose / "README.txt").write_text("not a package")
    proj = _copy_project(fake_project, tmp_path)
    proc = run_offline(proj, fresh_home(tmp_path), "--from", str(tmp_path / "downloads"), "--no-verify")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (proj / ".venv/lib/python3.11/site-packages/torch/__init__.py").read_text() == '__version__ = "2.13.0+cpu"\n'


def test_loose_folder_mismatch_and_missing_are_both_reported(fake_project, tmp_path):
    loose = tmp_path / "downloads"
    loose.mkdir()
    shutil.copy(fake_project.wheels["tinyextra"], loose)
    # a different build under the same file name (e.g. from another mirror or another day)
    other = make_wheel(tmp_path / "other", "torch", "2.13.0+cpu", tag="py3-none-any", payload=10)
    shutil.copy(other, loose / fake_project.wheels["torch"].name)
    proj = _copy_project(fake_project, tmp_path)
    before = (proj / "torchenv.lock").read_bytes()
    proc = run_offline(proj, fresh_home(tmp_path), "--from", str(loose), "--no-verify")
    out = unwrapped(proc.stdout + proc.stderr)
    assert proc.returncode == 2, out
    assert "torch-2.13.0+cpu-py3-none-any.whl: sha256 differs from torchenv.lock (expected" in out
    assert "file has" in out
    assert "missing: fakedep 1.0 (fakedep-1.0-py3-none-any.whl), needed by target linux-x86_64-cpu" in out
    assert not (proj / ".venv").exists() and (proj / "torchenv.lock").read_bytes() == before


def test_without_lock_the_folder_is_checked_against_the_plan(fake_project, tmp_path):
    loose = tmp_path / "downloads"
    loose.mkdir()
    make_wheel(loose, "torch", "2.4.1+cpu", tag="cp311-cp311-linux_x86_64")   # wrong version for the plan
    proj = _copy_project(fake_project, tmp_path, lock=False)
    proc = run_offline(proj, fresh_home(tmp_path), "--from", str(loose), "--no-verify")
    out = unwrapped(proc.stdout + proc.stderr)
    assert proc.returncode == 2, out
    assert "no lock file, and an offline install cannot resolve one" in out
    assert "missing: torch 2.13" in out and "for cp311 linux_x86_64" in out
    assert not (proj / ".venv").exists() and not (proj / "torchenv.lock").exists()


def test_lock_out_of_date_with_torchenv_toml_is_refused_offline(fake_project, tmp_path):
    proj = _copy_project(fake_project, tmp_path)
    (proj / "torchenv.toml").write_text((proj / "torchenv.toml").read_text().replace('python = "3.11"',
                                                                                    'python = "3.12"'))
    proc = run_offline(proj, fresh_home(tmp_path), "--no-verify")
    out = unwrapped(proc.stdout + proc.stderr)
    assert proc.returncode == 2 and "out of date" in out and "cannot re-resolve" in out
