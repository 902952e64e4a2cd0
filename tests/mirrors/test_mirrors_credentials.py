"""Logins for package sources: found like pip finds them, sent as HTTP Basic auth, never shown."""
from __future__ import annotations

import json
import sys
import threading
import types
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from tests.support import build_index, make_wheel, serve_dir

from torchenv import redaction
from torchenv.sources import credentials
from torchenv.sources.http import open_url
from torchenv.sources.index import list_project_files

TOKEN = "tok-3f9c1a7e5b"


@pytest.fixture(autouse=True)
def _fresh_credentials(monkeypatch, tmp_path):
    monkeypatch.setattr(credentials, "_REMEMBERED", {})
    monkeypatch.setattr(redaction, "_SECRETS", set())
    monkeypatch.setenv("NETRC", str(tmp_path / "no-netrc"))
    for var in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)


@pytest.mark.parametrize("url,shown,stored", [
    ("http://user:secret@host:8080/simple", "http://***@host:8080/simple", "http://host:8080/simple"),
    ("https://TOKEN@host/simple/", "https://***@host/simple/", "https://host/simple/"),
    ("https://host/files/x.whl?X-Amz-Signature=abc&v=1", "https://host/files/x.whl?X-Amz-Signature=***&v=1",
     "https://host/files/x.whl?v=1"),
    ("https://host/simple?token=abc", "https://host/simple?token=***", "https://host/simple"),
    ("https://conda.anaconda.org/t/ab-12345678/chan", "https://conda.anaconda.org/t/***/chan",
     "https://conda.anaconda.org/t/***/chan"),
    ("https://pypi.org/simple", "https://pypi.org/simple", "https://pypi.org/simple"),
    ("/local/wheels", "/local/wheels", "/local/wheels"),
])
def test_redact_for_display_and_strip_for_storage(url, shown, stored):
    assert redaction.redact(url) == shown
    assert redaction.strip_secrets(url) == stored


def test_redact_text_masks_urls_authorization_values_and_remembered_passwords():
    credentials.remember(f"https://me:{TOKEN}@mirror.example/simple")
    text = (f"GET https://me:{TOKEN}@mirror.example/simple/x/ failed\n"
            "Authorization: Basic bWU6dG9r and Authorization: Bearer abc.def\n"
            f"uv said: password {TOKEN} rejected (also quoted: {TOKEN.replace('-', '%2D')})")
    out = redaction.redact_text(text)
    assert TOKEN not in out and "bWU6dG9r" not in out and "abc.def" not in out, out
    assert "https://***@mirror.example/simple/x/" in out


def test_a_remembered_login_is_found_by_scheme_host_port_and_path_prefix():
    clean = credentials.remember(f"http://a:{TOKEN}@h:81/private/simple")
    credentials.remember("http://b:other@h:81/team/simple")
    assert clean == "http://h:81/private/simple"
    assert credentials.credential_for("http://h:81/private/simple/torch/").username == "a"
    assert credentials.credential_for("http://h:81/team/simple/x/").username == "b"
    assert credentials.credential_for("http://h:81/files/x.whl") is not None      # same host, as pip keeps it
    assert credentials.credential_for("https://h:81/private/simple/") is None      # other scheme
    assert credentials.credential_for("http://h:82/private/simple/") is None       # other port
    assert credentials.credential_for("http://other:81/private/simple/") is None   # other host
    assert credentials.with_credentials("http://h:81/private/simple") == f"http://a:{TOKEN}@h:81/private/simple"


def test_netrc_is_read_like_pip_reads_it(tmp_path, monkeypatch):
    netrc = tmp_path / "netrc"
    netrc.write_text(f"machine mirror.example login me password {TOKEN}\n")
    netrc.chmod(0o600)
    monkeypatch.setenv("NETRC", str(netrc))
    cred = credentials.credential_for("https://mirror.example/simple/")
    assert (cred.username, cred.password, cred.origin) == ("me", TOKEN, ".netrc")
    assert TOKEN not in repr(cred)
    assert credentials.credential_for("https://elsewhere.example/simple/") is None


@pytest.fixture
def private_index(tmp_path):
    build_index(tmp_path / "m", {"fakedep": [make_wheel(tmp_path / "w", "fakedep", "1.0.0")]})
    with serve_dir(tmp_path / "m", auth=("me", TOKEN)) as base:
        yield base


def test_index_reader_sends_the_url_login_as_basic_auth_not_as_host(private_index):
    host = private_index.removeprefix("http://")
    files = list_project_files(f"http://me:{TOKEN}@{host}/simple", "fakedep")
    assert [f.filename for f in files] == ["fakedep-1.0.0-py3-none-any.whl"]
    assert all(TOKEN not in f.url for f in files)
    with open_url(files[0].url) as resp:         # the file URL (no login) finds the login again
        assert resp.status == 200


def test_without_a_login_the_error_says_401_and_shows_no_secret(private_index):
    credentials.remember(f"http://someone:wrong-{TOKEN}@elsewhere.example/")
    from torchenv.errors import SourceError

    with pytest.raises(SourceError) as info:
        list_project_files(f"{private_index}/simple", "fakedep")
    assert "HTTP 401" in info.value.message


def test_keyring_is_asked_after_a_401_when_it_is_installed(private_index, monkeypatch):
    asked = []

    def get_credential(service, username):
        asked.append(service)
        return types.SimpleNamespace(username="me", password=TOKEN) if "127.0.0.1" in service else None

    monkeypatch.setitem(sys.modules, "keyring", types.SimpleNamespace(get_credential=get_credential))
    files = list_project_files(f"{private_index}/simple", "fakedep")
    assert len(files) == 1 and asked


@contextmanager
def _serving(answer):
    """A loopback server whose GET handler is ``answer(handler)``; yields its base URL."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            answer(self)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_a_redirect_to_another_host_does_not_carry_the_login():
    seen_by_mirror: list[str | None] = []
    seen_by_target: list[str | None] = []

    def empty_page(h: BaseHTTPRequestHandler) -> None:
        seen_by_target.append(h.headers.get("Authorization"))
        body = json.dumps({"files": []}).encode()
        h.send_response(200)
        h.send_header("Content-Type", "application/vnd.pypi.simple.v1+json")
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.write(body)

    with _serving(empty_page) as target:
        # "localhost" and "127.0.0.1" are different hosts to a client, as a CDN is to a mirror
        elsewhere = target.replace("127.0.0.1", "localhost")

        def redirect(h: BaseHTTPRequestHandler) -> None:
            seen_by_mirror.append(h.headers.get("Authorization"))
            h.send_response(302)
            h.send_header("Location", elsewhere + h.path)
            h.send_header("Content-Length", "0")
            h.end_headers()

        with _serving(redirect) as mirror:
            with open_url(mirror.replace("http://", f"http://me:{TOKEN}@") + "/simple/x/") as resp:
                assert resp.status == 200
    assert seen_by_mirror and seen_by_mirror[0].startswith("Basic ")
    assert seen_by_target == [None]


def test_a_source_error_never_carries_the_login():
    from torchenv.errors import SourceError

    url = f"http://me:{TOKEN}@mirror.example/simple"
    exc = SourceError(f"cannot reach index {url}", url=url, hint=f"fix {url}")
    assert TOKEN not in json.dumps(exc.to_json()) and TOKEN not in str(exc)
    assert exc.url == "http://***@mirror.example/simple"
