"""Files the uv engine asks for by name from their find-links folder: only where that names this very file."""
from __future__ import annotations

from pathlib import Path

import pytest

from torchenv.engines.uv import listed_alone, requirements_lines, uv_install_lines


def _touch(folder: Path, *names: str) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / name).write_bytes(b"x")
    return [folder / n for n in names]


def test_a_file_alone_in_its_folder_is_listed_with_the_folder_as_the_plan_names_it(tmp_path):
    house = tmp_path / "house"
    files = _touch(house, "idna-3.20-py3-none-any.whl", "numpy-2.4.6-cp311-cp311-manylinux_2_28_x86_64.whl")
    assert listed_alone(files, [str(house)], frozenset()) == {f.name: str(house) for f in files}
    assert listed_alone(files, [house.as_uri()], frozenset()) == {f.name: house.as_uri() for f in files}


def test_another_build_of_the_project_in_any_folder_keeps_the_path(tmp_path):
    house, more = tmp_path / "house", tmp_path / "more"
    files = _touch(house, "numpy-2.4.6-cp311-cp311-manylinux_2_28_x86_64.whl", "six-1.17.0-py2.py3-none-any.whl")
    _touch(house, "numpy-2.4.6-cp311-cp311-musllinux_1_2_x86_64.whl")     # same version, other tag
    _touch(more, "six-1.16.0.tar.gz")                                      # another folder, an sdist
    assert listed_alone(files, [str(house), str(more)], frozenset()) == {}
    assert listed_alone(files[1:], [str(house)], frozenset()) == {files[1].name: str(house)}


def test_files_elsewhere_skipped_projects_and_remote_links_keep_the_path(tmp_path):
    house, cache = tmp_path / "house", tmp_path / "cache" / "ab"
    _touch(house, "torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl", "idna-3.20-py3-none-any.whl")
    copy = _touch(cache, "idna-3.20-py3-none-any.whl")                     # same name, not the folder's file
    torch = house / "torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl"
    assert listed_alone([*copy, torch], [str(house)], frozenset({"torch"})) == {}
    assert listed_alone([house / "idna-3.20-py3-none-any.whl"], ["https://example.org/wheels/"], frozenset()) == {}


def test_a_listed_file_is_named_by_version_and_keeps_its_hash(tmp_path):
    idna, six = _touch(tmp_path, "idna-3.20-py3-none-any.whl", "six-1.17.0-py2.py3-none-any.whl")
    text = requirements_lines([idna, six], {idna.name: "a" * 64, six.name: "b" * 64}, {idna.name: str(tmp_path)})
    assert text.splitlines() == [f"idna==3.20 --hash=sha256:{'a' * 64}",
                                 f"six @ {six.resolve().as_uri()} --hash=sha256:{'b' * 64}"]


def test_uv_gets_a_hash_only_for_a_listed_file(tmp_path):
    """A listed file keeps its hash for uv to check against its resolve's record; a file named by its path has
    none (torchenv checked it, ``check_again``): uv unpacks an unhashed local file on every core."""
    idna, six = _touch(tmp_path, "idna-3.20-py3-none-any.whl", "six-1.17.0-py2.py3-none-any.whl")
    text = uv_install_lines([idna, six], {idna.name: "a" * 64, six.name: "b" * 64}, {idna.name: str(tmp_path)})
    assert text.splitlines() == [f"idna==3.20 --hash=sha256:{'a' * 64}", f"six @ {six.resolve().as_uri()}"]


def test_a_file_swapped_after_its_check_is_refused_before_uv_reads_it(tmp_path, monkeypatch):
    """The same size and mtime, other bytes, put in place by a rename (another inode): hashed again, refused."""
    import hashlib
    import os

    from torchenv.engines.uv import check_again
    from torchenv.errors import HashMismatch
    from torchenv.sources.fetch import verified_sha256

    monkeypatch.setenv("TORCHENV_HOME", str(tmp_path / "home"))
    wheel = tmp_path / "six-1.17.0-py2.py3-none-any.whl"
    wheel.write_bytes(b"good bytes")
    good = hashlib.sha256(b"good bytes").hexdigest()
    assert verified_sha256(wheel) == good
    check_again([wheel], {wheel.name: good})                      # unchanged: passes (one stat)
    stat = wheel.stat()
    other = tmp_path / "other"
    other.write_bytes(b"evil bytes")
    os.utime(other, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    os.replace(other, wheel)
    with pytest.raises(HashMismatch, match="no longer matches the lock"):
        check_again([wheel], {wheel.name: good})
