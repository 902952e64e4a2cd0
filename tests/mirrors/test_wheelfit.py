"""Does a wheel fit a target: one answer (``sources.wheelfit``) for locating a torch file, checking a tier's index
page, learning releases from an index and testing a mirror. Names with ``py3-none-any``, ``linux_x86_64``, PEP 427
build tags, ``manylinux_2_34``, ``manylinux2014`` and a wheel-variant label; the glibc from the probe."""
from __future__ import annotations

from pathlib import Path

import pytest

from torchenv.errors import SourceError
from torchenv.machine import Machine
from torchenv.sources import wheelfit
from torchenv.sources.model import Sources, TorchSource

M228 = "torch-2.9.0+cu128-cp312-cp312-manylinux_2_28_x86_64.whl"
M234 = "torch-2.9.0+cu128-cp312-cp312-manylinux_2_34_x86_64.whl"
M2014 = "torch-2.5.1+cu121-cp312-cp312-manylinux2014_x86_64.whl"
LINUX = "torch-2.9.0+cu128-cp312-cp312-linux_x86_64.whl"
BUILD = "torch-2.9.0+cu128-1-cp312-cp312-manylinux_2_28_x86_64.whl"        # PEP 427 build tag "1"
PURE = "torch-2.9.0-py3-none-any.whl"
VARIANT = "torch-2.9.0-cp312-cp312-manylinux_2_28_x86_64-cu128.whl"        # wheel-variant label (PEP 825 draft)


def _tags(python: str, glibc: str | None) -> set[str]:
    return {str(t) for t in wheelfit.target_tags(python, "linux-x86_64", glibc)}


@pytest.mark.parametrize(("glibc", "fits", "refused"), [
    ("2.17", {"manylinux_2_17_x86_64", "manylinux2014_x86_64", "manylinux1_x86_64", "linux_x86_64"},
     {"manylinux_2_28_x86_64", "manylinux_2_18_x86_64"}),
    ("2.35", {"manylinux_2_34_x86_64", "manylinux_2_35_x86_64", "manylinux_2_28_x86_64", "manylinux2014_x86_64"},
     {"manylinux_2_36_x86_64"}),
    (None, {"manylinux_2_28_x86_64", "manylinux2014_x86_64"}, {"manylinux_2_29_x86_64", "manylinux_2_34_x86_64"}),
])
def test_the_manylinux_tags_come_from_the_machines_glibc(glibc, fits, refused):
    platforms = {t.split("-")[2] for t in _tags("3.12", glibc)}
    assert fits <= platforms and not refused & platforms       # None (unknown): what torchenv accepted before


def test_newest_floor_ranks_first():
    order = [t.platform for t in wheelfit.target_tags("3.12", "linux-x86_64", "2.35") if t.abi == "cp312"]
    assert order[:2] == ["manylinux_2_35_x86_64", "manylinux_2_34_x86_64"]
    assert order.index("manylinux_2_17_x86_64") + 1 == order.index("manylinux2014_x86_64")
    assert order[-1] == "linux_x86_64"


@pytest.mark.parametrize(("filename", "name", "version", "build", "platform"), [
    (BUILD, "torch", "2.9.0+cu128", "1", "manylinux_2_28_x86_64"),
    (PURE, "torch", "2.9.0", "", "any"),
    (VARIANT, "torch", "2.9.0", "", "manylinux_2_28_x86_64"),
    ("Torch_Audio-2.9.0-cp312-cp312-win_amd64.whl", "torch-audio", "2.9.0", "", "win_amd64"),
])
def test_names_are_read_by_pep_427_with_build_tags_and_variant_labels(filename, name, version, build, platform):
    wheel = wheelfit.read(filename)
    assert (wheel.name, wheel.version, wheel.build, {t.platform for t in wheel.tags}) == (name, version, build,
                                                                                         {platform})
    assert wheel.variant == ("cu128" if filename == VARIANT else "")


def test_a_malformed_name_is_a_named_source_error():
    with pytest.raises(SourceError, match="torch-2.9.0-cp312.whl"):
        wheelfit.read("torch-2.9.0-cp312.whl")
    assert wheelfit.read_or_none("torch-2.9.0.tar.gz") is None


@pytest.mark.parametrize(("plat_tag", "platform", "glibc", "fits"), [
    ("any", "linux-x86_64", "2.17", True),
    ("linux_x86_64", "linux-x86_64", "2.17", True),
    ("manylinux_2_34_x86_64", "linux-x86_64", "2.35", True),
    ("manylinux_2_34_x86_64", "linux-x86_64", "2.31", False),
    ("manylinux_2_28_x86_64", "linux-x86_64", "2.17", False),
    ("manylinux2014_x86_64", "linux-x86_64", "2.17", True),
    ("manylinux_2_34_x86_64", "linux-x86_64", None, True),        # no glibc: the platform alone
    ("manylinux_2_28_aarch64", "linux-x86_64", None, False),
    ("macosx_11_0_universal2", "macos-arm64", None, True),
    ("win_arm64", "windows-x86_64", None, False),
])
def test_platform_fits(plat_tag, platform, glibc, fits):
    assert wheelfit.platform_fits(plat_tag, platform, glibc) is fits


def test_the_glibc_applies_only_to_a_target_that_is_this_machine():
    here = Machine(os="linux", arch="x86_64", glibc="2.17")
    assert wheelfit.target_glibc(here, "linux-x86_64") == "2.17"
    assert wheelfit.target_glibc(here, "linux-aarch64") is None          # a lock for another platform
    assert wheelfit.target_glibc(Machine(os="linux", arch="x86_64"), "linux-x86_64") is None


# -- the callers ------------------------------------------------------------------------------------------------
def _folder(root: Path, *names: str) -> Sources:
    root.mkdir(parents=True, exist_ok=True)
    for name in names:
        (root / name).write_bytes(b"")
    return Sources(torch=(TorchSource(str(root), layout="flat", name="folder"),))


def _locate(sources: Sources, glibc: str | None):
    from torchenv.sources.locate import locate

    return locate(sources, "torch", "2.9.0+cu128", source="torch-index", tier="cu128", python="3.12",
                  platform="linux-x86_64", glibc=glibc)


def test_locate_refuses_a_wheel_newer_than_the_glibc_and_takes_2_34_on_2_35(tmp_path):
    old_host = _folder(tmp_path / "a", M228)
    with pytest.raises(SourceError, match="no torch 2.9.0"):
        _locate(old_host, "2.17")
    assert _locate(old_host, None).wheel.filename == M228                 # unknown glibc: as before
    new = _folder(tmp_path / "b", M234, M228)
    assert _locate(new, "2.35").wheel.filename == M234                    # the better tag of this machine
    assert _locate(new, "2.31").wheel.filename == M228


def test_the_index_check_counts_pure_build_tagged_and_variant_wheels(tmp_path):
    from torchenv.resolve.index_check import _Link, _listing

    links = [_Link(n, f"https://h/{n}") for n in (PURE, BUILD.replace("2.9.0", "2.9.1"),
                                                   VARIANT.replace("2.9.0", "2.9.2"), M2014)]
    listing = _listing("cu128", "https://h/whl/cu128", links, 0.0, "linux-x86_64")
    assert listing is not None and listing.versions == {"2.9.0", "2.9.1", "2.9.2", "2.5.1"}
    assert listing.pythons["2.9.1"] == {"3.12"} and listing.pythons["2.9.0"] == frozenset()   # py3: every Python


def test_the_index_check_with_the_machines_glibc_skips_a_wheel_too_new_for_it():
    from torchenv.resolve.index_check import _Link, _listing

    links = [_Link(n, f"https://h/{n}") for n in (M234, LINUX.replace("2.9.0", "2.8.0"))]
    assert _listing("cu128", "u", links, 0.0, "linux-x86_64", "2.31").versions == {"2.8.0"}
    assert _listing("cu128", "u", links, 0.0, "linux-x86_64", "2.35").versions == {"2.9.0", "2.8.0"}


def test_refresh_learns_a_variant_labelled_wheel_and_its_glibc_floor(tmp_path):
    from torchenv.resolve.refresh import _collect

    _folder(tmp_path / "cu128" / "torch", VARIANT, BUILD.replace("2.9.0", "2.9.1"), M234.replace("2.9.0", "2.9.3"))
    found = _collect(str(tmp_path), ["cu128"])
    assert set(found) == {"2.9.0", "2.9.1", "2.9.3"}
    assert all(rel.tiers == {"linux-x86_64": ["cu128"]} for rel in found.values())
    assert found["2.9.0"].pythons == {"3.12": {"linux-x86_64"}} and found["2.9.3"].glibc == {"2.34"}


@pytest.mark.parametrize(("filename", "python", "fits"), [
    ("torch-2.9.0-cp314-cp314t-manylinux_2_28_x86_64.whl", "3.14t", True),
    ("torch-2.9.0-cp313-cp313-manylinux_2_28_x86_64.whl", "3.14t", False),
    ("torch-2.9.0-1-cp312-cp312-manylinux_2_28_x86_64.whl", "3.12", True),
    ("torch-2.9.0-py3-none-any.whl", "3.12", True),
    ("torch-2.9.0-cp312-cp312-manylinux_2_28_ppc64le.whl", "3.12", False),
])
def test_mirror_test_matches_through_the_same_rule(filename, python, fits):
    from torchenv.sources.mirrortest import Need, matches

    assert matches(Need("torch", "torch", version="2.9.0", python=python, platform="linux-x86_64"), filename) is fits
