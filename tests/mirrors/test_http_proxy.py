"""The pooled client goes through the proxy the environment names (``http_proxy``, with its login), and
straight to the hosts ``no_proxy`` lists; kept-alive connections to the proxy are reused like any other."""
from __future__ import annotations

import base64
import threading
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.support.rangeserver import serve_ranges

from torchenv.sources.http import open_url


@contextmanager
def forward_proxy(login: str) -> Iterator[tuple[str, list[str]]]:
    """A loopback HTTP proxy that needs ``login`` (Basic) and relays GETs of absolute URLs; yields (url, asked)."""
    asked: list[str] = []
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    wanted = "Basic " + base64.b64encode(login.encode()).decode()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            asked.append(self.path)
            if self.headers.get("Proxy-Authorization") != wanted:
                self.send_response(407)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            with direct.open(self.path, timeout=10) as resp:
                body = resp.read()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", asked
    finally:
        server.shutdown()
        server.server_close()


def test_requests_go_through_the_proxy_with_its_login_and_no_proxy_hosts_go_direct(monkeypatch):
    with serve_ranges({}, pages={"simple/six/": b"<a href='six.whl'>six</a>"}) as origin, \
            forward_proxy("me:proxy-pass") as (proxy, asked):
        monkeypatch.setenv("http_proxy", proxy.replace("http://", "http://me:proxy-pass@"))
        for _ in range(2):
            with open_url(f"{origin.url}/simple/six/") as resp:
                assert resp.status == 200 and b"six.whl" in resp.read()
        assert asked == [f"{origin.url}/simple/six/"] * 2          # the absolute URL, as a proxy is asked
        monkeypatch.setenv("no_proxy", "127.0.0.1")
        with open_url(f"{origin.url}/simple/six/") as resp:
            assert b"six.whl" in resp.read()
        assert len(asked) == 2 and len(origin.requests) == 3       # the third went straight to the mirror
