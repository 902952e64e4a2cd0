"""A loopback HTTP server that plays a (misbehaving) mirror of a directory.

Why: mirror behaviour (slow, 403, 5xx, 404, dropped connections, wrong files) must be
tested without the network. Each test gets its own server on 127.0.0.1 and a free port.
"""
from __future__ import annotations

import base64
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from http.server import BaseHTTPRequestHandler, SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit


class ServedUrl(str):
    """The server's base URL (``http://127.0.0.1:PORT``, no trailing slash).

    ``.hits`` lists the request paths served, in order (e.g. ``"/simple/torch/"``), so a
    test can assert that a file was, or was never, requested from this server.
    """

    hits: list[str]


def _key(path: str) -> str:
    return unquote(urlsplit(path).path).lstrip("/")


def login_refused(handler: BaseHTTPRequestHandler, auth: str | None) -> bool:
    """Answer 401 (and say so) when ``auth`` (an ``Authorization`` value) is required and not sent."""
    if auth is None or handler.headers.get("Authorization") == auth:
        return False
    handler.send_response(401)
    handler.send_header("WWW-Authenticate", 'Basic realm="mirror"')
    handler.send_header("Content-Length", "0")
    handler.end_headers()
    return True


def _handler(root: Path, delay: float, fail: dict[str, int], drop_after: dict[str, int],
             hits: list[str], auth: str | None = None,
             slow: dict[str, float] | None = None) -> type[SimpleHTTPRequestHandler]:
    fail = {k.lstrip("/"): v for k, v in fail.items()}
    drop_after = {k.lstrip("/"): v for k, v in drop_after.items()}
    slow = {k.lstrip("/"): v for k, v in (slow or {}).items()}

    class Handler(SimpleHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def log_message(self, *args: object) -> None:  # keep test output clean
            pass

        def do_GET(self) -> None:
            hits.append(self.path)
            if login_refused(self, auth):
                return
            key = _key(self.path)
            wait = slow.get(key, delay)
            if wait:
                time.sleep(wait)
            if key in fail:
                self.send_error(fail[key])
                return
            if key in drop_after:
                self._send_truncated(root / key, drop_after[key])
                return
            super().do_GET()

        def _send_truncated(self, file: Path, nbytes: int) -> None:
            """Announce the whole file, send ``nbytes`` of it, then cut the connection."""
            data = file.read_bytes()
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data[:nbytes])
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True

    return partial(Handler, directory=str(root))  # type: ignore[return-value]


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:  # type: ignore[override]
        pass   # clients that give up (timeouts) break the pipe; that is the point of the test


@contextmanager
def serve_dir(path: Path | str, *, delay: float = 0, fail: dict[str, int] | None = None,
              drop_after: dict[str, int] | None = None,
              auth: tuple[str, str] | None = None, slow: dict[str, float] | None = None) -> Iterator[ServedUrl]:
    """Serve ``path`` on 127.0.0.1 until the block ends; yields the base URL.

    ``delay``: seconds to wait before answering each request (a slow mirror).
    ``slow``: ``{relative path: seconds}``: wait that long before answering that path instead (one slow
    file, so a test can catch its download in flight without every index page waiting too).
    ``fail``: ``{relative path: status}``, e.g. ``{"files/torch-...whl": 403}``.
    ``drop_after``: ``{relative path: nbytes}``: send a full Content-Length, then only
    ``nbytes`` and close the connection (a mirror that drops mid-file).
    ``auth``: ``(user, password)``: every request without that HTTP Basic login gets 401
    (a private mirror).
    Directories without ``index.html`` get an autoindex page (hrefs percent-encoded, so
    ``+`` appears as ``%2B``), like nginx on many mirrors.
    """
    hits: list[str] = []
    expected = "Basic " + base64.b64encode(f"{auth[0]}:{auth[1]}".encode()).decode() if auth else None
    handler = _handler(Path(path), delay, fail or {}, drop_after or {}, hits, expected, slow)
    server = _QuietServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    url = ServedUrl(f"http://127.0.0.1:{server.server_address[1]}")
    url.hits = hits
    try:
        yield url
    finally:
        server.shutdown()
        server.server_close()


def closed_port_url() -> str:
    """``http://127.0.0.1:PORT`` where nothing listens (connections are refused at once)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@contextmanager
def blackhole_url() -> Iterator[str]:
    """``http://127.0.0.1:PORT`` where connects hang (like an unroutable address).

    A listener with a full accept queue: Linux drops further SYNs, so a client waits for
    its connect timeout. Deterministic, unlike real blackhole addresses (which a sandbox's
    transparent proxy may answer).
    """
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(0)
    port = server.getsockname()[1]
    fillers = []
    for _ in range(3):
        c = socket.socket()
        c.setblocking(False)
        try:
            c.connect(("127.0.0.1", port))
        except BlockingIOError:
            pass
        fillers.append(c)
    time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        for c in fillers:
            c.close()
        server.close()


@contextmanager
def hostile_url(kind: str, *, limit_s: float = 120.0, limit_bytes: int = 512 << 20) -> Iterator[str]:
    """``http://127.0.0.1:PORT`` of a mirror that never finishes an answer.

    ``kind="endless"``: a 200 with no length whose HTML body never ends (a page that streams forever).
    ``kind="loris"``: the status line and headers, one byte every 0.5 s (each read gets a byte before any
    per-read timeout). Each connection stops after ``limit_s`` seconds or ``limit_bytes`` bytes, or when the
    client goes away, so a test that fails cannot hang for ever; the server stops with the block.
    """
    import socketserver

    row = b'<a href="torch-0.0.0-py3-none-any.whl">torch-0.0.0-py3-none-any.whl</a><br>\n' * 64

    class Handler(socketserver.BaseRequestHandler):
        def handle(self) -> None:
            self.request.settimeout(5)
            try:
                self.request.recv(65536)
            except OSError:
                return
            stop, sent = time.monotonic() + limit_s, 0
            head = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nConnection: close\r\n" + b"X-Pad: " + b"a" * 4096
            try:
                if kind == "loris":
                    for byte in head:
                        if time.monotonic() > stop:
                            return
                        self.request.sendall(bytes([byte]))
                        time.sleep(0.5)
                    return
                self.request.sendall(b"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n<html><body>\n")
                while time.monotonic() < stop and sent < limit_bytes:
                    self.request.sendall(row)
                    sent += len(row)
            except OSError:
                return      # the client gave up: what a fixed torchenv does

    class Server(socketserver.ThreadingTCPServer):
        daemon_threads = True
        allow_reuse_address = True

    server = Server(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
