"""A loopback "mirror" that answers HTTP ``Range`` requests, throttles each connection, and can lie.

Why its own server: ``serve_dir`` (SimpleHTTPRequestHandler) ignores ``Range``, which is exactly
how a server without range support behaves; ranged downloads need one that honours it, and
the benchmark needs the per-connection throttling that mirrors apply.

    with serve_ranges({"files/x.whl": path}, rate=2_000_000, lie=1) as m:
        m.url + "/files/x.whl"      # m.sent: bytes of file bodies sent; m.requests: paths asked for

``rate``: bytes per second per connection (0: unthrottled). ``peak``: most transfers at once. ``lie``: that many of the first
requests for more than one byte get 1 KiB of flipped bytes in the middle (a mirror that serves
one bad chunk, whichever chunk it is asked for first; ``mirror.lied`` lists the spans). ``pages``: extra fixed bodies (an index page).
``die_after``: after that many body bytes in total, every later request is refused with 503 and
running transfers stop (a mirror that goes away mid-download). ``auth``: ``(user, password)``
that every request must carry as HTTP Basic auth (a private mirror). ``keep_alive``: answer as HTTP/1.1 and keep
each connection open for the next request, as real mirrors do (``mirror.connections`` counts them). ``root``: a folder whose
files (``index.html`` for folders) are served too, e.g. a ``build_index`` tree. Serves 127.0.0.1 only and stops
when the block ends.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

from .server import login_refused

_PIECE = 16 << 10


@dataclass
class RangeMirror:
    url: str
    sent: int = 0
    requests: list[str] = field(default_factory=list)
    lied: list[tuple[int, int]] = field(default_factory=list)
    active: int = 0
    peak: int = 0            # most file transfers at once
    connections: int = 0     # TCP connections accepted (a kept-alive one serves many requests)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def count(self, n: int) -> None:
        with self.lock:
            self.sent += n


def _span(header: str | None, size: int) -> tuple[int, int] | None:
    """``bytes=A-B`` / ``bytes=A-`` -> (start, end exclusive); None when absent or unusable."""
    if not header or not header.startswith("bytes=") or "," in header:
        return None
    first, _, last = header[6:].partition("-")
    try:
        start = int(first)
        end = int(last) + 1 if last else size
    except ValueError:
        return None
    return (start, min(end, size)) if 0 <= start < size and start < end else None


def _under(root: Path | None, key: str) -> Path | None:
    """A file of the served folder (``index.html`` for a folder), never outside it."""
    if root is None:
        return None
    path = (root / key).resolve()
    path = path / "index.html" if path.is_dir() else path
    return path if path.is_file() and root.resolve() in path.parents else None


def _handler(mirror: RangeMirror, files: dict[str, Path], pages: dict[str, bytes], rate: float,
             lie: int, die_after: int | None, auth: str | None, root: Path | None,
             keep_alive: bool) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1" if keep_alive else "HTTP/1.0"

        def log_message(self, *args: object) -> None:
            pass

        def setup(self) -> None:
            super().setup()
            with mirror.lock:
                mirror.connections += 1

        def do_GET(self) -> None:
            key = unquote(urlsplit(self.path).path).lstrip("/")
            mirror.requests.append(key)
            if login_refused(self, auth):
                return
            if die_after is not None and mirror.sent >= die_after:
                self.send_error(503)
                return
            if key in pages:
                body = pages[key]
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            found = files.get(key) or _under(root, key)
            if found is None:
                self.send_error(404)
                return
            with mirror.lock:
                mirror.active += 1
                mirror.peak = max(mirror.peak, mirror.active)
            try:
                self._send_file(key, found)
            finally:
                with mirror.lock:
                    mirror.active -= 1

        def do_HEAD(self) -> None:
            """Size and ``Accept-Ranges`` of a file, no body (not counted in ``requests``: no bytes move)."""
            key = unquote(urlsplit(self.path).path).lstrip("/")
            if login_refused(self, auth):
                return
            found = files.get(key) or _under(root, key)
            if found is None:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Length", str(found.stat().st_size))
            self.send_header("Accept-Ranges", "bytes")
            self.end_headers()

        def _send_file(self, key: str, path: Path) -> None:
            size = path.stat().st_size
            span = _span(self.headers.get("Range"), size)
            start, end = span or (0, size)
            self.send_response(206 if span else 200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(end - start))
            self.send_header("Accept-Ranges", "bytes")
            if span:
                self.send_header("Content-Range", f"bytes {start}-{end - 1}/{size}")
            self.end_headers()
            bad = None
            with mirror.lock:
                if end - start > 1 and len(mirror.lied) < lie:
                    bad = ((start + end) // 2, 1024)
                    mirror.lied.append((start, end))
            began, pos = time.monotonic(), start
            with open(path, "rb") as f:
                f.seek(start)
                while pos < end:
                    if die_after is not None and mirror.sent >= die_after:
                        return
                    piece = f.read(min(_PIECE, end - pos))
                    if bad and pos < bad[0] + bad[1] and pos + len(piece) > bad[0]:
                        piece = bytes(b ^ 0xFF if bad[0] <= pos + i < bad[0] + bad[1] else b
                                      for i, b in enumerate(piece))
                    if rate:   # this piece may leave once the bytes before it took their time
                        ahead = (pos + len(piece) - start) / rate - (time.monotonic() - began)
                        if ahead > 0:
                            time.sleep(ahead)
                    self.wfile.write(piece)
                    pos += len(piece)
                    mirror.count(len(piece))

    return Handler


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 64

    def handle_error(self, request, client_address) -> None:  # type: ignore[override]
        pass   # clients that stop reading (a killed download) break the pipe


@contextmanager
def serve_ranges(files: dict[str, Path], *, pages: dict[str, bytes] | None = None, rate: float = 0,
                 lie: int = 0,
                 die_after: int | None = None, auth: tuple[str, str] | None = None,
                 root: Path | None = None, keep_alive: bool = False) -> Iterator[RangeMirror]:
    import base64

    expected = "Basic " + base64.b64encode(f"{auth[0]}:{auth[1]}".encode()).decode() if auth else None
    mirror = RangeMirror(url="")
    server = _Server(("127.0.0.1", 0), _handler(mirror, files, pages or {}, rate, lie, die_after, expected, root,
                                                      keep_alive))
    mirror.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield mirror
    finally:
        server.shutdown()
        server.server_close()
