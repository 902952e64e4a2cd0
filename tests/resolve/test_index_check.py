"""`plan` checks the recipes against the tier index it would use, when that index answers: a build the index lacks
is skipped, one it holds but the recipes do not list is considered, each with its reason; offline, or when the index
does not answer, the recipes alone answer, quickly. Loopback indexes only."""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from support.server import blackhole_url, closed_port_url, serve_dir
from torchenv.cli import main

X86 = ["--assume-os", "linux", "--assume-arch", "x86_64", "--assume-python", "3.12"]
H100 = [*X86, "--assume-driver", "580.65.06", "--assume-gpu", "9.0"]


@pytest.fixture(autouse=True)
def _checking(monkeypatch):
    monkeypatch.setenv("TORCHENV_INDEX_CHECK", "1")
    monkeypatch.delenv("TORCHENV_OFFLINE", raising=False)


def _page(whl: Path, tier: str, *files: str) -> None:
    page = whl / tier / "torch"
    page.mkdir(parents=True, exist_ok=True)
    (page / "index.html").write_text("".join(f'<a href="{f}">{f.rsplit("/", 1)[-1]}</a>\n' for f in files))


def _wheel(version: str, tier: str, platform: str = "manylinux_2_28_x86_64", py: str = "cp312-cp312") -> str:
    return f"torch-{version}+{tier}-{py}-{platform}.whl"


def plan(capsys, tmp_path, *argv: str) -> tuple[int, dict]:
    code = main(["plan", "-C", str(tmp_path), "--json", *argv])
    return code, json.loads(capsys.readouterr().out)


def test_a_build_the_index_lacks_is_skipped_with_its_reason(capsys, tmp_path):
    whl = tmp_path / "mirror" / "whl"
    _page(whl, "cu132", _wheel("2.14.0", "cu132"))                        # a partial sync: no 2.14.1
    _page(whl, "cu130", _wheel("2.14.1", "cu130"), _wheel("2.14.0", "cu130"))
    with serve_dir(tmp_path / "mirror") as url:
        code, data = plan(capsys, tmp_path, *H100, "--torch", "2.14", "--torch-mirror", f"{url}/whl")
    assert code == 0, data
    assert (data["torch"], data["tier"]) == ("2.14.1", "cu130")
    why = "\n".join(data["reasons"])
    assert f"cu132 skipped: the recipes list torch 2.14.1 cu132, but the cu132 index ({url}/whl/cu132" in why
    assert f"checked the cu130 index ({url}/whl/cu130, read just now): it holds torch 2.14.1" in why


def test_without_the_check_the_recipes_alone_pick_the_missing_build(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("TORCHENV_OFFLINE", "1")
    code, data = plan(capsys, tmp_path, *H100, "--torch", "2.14", "--torch-mirror", "http://127.0.0.1:9/whl")
    assert (code, data["tier"]) == (0, "cu132")
    assert not any("index" in r and "checked" in r for r in data["reasons"])


def test_a_build_the_index_holds_but_the_recipes_do_not_list_is_considered(capsys, tmp_path):
    whl = tmp_path / "mirror" / "whl"
    _page(whl, "cu128", _wheel("2.8.0", "cu128", "manylinux_2_28_aarch64"), _wheel("2.8.0", "cu128"))
    _page(whl, "cu129", _wheel("2.8.0", "cu129", "manylinux_2_28_aarch64"))
    gh200 = ["--assume-os", "linux", "--assume-arch", "aarch64", "--assume-python", "3.12",
             "--assume-driver", "570.86.15", "--assume-gpu", "9.0", "--torch", "2.8", "--cuda", "cu128"]
    code, before = plan(capsys, tmp_path, *gh200, "--torch-mirror", "http://127.0.0.1:9/whl")
    assert code != 0                                                        # the recipes list only cu129 there
    with serve_dir(tmp_path / "mirror") as url:
        code, data = plan(capsys, tmp_path, *gh200, "--torch-mirror", f"{url}/whl")
    assert code == 0, data
    assert (data["torch"], data["tier"]) == ("2.8.0", "cu128")
    assert any("is on the cu128 index although the recipes do not list it" in w for w in data["warnings"])
    assert any(f"checked the cu128 index ({url}/whl/cu128" in r for r in data["reasons"])


def test_pages_are_cached_and_offline_reads_nothing(capsys, tmp_path, monkeypatch):
    whl = tmp_path / "mirror" / "whl"
    _page(whl, "cu132", _wheel("2.14.0", "cu132"))
    _page(whl, "cu130", _wheel("2.14.1", "cu130"))
    with serve_dir(tmp_path / "mirror") as url:
        args = (*H100, "--torch", "2.14", "--torch-mirror", f"{url}/whl")
        plan(capsys, tmp_path, *args)
        first = len(url.hits)
        assert first >= 2
        code, data = plan(capsys, tmp_path, *args)
        assert len(url.hits) == first and data["tier"] == "cu130"          # from the cache
        monkeypatch.setenv("TORCHENV_INDEX_TTL", "0")
        plan(capsys, tmp_path, *args)
        assert len(url.hits) > first                                        # expired: read again
        reread = len(url.hits)
        monkeypatch.setenv("TORCHENV_OFFLINE", "1")
        code, data = plan(capsys, tmp_path, *args)
        assert len(url.hits) == reread and data["tier"] == "cu132"          # offline: the shipped recipes


def test_an_unreachable_index_is_remembered_and_costs_nothing_next_time(capsys, tmp_path):
    from torchenv.paths import cache_dir

    dead = closed_port_url().replace("http://", "http://alice:s3cret@")
    code, data = plan(capsys, tmp_path, *H100, "--torch", "2.14", "--torch-mirror", f"{dead}/whl")
    assert (code, data["tier"]) == (0, "cu132")
    line = next(r for r in data["reasons"] if r.startswith("could not check the tier index"))
    assert "127.0.0.1" in line and "s3cret" not in line
    memory = (cache_dir() / "index-check" / "dead-hosts.json").read_text()
    assert "127.0.0.1" in memory and "s3cret" not in memory and "alice" not in memory
    start = time.perf_counter()
    code, data = plan(capsys, tmp_path, *H100, "--torch", "2.14", "--torch-mirror", f"{dead}/whl")
    assert time.perf_counter() - start < 0.15 and code == 0
    assert any(r.startswith("could not check the tier index") for r in data["reasons"])


VARIANTS = {"variants": {
    "cu130": {"nvidia": {"cuda_version_lower_bound": ["13.0"], "sm_arch": ["80_real", "90_real", "100_real"]}},
    "cu126": {"nvidia": {"cuda_version_lower_bound": ["12.6"], "sm_arch": ["80_real", "90_real"]}},
    "null": {}}}


def test_the_chosen_tiers_variants_json_is_read_and_matched(capsys, tmp_path):
    whl = tmp_path / "mirror" / "whl"
    _page(whl, "cu132", _wheel("2.14.0", "cu132"))
    _page(whl, "cu130", _wheel("2.14.1", "cu130"), "torch-2.14.1-variants.json")
    (whl / "cu130" / "torch" / "torch-2.14.1-variants.json").write_text(json.dumps(VARIANTS))
    with serve_dir(tmp_path / "mirror") as url:
        code, data = plan(capsys, tmp_path, *H100, "--torch", "2.14", "--torch-mirror", f"{url}/whl")
        assert code == 0 and "/whl/cu130/torch/torch-2.14.1-variants.json" in url.hits
        line = next(r for r in data["reasons"] if "variants.json" in r)
        assert "best first: cu130, cu126, null" in line
        code, data = plan(capsys, tmp_path, *X86, "--assume-driver", "580.65.06", "--assume-gpu", "12.0",
                          "--torch", "2.14", "--torch-mirror", f"{url}/whl")
    assert data["tier"] == "cu130"
    assert any("its cu130 variant needs nvidia :: sm_arch :: 80_real | 90_real | 100_real" in w
               for w in data["warnings"])


def test_pages_that_link_their_files_on_another_host_count_as_holding_them(capsys, tmp_path):
    whl = tmp_path / "mirror" / "whl"
    r2 = "https://download-r2.pytorch.org/whl"
    _page(whl, "cu132", f"{r2}/cu132/{_wheel('2.14.0', 'cu132').replace('+', '%2B')}")
    _page(whl, "cu130", f"{r2}/cu130/{_wheel('2.14.1', 'cu130').replace('+', '%2B')}#sha256={'0' * 64}")
    with serve_dir(tmp_path / "mirror") as url:
        code, data = plan(capsys, tmp_path, *H100, "--torch", "2.14", "--torch-mirror", f"{url}/whl")
    assert (code, data["tier"]) == (0, "cu130")
    assert any("cu132 skipped: the recipes list torch 2.14.1 cu132, but the cu132 index" in r for r in data["reasons"])


def test_the_index_must_hold_the_wanted_python_too(capsys, tmp_path):
    whl = tmp_path / "mirror" / "whl"
    _page(whl, "cu132", _wheel("2.14.1", "cu132", py="cp313-cp313"))          # no cp312 of 2.14.1 on cu132
    _page(whl, "cu130", _wheel("2.14.1", "cu130"))
    with serve_dir(tmp_path / "mirror") as url:
        code, data = plan(capsys, tmp_path, *H100, "--torch", "2.14", "--python", "3.12",
                          "--torch-mirror", f"{url}/whl")
        assert (code, data["tier"]) == (0, "cu130")
        assert any("cu132 skipped: the cu132 index" in r and "has no Python 3.12 wheel of torch 2.14.1" in r
                   and "(it has 3.13)" in r for r in data["reasons"])
        code, data = plan(capsys, tmp_path, *H100, "--torch", "2.14", "--torch-mirror", f"{url}/whl")
    assert data["tier"] == "cu132" and data["python"] == "3.12"               # chosen after the search: a warning
    assert any("has no Python 3.12 wheel of torch 2.14.1" in w and "--python" in w for w in data["warnings"])


def test_the_page_cache_holds_no_credentials(capsys, tmp_path):
    from torchenv.paths import cache_dir
    from torchenv.resolve.index_check import _read_page
    from torchenv.sources.deadhosts import SourceMemory

    whl = tmp_path / "mirror" / "whl"
    _page(whl, "cu130", "http://bob:hunter2@files.example/whl/cu130/" + _wheel("2.14.1", "cu130"))
    assert _read_page(f"{whl}/cu130", "index", SourceMemory()) is not None
    cached = "".join(p.read_text() for p in (cache_dir() / "index-check").glob("*.json"))
    assert "files.example/whl/cu130/torch-2.14.1" in cached and "hunter2" not in cached and "bob" not in cached


def test_an_index_whose_connects_hang_costs_one_short_probe(capsys, tmp_path):
    from torchenv.resolve.index_check import PROBE_S

    with blackhole_url() as dead:
        start = time.perf_counter()
        code, data = plan(capsys, tmp_path, *H100, "--torch", "2.14", "--torch-mirror", f"{dead}/whl")
        took = time.perf_counter() - start
    assert (code, data["tier"]) == (0, "cu132") and took < PROBE_S + 0.5        # not the 2 s page timeout per tier
    assert any("could not check the tier index" in r and "timed out" in r for r in data["reasons"])


def test_the_lock_and_install_start_from_the_hosts_the_plan_found_dead():
    """The plan's reachability probe remembers an unreachable host; the backend that locks and fetches next
    starts from that memory instead of paying the host's connect timeout once more."""
    import json

    from torchenv.backends.wheellock import WheelLocker
    from torchenv.paths import cache_dir
    from torchenv.sources.deadhosts import DEAD_HOST_TTL_S, SourceMemory
    memory = SourceMemory.recent()          # as the plan's reachability probe starts
    memory.failed("http://10.9.9.9:81/whl/cu130/torch/", "timed out")
    memory.remember()
    stored = json.loads((cache_dir() / "index-check" / "dead-hosts.json").read_text())
    assert stored["10.9.9.9:81"][1] <= time.time() + DEAD_HOST_TTL_S
    locker = WheelLocker(plan=None, engine=None, ui=None)    # what `up`/`lock` lock and fetch with
    assert not locker.memory.usable("http://10.9.9.9:81/whl/cu130/torchvision/")
    assert locker.memory.usable("http://10.9.9.8:81/whl/")
    (cache_dir() / "index-check" / "dead-hosts.json").write_text(json.dumps({"10.9.9.9:81": ["timed out", 1.0]}))
    assert SourceMemory.recent().usable("http://10.9.9.9:81/whl/"), "an expired entry is forgotten"


def test_a_dead_host_is_named_and_kept_without_its_login():
    from torchenv.sources.deadhosts import SourceMemory, dead_hosts_path, host_of

    assert host_of("https://alice:s3cret@mirror.example:8443/simple/torch/") == "mirror.example:8443"
    memory = SourceMemory.recent()
    memory.failed("https://alice:s3cret@mirror.example:8443/simple/torch/", "timed out")
    memory.remember()
    assert "s3cret" not in dead_hosts_path().read_text() and "alice" not in dead_hosts_path().read_text()
    assert not SourceMemory.recent().usable("https://mirror.example:8443/simple/torchvision/")


def test_a_signed_link_s_token_never_reaches_the_page_cache_or_the_plan(capsys, tmp_path):
    """Registries that sign file links (``?token=``, ``X-Amz-Signature=``): the page is read with them, the cache on
    disk and the plan keep the link without its secret."""
    from torchenv.paths import cache_dir

    whl = tmp_path / "mirror" / "whl"
    signed = "?token=s3cr3tvalue&X-Amz-Signature=0ddba11&v=1"
    _page(whl, "cu130", _wheel("2.14.1", "cu130") + signed, _wheel("2.14.0", "cu130") + signed)
    _page(whl, "cu132", _wheel("2.14.1", "cu132") + signed)
    with serve_dir(tmp_path / "mirror") as url:
        code, data = plan(capsys, tmp_path, *H100, "--torch", "2.14", "--torch-mirror", f"{url}/whl")
    assert code == 0, data
    assert any("checked the cu132 index" in r for r in data["reasons"])          # the page was read and cached
    cached = "".join(p.read_text() for p in (cache_dir() / "index-check").glob("*.json"))
    assert _wheel("2.14.1", "cu132") in cached and "v=1" in cached
    assert "s3cr3tvalue" not in cached and "0ddba11" not in cached and "s3cr3tvalue" not in json.dumps(data)
