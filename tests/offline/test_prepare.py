"""``prepare_offline``: the check + restricted sources the ``up`` orchestration uses (in-process, fast)."""
from __future__ import annotations

import tarfile

import pytest
from tests.offline.conftest import linux_x86, seed_cache, write_fake_lock
from tests.support import sha256_of

from torchenv.cli import main

pytestmark = linux_x86


def _target(project):
    from torchenv.lockfile.io import read_lock

    return read_lock(project / "torchenv.lock").targets[0]


def test_sources_point_only_at_local_folders_and_conda_urls_at_local_files(fake_project, tmp_path, monkeypatch):
    from torchenv.backends.state import target_digest
    from torchenv.lockfile.model import LockedCondaPackage
    from torchenv.offline.install import prepare_offline

    pkg = tmp_path / "made" / "libfoo-1.0-h0_0.conda"
    pkg.write_bytes(b"conda bytes")
    seed_cache(pkg, sha256_of(pkg))
    rec = LockedCondaPackage(name="libfoo", version="1.0", build="h0_0", subdir="linux-64",
                             url="https://conda.anaconda.org/conda-forge/linux-64/libfoo-1.0-h0_0.conda",
                             sha256=sha256_of(pkg), channel="https://conda.anaconda.org/conda-forge")
    write_fake_lock(fake_project.dir, fake_project.wheels, conda=(rec,))
    bundle = tmp_path / "b.tar"
    assert main(["bundle", "-C", str(fake_project.dir), "-o", str(bundle), "--no-tool", "-q"]) == 0
    unpacked = tmp_path / "u"
    with tarfile.open(bundle) as tf:
        tf.extractall(unpacked, filter="data")
    monkeypatch.setenv("TORCHENV_HOME", str(tmp_path / "empty-home"))   # the offline machine's empty cache
    target = _target(fake_project.dir)
    prep = prepare_offline(target, from_path=unpacked)
    src = prep.sources
    assert src.torch == () and src.conda_mirrors == {}
    assert src.pypi.index_url == (unpacked / "b" / "simple").resolve().as_uri()
    assert src.wheelhouses == (str(unpacked / "b" / "files"),)
    (conda,) = prep.target.conda
    assert conda.url == (unpacked / "b/conda/linux-64/libfoo-1.0-h0_0.conda").resolve().as_uri()
    assert target_digest(prep.target) == target_digest(target), "the env state still matches the lock"


def test_problems_are_all_listed_at_once(fake_project, tmp_path, monkeypatch):
    import shutil

    from torchenv.offline.install import OfflineIncomplete, prepare_offline

    monkeypatch.setenv("TORCHENV_HOME", str(tmp_path / "empty-home"))
    folder = tmp_path / "partial"
    folder.mkdir()
    shutil.copy(fake_project.wheels["tinyextra"], folder)
    with pytest.raises(OfflineIncomplete) as err:
        prepare_offline(_target(fake_project.dir), from_path=folder)
    text = err.value.message
    assert "2 file(s) missing or different" in text
    assert "missing: fakedep 1.0" in text and "missing: torch 2.13.0+cpu" in text
    assert err.value.exit_code == 2


def test_missing_from_path_is_a_clear_error(fake_project, tmp_path):
    from torchenv.offline.install import prepare_offline
    from torchenv.offline.layout import BundleError

    with pytest.raises(BundleError, match="no such bundle or folder"):
        prepare_offline(_target(fake_project.dir), from_path=tmp_path / "nope")
