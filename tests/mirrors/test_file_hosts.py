"""Torch index pages that link their files on another host (download.pytorch.org -> download-r2.pytorch.org):
locks stay canonical, mirrors still serve by file name, and the supply-chain checks accept the index's own file
host but no other. Loopback: one server plays the index pages, a second one the file host."""
from __future__ import annotations

import dataclasses

import pytest
from tests.support import make_wheel, serve_dir, sha256_of

from torchenv.lockfile.model import LockedWheel
from torchenv.sources import mirrors
from torchenv.sources.deadhosts import SourceMemory
from torchenv.sources.getfile import recorded_url_allowed, torch_file
from torchenv.sources.model import Sources, TorchSource
from torchenv.sources.routing import allowed_url, torch_candidates

FILE = "torch-2.9.1+cu128-cp312-cp312-manylinux_2_28_x86_64.whl"
OFFICIAL = Sources(torch=(TorchSource("https://download.pytorch.org/whl/cu128"),))
PINNED_MIRROR = Sources(torch=(TorchSource("https://mirror.example/pytorch-wheels/cu128", name="custom"),))


def _locked(url: str) -> LockedWheel:
    return LockedWheel("torch", "2.9.1+cu128", FILE, url, "0" * 64, "https://download.pytorch.org/whl/cu128",
                       source="torch-index")


def test_the_official_index_keeps_its_files_on_a_second_host():
    assert "https://download-r2.pytorch.org/whl" in mirrors.presets()["official"].torch_files
    assert torch_candidates(OFFICIAL, FILE) == [f"https://download.pytorch.org/whl/cu128/{FILE.replace('+', '%2B')}",
                                                f"https://download-r2.pytorch.org/whl/cu128/{FILE.replace('+', '%2B')}"]


def test_supply_chain_accepts_the_index_file_host_and_nothing_else():
    assert allowed_url(OFFICIAL, FILE, f"https://download-r2.pytorch.org/whl/cu128/{FILE}")
    assert not allowed_url(OFFICIAL, FILE, f"https://files.example.net/whl/cu128/{FILE}")
    assert allowed_url(OFFICIAL, "nvidia_cublas-13.0.2.9-py3-none-manylinux_2_27_x86_64.whl",
                       "https://files.pythonhosted.org/packages/aa/bb/nvidia_cublas-13.0.2.9-py3-none-"
                       "manylinux_2_27_x86_64.whl")                      # PyPI side: any host, hash-checked


def test_a_lock_url_on_the_file_host_is_contacted_only_when_the_official_index_is_a_source():
    r2 = _locked(f"https://download-r2.pytorch.org/whl/cu128/{FILE}")
    assert recorded_url_allowed(OFFICIAL, r2)
    assert not recorded_url_allowed(PINNED_MIRROR, r2)                  # pinned without fallback: never behind
    assert not recorded_url_allowed(PINNED_MIRROR, _locked(f"https://download.pytorch.org/whl/cu128/{FILE}"))


@pytest.fixture
def two_hosts(tmp_path, monkeypatch):
    """(index url, file host url, wheel): the index's page links the wheel with an absolute URL on the file host."""
    wheel = make_wheel(tmp_path / "build", "torch", "2.9.1+cu128", tag="cp312-cp312-manylinux_2_28_x86_64")
    (tmp_path / "files" / "whl" / "cu128").mkdir(parents=True)
    (tmp_path / "files" / "whl" / "cu128" / wheel.name).write_bytes(wheel.read_bytes())
    page = tmp_path / "pages" / "whl" / "cu128" / "torch"
    page.mkdir(parents=True)
    with serve_dir(tmp_path / "pages") as index, serve_dir(tmp_path / "files") as files:
        href = f"{files}/whl/cu128/{wheel.name.replace('+', '%2B')}#sha256={sha256_of(wheel)}"
        (page / "index.html").write_text(f'<a href="{href}">{wheel.name}</a>\n')
        yield index, files, wheel


def test_a_file_linked_on_another_host_is_fetched_hash_checked(two_hosts):
    index, files, wheel = two_hosts
    sources = Sources(torch=(TorchSource(f"{index}/whl/cu128", name="custom"),))
    path, sha = torch_file(sources, wheel.name, sha256_of(wheel), memory=SourceMemory())
    assert sha == sha256_of(wheel) and path.read_bytes() == wheel.read_bytes()
    assert "/whl/cu128/torch/" in index.hits and any(h.endswith(".whl") for h in files.hits)


def test_a_declared_file_host_is_asked_directly_without_reading_the_big_page(two_hosts, monkeypatch):
    index, files, wheel = two_hosts
    table = dict(mirrors.presets())
    table["pagehost"] = dataclasses.replace(table["official"], name="pagehost", torch=f"{index}/whl",
                                            torch_files=(f"{files}/whl",))
    monkeypatch.setattr(mirrors, "presets", lambda: table)
    sources = Sources(torch=(TorchSource(f"{index}/whl/cu128", name="pagehost"),))
    path, _ = torch_file(sources, wheel.name, sha256_of(wheel), memory=SourceMemory())
    assert path.read_bytes() == wheel.read_bytes()
    assert "/whl/cu128/torch/" not in index.hits                       # no listing needed
    assert recorded_url_allowed(sources, _locked(f"{files}/whl/cu128/{wheel.name}"))


def test_the_lock_records_the_canonical_url_whatever_host_served(two_hosts):
    from torchenv.sources.locate import locate

    index, files, wheel = two_hosts
    sources = Sources(torch=(TorchSource(f"{index}/whl/cu128", name="custom"),))
    found = locate(sources, "torch", "2.9.1+cu128", source="torch-index", tier="cu128", python="3.12",
                   platform="linux-x86_64")
    assert found.wheel.url == f"https://download.pytorch.org/whl/cu128/{wheel.name.replace('+', '%2B')}"
    assert found.found_url.startswith(files) and found.wheel.sha256 == sha256_of(wheel)
