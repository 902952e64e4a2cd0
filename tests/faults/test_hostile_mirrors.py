"""Mirrors that never finish an answer, and a clock that lies about when something was remembered.

An index page with no end, a mirror that sends one header byte every half second: each is a failing
mirror (named, with the limit it broke, the next source tried), never a hang or a full memory. A
dead-host memory or a page cache dated in the future is stale, not trusted until that date.
"""
from __future__ import annotations

import json
import time

import pytest
from tests.support import sha256_of
from tests.support.console import unwrapped
from tests.support.rangeserver import serve_ranges
from tests.support.server import hostile_url
from tests.support.ui import RecordingUi
from tests.support.world import TORCH_FILE

YEAR = 365 * 86400


@pytest.mark.fault("an index page that never ends", where="the torch mirror streams its page without end "
                   "(page cap lowered to 4 MiB by `TORCHENV_MAX_PAGE_MIB`)",
                   expect="the mirror fails, named, with the cap it exceeded and how to raise it; no lock, no env")
def test_endless_index_page_is_cut_at_the_cap(world, observed):
    with hostile_url("endless", limit_bytes=48 << 20) as url:
        world.torch_url = url
        r = world.up(timeout=120, env={"TORCHENV_MAX_PAGE_MIB": "4"})
    flat = unwrapped(r.err)
    observed(f"exit {r.rc}: {r.gist('MiB')}")
    assert r.rc != 0 and "Traceback" not in r.text, r.text
    assert url.removeprefix("http://") in flat and "more than 4 MiB" in flat and "TORCHENV_MAX_PAGE_MIB" in flat, flat
    assert not world.lock.exists() and not world.env.exists()


@pytest.mark.fault("a slow-loris torch mirror", where="one header byte every 0.5 s (each read gets a byte "
                   "before the per-read timeout); `TORCHENV_HTTP_DEADLINE=3`",
                   expect="`up` gives up on it after the deadline, naming the mirror and the setting; no hang")
def test_slow_loris_index_misses_its_deadline(world, observed):
    with hostile_url("loris", limit_s=150) as url:
        world.torch_url = url
        t0 = time.monotonic()
        r = world.up(timeout=140, env={"TORCHENV_HTTP_DEADLINE": "3"})
        took = time.monotonic() - t0
    flat = unwrapped(r.err)
    observed(f"exit {r.rc} {'under 60 s' if took < 60 else 'slow'}: {r.gist('timed out')}")
    assert r.rc != 0 and "Traceback" not in r.text, r.text
    assert url.removeprefix("http://") in flat and "within 3 s" in flat, flat
    assert took < 100, f"took {took:.0f} s"       # the mirror itself gives up after 150 s


@pytest.mark.fault("a slow-loris mirror among two for a file", where="`fetch` of a file listed on a slow-loris "
                   "mirror first, an honest one second; `TORCHENV_HTTP_DEADLINE=2`",
                   expect="the slow mirror is skipped after the deadline, named; the honest one delivers the file")
def test_slow_loris_file_mirror_falls_back_to_the_next(tmp_path, monkeypatch, observed):
    from torchenv.sources.fetch import fetch

    monkeypatch.setenv("TORCHENV_HTTP_DEADLINE", "2")
    wheel = tmp_path / "src" / TORCH_FILE
    wheel.parent.mkdir()
    wheel.write_bytes(b"wheel bytes " * 1000)
    ui = RecordingUi()
    with hostile_url("loris", limit_s=150) as loris, serve_ranges({f"files/{TORCH_FILE}": wheel}) as honest:
        got = fetch(TORCH_FILE, sha256_of(wheel), [f"{loris}/files/{TORCH_FILE}", f"{honest.url}/files/{TORCH_FILE}"],
                    ui=ui, cache=tmp_path / "cache")
    said = " ".join(ui.warnings)
    observed(f"file delivered by the second mirror; warned: {said[:150]}")
    assert sha256_of(got) == sha256_of(wheel)
    assert loris.removeprefix("http://") in said and "within 2 s" in said, said


@pytest.mark.fault("a dead-host memory dated a year ahead", where="`dead-hosts.json` names both working mirrors "
                   "until next year (a clock that ran ahead, a restored backup)",
                   expect="the entries are stale: `up` asks the mirrors and finishes (exit 0)")
def test_future_dead_host_memory_does_not_block_a_working_mirror(world, observed):
    memory = world.torchenv_home / "cache" / "index-check" / "dead-hosts.json"
    memory.parent.mkdir(parents=True, exist_ok=True)
    hosts = [u.removeprefix("http://").partition("/")[0] for u in (world.torch_url, world.pypi_url)]
    memory.write_text(json.dumps({h: ["timed out", time.time() + YEAR] for h in hosts}))
    r = world.up(timeout=240)
    observed(f"exit {r.rc}" + ("" if r.rc == 0 else f": {r.gist('moment ago')}"))
    assert r.rc == 0 and "failed a moment ago" not in r.text, r.text
    assert world.lock.exists()


@pytest.mark.fault("a page cache dated a year ahead", where="the torch page's cache entry says it was read next year",
                   expect="the entry is stale: the page is read again, not trusted for that year")
def test_future_page_cache_is_stale(observed):
    from torchenv.resolve import index_check

    page = "https://mirror.example/whl/cu126|index"
    path = index_check._cache_path(page)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"read_at": time.time() + YEAR, "links": [["torch-9.9.9-py3-none-any.whl", "x"]]}))
    fresh = dict(json.loads(path.read_text()), read_at=time.time() - 60)
    index_check._save_json(index_check._cache_path(page + "|fresh"), fresh)
    assert index_check._cached(page + "|fresh") is not None      # a minute old: still used
    found = index_check._cached(page)
    observed("read again" if found is None else "trusted")
    assert found is None
