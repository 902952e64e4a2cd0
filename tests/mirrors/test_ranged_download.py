"""Large files in ranged chunks from several loopback mirrors: spread, resume, a lying mirror, fallback.

Chunks are made small (64 KiB) so the files stay small and the tests fast; nothing here asserts a time.
"""
from __future__ import annotations

import json
import os

import pytest
from tests.support import serve_dir, sha256_of
from tests.support.rangeserver import serve_ranges
from tests.support.ui import RecordingUi

from torchenv.errors import HashMismatch, SourceError
from torchenv.sources import ranged
from torchenv.sources.fetch import fetch

CHUNK = 64 << 10
NAME = "torch-2.4.1+cu121-cp311-cp311-linux_x86_64.whl"


@pytest.fixture(autouse=True)
def small_chunks(monkeypatch):
    monkeypatch.setattr(ranged, "CHUNK_BYTES", CHUNK)
    monkeypatch.setattr(ranged, "RANGED_MIN_BYTES", 2 * CHUNK)
    monkeypatch.setattr(ranged, "RATES", ranged.MirrorRates())   # what one run learned stays in that run


@pytest.fixture()
def big(tmp_path):
    path = tmp_path / "src" / NAME
    path.parent.mkdir()
    path.write_bytes(os.urandom(20 * CHUNK + 1234))
    return path


def _urls(*mirrors):
    return [f"{m.url}/files/{NAME}" for m in mirrors]


def _settled_counts(mirrors, expected: int, wait_s: float = 5.0) -> list[int]:
    """The bytes each mirror counted once its handlers are done: a handler adds its last write after the
    client already has the bytes, so the count can trail ``fetch`` returning by a moment. More than
    ``expected`` (a byte sent twice) is returned at once; fewer only after ``wait_s``."""
    import time

    deadline = time.monotonic() + wait_s
    while sum(m.sent for m in mirrors) < expected and time.monotonic() < deadline:
        time.sleep(0.01)
    return [m.sent for m in mirrors]


def test_large_file_comes_in_chunks_from_every_mirror(tmp_path, big):
    files = {f"files/{NAME}": big}
    with serve_ranges(files) as a, serve_ranges(files) as b, serve_ranges(files) as c:
        got = fetch(NAME, sha256_of(big), _urls(a, b, c), ui=RecordingUi(), cache=tmp_path / "cache")
        sent = _settled_counts([a, b, c], big.stat().st_size + 1)
    assert sha256_of(got) == sha256_of(big)
    assert all(n > 0 for n in sent)                       # every mirror carried a share
    assert sum(sent) == big.stat().st_size + 1            # each byte once (+ the 1-byte size probe)
    assert not list(got.parent.glob(".ranged-*"))          # no partial or sidecar left behind


def test_resume_keeps_finished_chunks_and_loses_at_most_one(tmp_path, big):
    files, cache, sha = {f"files/{NAME}": big}, tmp_path / "cache", sha256_of(big)
    size = big.stat().st_size
    with serve_ranges(files, die_after=size * 6 // 10) as dying:
        with pytest.raises(SourceError, match="run again to continue"):
            fetch(NAME, sha, _urls(dying), ui=RecordingUi(), cache=cache)
        first = dying.sent
    sidecar = next(cache.rglob(".ranged-*.json"))
    assert sum(json.loads(sidecar.read_text())["have"].values()) > 0
    with serve_ranges(files) as healthy:
        got = fetch(NAME, sha, _urls(healthy), ui=RecordingUi(), cache=cache)
        second = healthy.sent
    assert sha256_of(got) == sha
    assert first + second - 2 <= size + CHUNK                  # re-fetched at most one chunk's worth


def test_mirror_lying_about_one_chunk_is_found_named_and_dropped(tmp_path, big):
    files, ui = {f"files/{NAME}": big}, RecordingUi()
    with serve_ranges(files, lie=1) as liar, serve_ranges(files) as honest:
        got = fetch(NAME, sha256_of(big), _urls(liar, honest), ui=ui, cache=tmp_path / "cache")
        assert liar.lied                                   # it did serve a bad chunk
    assert sha256_of(got) == sha256_of(big)
    port = liar.url.rsplit(":", 1)[1]
    named = [w for w in ui.warnings if "wrong bytes" in w]
    assert len(named) == 1 and f":{port} " in named[0] and "dropped" in named[0]
    assert honest.url.rsplit(":", 1)[1] not in named[0].split("(")[0]


def test_lone_lying_mirror_is_refused_and_its_bytes_discarded(tmp_path, big):
    cache = tmp_path / "cache"
    with serve_ranges({f"files/{NAME}": big}, lie=1) as liar:
        with pytest.raises(HashMismatch):
            fetch(NAME, sha256_of(big), _urls(liar), ui=RecordingUi(), cache=cache)
    assert not [p for p in cache.rglob("*") if p.is_file()]   # nothing kept to resume into


def test_server_without_range_support_streams_over_one_connection(tmp_path, big):
    (tmp_path / "src" / "files").mkdir()
    big.rename(tmp_path / "src" / "files" / NAME)
    whl = tmp_path / "src" / "files" / NAME
    with serve_dir(tmp_path / "src") as plain:
        got = fetch(NAME, sha256_of(whl), [f"{plain}/files/{NAME.replace('+', '%2B')}"], cache=tmp_path / "c")
        assert len(plain.hits) == 1                     # the range probe's 200 answer is the download
    assert sha256_of(got) == sha256_of(whl)


def test_a_dead_mirror_among_live_ones_costs_no_chunk(tmp_path, big):
    from tests.support import closed_port_url

    files = {f"files/{NAME}": big}
    with serve_ranges(files) as a, serve_ranges(files) as b:
        urls = _urls(a) + [f"{closed_port_url()}/files/{NAME}"] + _urls(b)
        got = fetch(NAME, sha256_of(big), urls, ui=RecordingUi(), cache=tmp_path / "cache")
    assert sha256_of(got) == sha256_of(big)


_KILLED_RUN = """
import sys
from torchenv.sources import ranged
from torchenv.sources.fetch import fetch
ranged.CHUNK_BYTES, ranged.RANGED_MIN_BYTES = {chunk}, {chunk} * 2
fetch({name!r}, {sha!r}, [{url!r}], cache=__import__("pathlib").Path({cache!r}))
"""


@pytest.mark.parametrize("keep_alive", [False, True], ids=["closing-mirror", "kept-alive-connections"])
def test_killed_download_resumes_without_fetching_recorded_bytes_again(tmp_path, big, keep_alive):
    import signal
    import subprocess
    import sys
    import time

    files, cache, sha, size = {f"files/{NAME}": big}, tmp_path / "cache", sha256_of(big), big.stat().st_size
    with serve_ranges(files, rate=100_000, keep_alive=keep_alive) as slow:
        code = _KILLED_RUN.format(chunk=CHUNK, name=NAME, sha=sha, url=_urls(slow)[0], cache=str(cache))
        proc = subprocess.Popen([sys.executable, "-c", code])
        have = 0
        for _ in range(1500):                                   # at most ~30 s
            sidecars = list(cache.rglob(".ranged-*.json"))
            try:
                have = sum(json.loads(sidecars[0].read_text())["have"].values()) if sidecars else 0
            except ValueError:
                have = 0
            if have >= size // 3 or proc.poll() is not None:
                break
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    assert 0 < have < size, "the download was not caught mid-way"
    recorded = sum(json.loads(next(cache.rglob(".ranged-*.json")).read_text())["have"].values())
    with serve_ranges(files, keep_alive=keep_alive) as fresh:
        got = fetch(NAME, sha, _urls(fresh), ui=RecordingUi(), cache=cache)
        assert fresh.sent == size - recorded + 1             # only what was not on record (+ the size probe)
    assert sha256_of(got) == sha


def test_private_mirrors_get_their_login_on_every_chunk_and_it_is_never_shown(tmp_path, big):
    files, ui = {f"files/{NAME}": big}, RecordingUi()
    with serve_ranges(files, auth=("alice", "s3cret-token"), lie=1) as liar, \
            serve_ranges(files, auth=("bob", "other-pass")) as honest:
        urls = [u.replace("http://", f"http://{who}@") for u, who in
                zip(_urls(liar, honest), ("alice:s3cret-token", "bob:other-pass"))]
        got = fetch(NAME, sha256_of(big), urls, ui=ui, cache=tmp_path / "cache")
        assert liar.sent > 0 and honest.sent > 0        # both accepted their own login (401 otherwise)
    assert sha256_of(got) == sha256_of(big)
    assert ui.warnings and not [w for w in ui.warnings if "s3cret" in w or "alice" in w or "other-pass" in w]
    stored = [p.read_text(errors="replace") for p in (tmp_path / "cache").rglob("*") if p.suffix == ".json"]
    assert not [s for s in stored if "s3cret" in s or "other-pass" in s]


def test_connections_stay_within_the_run_budget(tmp_path, big, monkeypatch):
    import threading

    monkeypatch.setenv("TORCHENV_CONNECTIONS", "2")
    monkeypatch.setattr(ranged, "_BUDGET", [])                  # a new run: the budget is read again
    real, open_now, peak, guard = ranged._fetch_range, [0], [0], threading.Lock()

    def counted(*args, **kw):
        with guard:
            open_now[0] += 1
            peak[0] = max(peak[0], open_now[0])
        try:
            return real(*args, **kw)
        finally:
            with guard:
                open_now[0] -= 1

    monkeypatch.setattr(ranged, "_fetch_range", counted)
    files = {f"files/{NAME}": big}
    with serve_ranges(files, rate=2_000_000) as a, serve_ranges(files, rate=2_000_000) as b:
        got = fetch(NAME, sha256_of(big), _urls(a, b), ui=RecordingUi(), cache=tmp_path / "cache")
        assert a.sent and b.sent
    assert peak[0] == 2 and sha256_of(got) == sha256_of(big)


def test_a_multi_chunk_download_reuses_its_connections_within_the_budget(tmp_path, big, monkeypatch):
    """21 chunks and the size probe over kept-alive connections: as many connections as the budget allows,
    not one per chunk (a new TCP+TLS handshake per 8 MiB is minutes across an ocean)."""
    monkeypatch.setenv("TORCHENV_CONNECTIONS", "2")
    monkeypatch.setattr(ranged, "_BUDGET", [])
    files = {f"files/{NAME}": big}
    with serve_ranges(files, keep_alive=True) as mirror:
        got = fetch(NAME, sha256_of(big), _urls(mirror), ui=RecordingUi(), cache=tmp_path / "cache")
        asked, opened = len(mirror.requests), mirror.connections
    assert sha256_of(got) == sha256_of(big)
    assert asked >= 22 and opened <= 2, f"{opened} connections for {asked} requests"


def test_measured_speed_from_mirror_test_sends_the_first_chunks_to_the_faster_mirror(monkeypatch):
    from torchenv.sources import mirrors

    monkeypatch.setattr(mirrors, "auto_choice", lambda: {"torch": [
        {"name": "slow", "url": "https://slow.example/whl/cu121", "throughput_kibps": 100.0},
        {"name": "fast", "url": "https://fast.example:8443/whl/cu121", "throughput_kibps": 9000.0}]})
    rates = ranged.MirrorRates()
    picks = [rates.pick(["slow.example", "fast.example:8443"], set(), cap=4) for _ in range(5)]
    assert picks[:4] == ["fast.example:8443"] * 4          # the slow one waits while the fast one has room
    assert picks[4] is None


def test_mirror_use_auto_stores_the_measured_speed():
    from torchenv.sources.mirrortest import Result, choice_from

    rows = [Result(name="m", kind="torch", url="https://m.example/whl/cpu", ok=True, throughput_kibps=512.0)]
    assert choice_from({"torch": rows, "pypi": [], "conda": []})["torch"][0]["throughput_kibps"] == 512.0


def test_full_disk_is_reported_as_such_and_no_mirror_is_blamed(tmp_path, big):
    from tests.faults.tools.mounts import small_tmpfs

    files, ui = {f"files/{NAME}": big}, RecordingUi()
    with small_tmpfs(tmp_path / "fs", "512k") as fs, serve_ranges(files) as a, serve_ranges(files) as b:
        with pytest.raises(SourceError) as exc:
            fetch(NAME, sha256_of(big), _urls(a, b), ui=ui, cache=fs / "cache")
    assert "No space left on device" in exc.value.message
    assert not [w for w in ui.warnings if "dropped" in w]
