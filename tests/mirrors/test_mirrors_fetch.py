"""Fetching an artifact by sha256 through mirrors that fail in the ways real ones do."""
from __future__ import annotations

import os

import pytest
from tests.support import closed_port_url, make_wheel, serve_dir, sha256_of
from tests.support.ui import RecordingUi

from torchenv.errors import HashMismatch, SourceError
from torchenv.sources.fetch import fetch


@pytest.fixture()
def wheel(tmp_path):
    return make_wheel(tmp_path / "src", "torch", "2.4.1+cu121", tag="cp311-cp311-linux_x86_64",
                      payload=300_000)


def _leftovers(cache):
    return [p for p in cache.rglob("*") if p.is_file() and p.name.startswith(".partial-")]


def test_download_verifies_caches_and_reuses(tmp_path, wheel):
    cache, ui = tmp_path / "cache", RecordingUi()
    sha = sha256_of(wheel)
    with serve_dir(wheel.parent) as base:
        url = f"{base}/{wheel.name.replace('+', '%2B')}"
        got = fetch(wheel.name, sha, [url], ui=ui, cache=cache)
        assert got == cache / sha[:2] / sha / wheel.name
        assert sha256_of(got) == sha and ui.advanced == wheel.stat().st_size
        again = fetch(wheel.name, sha, [url], cache=cache)
        assert again == got and len(base.hits) == 1      # second call: cache hit, no request


def test_default_cache_is_torchenv_wheel_cache(tmp_path, wheel):
    from torchenv import paths

    got = fetch(wheel.name, sha256_of(wheel), [f"file://{tmp_path}/missing.whl", str(wheel)])
    assert got == wheel   # local file used in place
    assert not (paths.wheel_cache() / sha256_of(wheel)[:2]).exists()


@pytest.mark.parametrize("failure", [{"fail": 404}, {"fail": 403}, {"fail": 502}, {"drop": 50_000}])
def test_failing_mirror_falls_back_with_warning(tmp_path, wheel, failure):
    cache, ui = tmp_path / "cache", RecordingUi()
    sha = sha256_of(wheel)
    key = wheel.name
    bad_kw = ({"fail": {key: failure["fail"]}} if "fail" in failure else {"drop_after": {key: failure["drop"]}})
    with serve_dir(wheel.parent, **bad_kw) as bad, serve_dir(wheel.parent) as good:
        got = fetch(wheel.name, sha, [f"{bad}/{key}", f"{good}/{key}"], ui=ui, cache=cache)
    assert sha256_of(got) == sha
    assert len(ui.warnings) == 1
    warning = ui.warnings[0]
    assert bad.removeprefix("http://") in warning and wheel.name in warning
    assert f"trying {good.removeprefix('http://')}" in warning
    if "fail" in failure:
        assert str(failure["fail"]) in warning
    else:
        assert "dropped" in warning
    assert _leftovers(cache) == []


def test_all_sources_fail_lists_each(tmp_path, wheel):
    cache = tmp_path / "cache"
    dead = closed_port_url()
    with serve_dir(wheel.parent, drop_after={wheel.name: 1000}) as drop:
        with pytest.raises(SourceError) as err:
            fetch(wheel.name, sha256_of(wheel), [f"{dead}/{wheel.name}", f"{drop}/{wheel.name}"],
                  cache=cache, timeout=2)
    msg = err.value.message
    assert f"{dead}/{wheel.name}: connection refused" in msg
    assert f"{drop}/{wheel.name}: connection dropped" in msg
    assert not isinstance(err.value, HashMismatch)
    final_dir = cache / sha256_of(wheel)[:2]
    assert not any(p.is_file() for p in final_dir.rglob("*")) if final_dir.exists() else True
    assert _leftovers(cache) == []


def test_wrong_file_is_refused_and_named(tmp_path, wheel):
    cache = tmp_path / "cache"
    other = make_wheel(tmp_path / "evil", "torch", "2.4.1+cu121", tag="cp311-cp311-linux_x86_64",
                       requires=["evil"])
    expected = sha256_of(wheel)
    with serve_dir(other.parent) as evil:
        with pytest.raises(HashMismatch) as err:
            fetch(wheel.name, expected, [f"{evil}/{wheel.name}"], cache=cache)
    msg = err.value.message
    assert wheel.name in msg and expected in msg and sha256_of(other) in msg
    assert not (cache / expected[:2] / expected / wheel.name).exists()
    assert _leftovers(cache) == []


def test_wrong_file_then_good_mirror(tmp_path, wheel):
    cache, ui = tmp_path / "cache", RecordingUi()
    other = make_wheel(tmp_path / "evil", "torch", "2.4.1+cu121", tag="cp311-cp311-linux_x86_64",
                       requires=["evil"])
    with serve_dir(other.parent) as evil, serve_dir(wheel.parent) as good:
        got = fetch(wheel.name, sha256_of(wheel), [f"{evil}/{wheel.name}", f"{good}/{wheel.name}"],
                    ui=ui, cache=cache)
    assert sha256_of(got) == sha256_of(wheel)
    assert "sha256" in ui.warnings[0]


def test_local_file_verified_in_place_and_remembered(tmp_path, wheel, monkeypatch):
    cache = tmp_path / "cache"
    sha = sha256_of(wheel)
    assert fetch(wheel.name, sha, [wheel.as_uri()], cache=cache) == wheel
    import torchenv.sources.fetch as mod

    def no_rehash(path):
        raise AssertionError("re-hashed a file whose size/mtime did not change")

    monkeypatch.setattr(mod, "sha256_file", no_rehash)
    assert fetch(wheel.name, sha, [str(wheel)], cache=cache) == wheel
    monkeypatch.undo()
    # a changed file (new mtime, different bytes) is hashed again and refused
    data = bytearray(wheel.read_bytes())
    data[-100] ^= 0xFF
    wheel.write_bytes(bytes(data))
    os.utime(wheel, ns=(1, 1))
    with pytest.raises(HashMismatch):
        fetch(wheel.name, sha, [str(wheel)], cache=cache)


def test_user_agent_is_sent(tmp_path, wheel):
    import http.server
    import threading

    seen = []

    class H(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            seen.append(self.headers.get("User-Agent"))
            self.send_error(404)

        def log_message(self, *a):
            pass

    srv = http.server.HTTPServer(("127.0.0.1", 0), H)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        with pytest.raises(SourceError, match="HTTP 404"):
            fetch(wheel.name, sha256_of(wheel), [f"http://127.0.0.1:{srv.server_address[1]}/x.whl"],
                  cache=tmp_path / "c")
    finally:
        srv.shutdown()
    from torchenv import __version__
    assert seen == [f"torchenv/{__version__}"]


def test_unknown_hash_downloads_once_hashes_and_caches(tmp_path, wheel):
    """A flat mirror publishes no sha256: the file is fetched once, hashed, and kept content-addressed."""
    from torchenv.sources.fetch import fetch_and_hash

    cache = tmp_path / "cache"
    dead = closed_port_url()
    failures = []
    with serve_dir(wheel.parent) as base:
        path, digest = fetch_and_hash(wheel.name, [f"{dead}/{wheel.name}", f"{base}/{wheel.name}"], cache=cache,
                                      on_failure=lambda url, why: failures.append((url, why)))
        assert len([h for h in base.hits if h.endswith(wheel.name)]) == 1
    assert digest == sha256_of(wheel)
    assert path == cache / digest[:2] / digest / wheel.name and path.read_bytes() == wheel.read_bytes()
    assert failures == [(f"{dead}/{wheel.name}", "connection refused")]
    assert fetch(wheel.name, digest, [], cache=cache) == path     # the known-hash mode finds it now
    assert _leftovers(cache) == []


def test_unknown_hash_of_a_local_file_is_used_in_place(tmp_path, wheel):
    from torchenv.sources.fetch import fetch_and_hash

    path, digest = fetch_and_hash(wheel.name, [str(tmp_path / "nope.whl"), wheel.as_uri()], cache=tmp_path / "c")
    assert path == wheel and digest == sha256_of(wheel)


def test_on_failure_hears_each_failed_source(tmp_path, wheel):
    dead = closed_port_url()
    heard = []
    with serve_dir(wheel.parent, fail={wheel.name: 403}) as bad, serve_dir(wheel.parent) as good:
        fetch(wheel.name, sha256_of(wheel), [f"{dead}/{wheel.name}", f"{bad}/{wheel.name}", f"{good}/{wheel.name}"],
              cache=tmp_path / "c", on_failure=lambda url, why: heard.append(why))
    assert heard == ["connection refused", "HTTP 403"]
