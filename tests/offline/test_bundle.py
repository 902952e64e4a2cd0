"""`torchenv bundle` and `torchenv bundle verify` over a lock of fake wheels (fast, no network)."""
from __future__ import annotations

import json
import tarfile

import pytest
from tests.offline.conftest import linux_x86, rewrite_tar
from tests.support import sha256_of

from torchenv.cli import main

pytestmark = linux_x86


def _bundle(fake_project, tmp_path, name="b.tar", *extra: str) -> tuple[int, object]:
    out = tmp_path / name
    rc = main(["bundle", "-C", str(fake_project.dir), "-o", str(out), "--no-tool", "-q", *extra])
    return rc, out


def _members(path) -> dict[str, bytes]:
    with tarfile.open(path) as tf:
        return {m.name: tf.extractfile(m).read() for m in tf if m.isfile()}


def test_bundle_holds_index_manifest_and_project_files(fake_project, tmp_path):
    rc, out = _bundle(fake_project, tmp_path)
    assert rc == 0 and out.is_file()
    members = _members(out)
    assert all(name.startswith("b/") for name in members), "one top folder, no tar bomb"
    manifest = json.loads(members["b/manifest.json"])
    assert manifest["targets"] == ["linux-x86_64-cpu"]
    for name, whl in fake_project.wheels.items():
        rel = f"files/{whl.name}"
        assert manifest["files"][rel] == {"sha256": sha256_of(whl), "size": whl.stat().st_size}
        page = members[f"b/simple/{name}/index.html"].decode()
        assert f"#sha256={sha256_of(whl)}" in page and "../../files/" in page
    # every file but the manifest is listed, with its real hash
    listed = set(manifest["files"])
    assert listed == {n[2:] for n in members} - {"manifest.json"}
    assert members["b/torchenv.lock"] == fake_project.lock.read_bytes()
    assert members["b/torchenv.toml"] == (fake_project.dir / "torchenv.toml").read_bytes()
    assert not any("/torchenv-wheels/" in n for n in members), "--no-tool leaves torchenv's wheels out"


def test_bundle_is_reproducible_and_written_atomically(fake_project, tmp_path):
    _, first = _bundle(fake_project, tmp_path, "one.tar")
    _, second = _bundle(fake_project, tmp_path, "one-again.tar")
    a, b = _members(first), _members(second)
    assert {k.split("/", 1)[1]: v for k, v in a.items()} == {k.split("/", 1)[1]: v for k, v in b.items()}
    assert not list(tmp_path.glob(".*.part")), "no temp file left beside the bundle"


def test_bundle_gz_when_the_name_says_so(fake_project, tmp_path):
    rc, out = _bundle(fake_project, tmp_path, "b.tar.gz")
    assert rc == 0
    with open(out, "rb") as f:
        assert f.read(2) == b"\x1f\x8b"
    assert main(["bundle", "verify", str(out)]) == 0


def test_bundle_unknown_target_is_refused(fake_project, tmp_path, capsys):
    rc, out = _bundle(fake_project, tmp_path, "b.tar", "--target", "windows-x86_64-cpu")
    assert rc == 2 and not out.exists()
    assert "has no target windows-x86_64-cpu (it has: linux-x86_64-cpu)" in capsys.readouterr().err


def test_bundle_without_lock_says_how_to_make_one(tmp_path, capsys):
    (tmp_path / "p").mkdir()
    assert main(["bundle", "-C", str(tmp_path / "p"), "-o", str(tmp_path / "x.tar"), "--no-tool"]) == 2
    assert "torchenv lock" in capsys.readouterr().err


def test_verify_accepts_an_intact_bundle_and_its_unpacked_folder(fake_project, tmp_path, capsys):
    _, out = _bundle(fake_project, tmp_path)
    assert main(["bundle", "verify", str(out)]) == 0
    assert "all match the manifest" in capsys.readouterr().out
    unpacked = tmp_path / "unpacked"
    with tarfile.open(out) as tf:
        tf.extractall(unpacked, filter="data")
    assert main(["bundle", "verify", str(unpacked)]) == 0
    assert main(["bundle", "verify", str(unpacked / "b")]) == 0


@pytest.mark.parametrize("damage, expect", [
    ({"flip": "fakedep-1.0-py3-none-any.whl"}, "files/fakedep-1.0-py3-none-any.whl: sha256 differs from the manifest"),
    ({"drop": "tinyextra-2.0-py3-none-any.whl"}, "files/tinyextra-2.0-py3-none-any.whl is listed in the manifest but missing"),
    ({"add": ("files/evil-1.0-py3-none-any.whl", b"x")}, "files/evil-1.0-py3-none-any.whl is not listed in the manifest"),
    ({"flip": "torchenv.lock"}, "torchenv.lock: sha256 differs"),
])
def test_verify_names_the_first_bad_file(fake_project, tmp_path, capsys, damage, expect):
    _, good = _bundle(fake_project, tmp_path)
    bad = tmp_path / "bad.tar"
    rewrite_tar(good, bad, **damage)
    capsys.readouterr()
    assert main(["bundle", "verify", str(bad)]) == 1
    err = capsys.readouterr().err.replace("\n", " ")
    assert expect in err


def test_verify_rejects_a_file_that_is_not_a_bundle(tmp_path, capsys):
    junk = tmp_path / "junk.tar"
    junk.write_bytes(b"not a tar at all")
    assert main(["bundle", "verify", str(junk)]) == 1
    assert "not a tar archive" in capsys.readouterr().err


def test_conda_packages_become_a_channel_with_repodata(fake_project, tmp_path):
    """Lock records that lack depends/build_number still give a usable repodata.json (documented fallback)."""
    from tests.offline.conftest import seed_cache, write_fake_lock

    from torchenv.lockfile.model import LockedCondaPackage

    pkg = tmp_path / "made" / "libfoo-1.0-h0_0.tar.bz2"
    pkg.write_bytes(b"not really a conda package")
    sha = sha256_of(pkg)
    seed_cache(pkg, sha)
    rec = LockedCondaPackage(name="libfoo", version="1.0", build="h0_0", subdir="linux-64",
                             url="https://conda.anaconda.org/conda-forge/linux-64/libfoo-1.0-h0_0.tar.bz2",
                             sha256=sha, channel="https://conda.anaconda.org/conda-forge")
    write_fake_lock(fake_project.dir, fake_project.wheels, conda=(rec,))
    rc, out = _bundle(fake_project, tmp_path)
    assert rc == 0
    members = _members(out)
    assert members["b/conda/linux-64/libfoo-1.0-h0_0.tar.bz2"] == pkg.read_bytes()
    repodata = json.loads(members["b/conda/linux-64/repodata.json"])
    entry = repodata["packages"]["libfoo-1.0-h0_0.tar.bz2"]
    assert (entry["name"], entry["version"], entry["build"], entry["sha256"]) == ("libfoo", "1.0", "h0_0", sha)
    assert "b/conda/noarch/repodata.json" in members
    assert main(["bundle", "verify", str(out)]) == 0
