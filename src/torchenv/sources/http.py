"""The one place torchenv opens HTTP(S) connections: one pooled client for pages, metadata and files.

Why a module of its own: index listing, artifact fetching and ``mirror test`` all need the same
things that bare ``urllib.request.urlopen`` lacks:

* **kept-alive connections, reused per host**: a 2.5 GB wheel fetched in 8 MiB ranges is ~300
  requests; one TCP+TLS handshake each costs minutes across an ocean, and throttled mirrors count
  connections. Idle connections wait in a pool (at most the run's connection budget per host,
  ``TORCHENV_CONNECTIONS``) for the next request to the same host.
* a **User-Agent** (TUNA answers 403 to requests without one);
* a **short connect timeout** separate from the read timeout, so a dead mirror fails in seconds;
* an **overall deadline** per request (``TORCHENV_HTTP_DEADLINE``, default 60 s): a per-read timeout
  alone lets a mirror that sends one byte every half second hold a request forever. A file body
  is not held to a total (a 2.5 GB wheel on a slow link may take an hour) but must keep moving:
  at least 64 KiB in every ``TORCHENV_HTTP_STALL`` seconds (default 30 s);
* a **size cap** on what is read whole (an index page, a metadata file, a JSON answer; see
  :data:`LIMITS`), so a mirror that never stops sending cannot fill the memory;
* failures turned into one short, human reason ("HTTP 403", "connection refused", "timed out")
  that callers put in warnings and ``SourceError`` messages.

Stdlib only (``http.client``): measured, ``import urllib3`` adds ~125 ms to a start-up (and
``httpx`` as much, with five packages), while ``http.client`` is already loaded by ``urllib``; the
pool below is what torchenv needs of theirs. Proxies from the environment (``https_proxy``/
``no_proxy``) are honoured, HTTPS through a ``CONNECT`` tunnel. A CA bundle named by ``PIP_CERT``
(pip's ``cert``) or ``SSL_CERT_FILE`` is trusted in place of the system's. Logins (``user:pass@``
in a configured URL, ``.netrc``, the keyring after a 401; see ``sources.credentials``) are sent as
HTTP Basic auth per request, looked up for each hop's own URL, so a redirect to another host never
carries them.
"""
from __future__ import annotations

import http.client
import io
import os
import socket
import ssl
import threading
import time
import urllib.error
import urllib.parse
from dataclasses import dataclass
from typing import Any

CONNECT_TIMEOUT = 5.0
DEFAULT_DEADLINE_S = 60.0
DEFAULT_STALL_S = 30.0
STALL_BYTES = 64 << 10           # a file body must bring this much in every stall window
MAX_REDIRECTS = 10
_MIB = 1 << 20

# what a response read whole may be: kind -> (environment variable, default MiB). Why these sizes: the
# largest real pages (download.pytorch.org/whl/torch/, PyPI's JSON for torch) are a few MiB; a
# METADATA file is kilobytes.
LIMITS: dict[str, tuple[str, int]] = {
    "page": ("TORCHENV_MAX_PAGE_MIB", 64),
    "metadata": ("TORCHENV_MAX_METADATA_MIB", 16),
    "json": ("TORCHENV_MAX_JSON_MIB", 16),
}


def user_agent() -> str:
    from ..version import __version__

    return f"torchenv/{__version__}"


def _env_number(name: str, default: float) -> float:
    try:
        value = float(os.environ.get(name, default))
    except ValueError:
        return default
    return value if value > 0 else default


def budget_size() -> int:
    """Connections all downloads of one run share (``TORCHENV_CONNECTIONS`` overrides)."""
    return max(1, int(_env_number("TORCHENV_CONNECTIONS", 16)))


def deadline_s() -> float:
    """Seconds one request may take from connect to its last byte (a file body: see :func:`stall_s`)."""
    return _env_number("TORCHENV_HTTP_DEADLINE", DEFAULT_DEADLINE_S)


def stall_s() -> float:
    """Seconds in which a file body must bring :data:`STALL_BYTES` (a minimum rate, not a total)."""
    return _env_number("TORCHENV_HTTP_STALL", DEFAULT_STALL_S)


def limit_bytes(kind: str) -> int:
    name, default = LIMITS[kind]
    return int(_env_number(name, default) * _MIB)


# --- failures with their own reason --------------------------------------------------------------

class TooLarge(OSError):
    """A response read whole was larger than its cap: the mirror is treated as failing."""

    def __init__(self, kind: str, limit: int) -> None:
        super().__init__(f"answered more than {limit / _MIB:g} MiB for one {kind} "
                         f"(the limit; {LIMITS[kind][0]} raises it)")
        self.kind, self.limit = kind, limit


class DeadlineExceeded(TimeoutError):
    """The request missed its overall deadline, or a file body stalled: treated like a dead mirror.

    Its text starts with "timed out", the reason the dead-host memory counts as unreachable.
    """


# --- the watchdog: ends a request at its deadline, however the bytes trickle -------------------------

class _Watch:
    def __init__(self, expires: float, why: str) -> None:
        self.expires, self.why = expires, why
        self.conn: http.client.HTTPConnection | None = None
        self.fired = False

    def kill(self) -> None:
        self.fired = True
        sock = self.conn.sock if self.conn is not None else None
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)     # a blocked read returns at once
            except OSError:
                pass


class _Watchdog:
    """One daemon thread for the whole run; it sleeps until the earliest deadline of the open requests."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.watches: set[_Watch] = set()
        self.thread: threading.Thread | None = None

    def add(self, watch: _Watch) -> None:
        with self.cond:
            self.watches.add(watch)
            if self.thread is None:
                self.thread = threading.Thread(target=self._loop, name="torchenv-http-deadline", daemon=True)
                self.thread.start()
            self.cond.notify()

    def remove(self, watch: _Watch) -> None:
        with self.cond:
            self.watches.discard(watch)

    def _loop(self) -> None:
        with self.cond:
            while True:
                now = time.monotonic()
                for watch in [w for w in self.watches if w.expires <= now]:
                    self.watches.discard(watch)
                    watch.kill()
                nearest = min((w.expires for w in self.watches), default=None)
                self.cond.wait(None if nearest is None else max(0.01, nearest - now))


_WATCHDOG = _Watchdog()


# --- the pool -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Route:
    """Where a connection goes: the origin, and the proxy it goes through (None: direct)."""

    scheme: str
    host: str
    port: int
    proxy: str | None


def _proxy_for(scheme: str, host: str) -> str | None:
    import urllib.request

    proxy = urllib.request.getproxies().get(scheme)
    if not proxy or urllib.request.proxy_bypass(host):
        return None
    return proxy if "://" in proxy else f"http://{proxy}"


def _ssl_context() -> ssl.SSLContext:
    with _POOL.lock:
        if _POOL.context is None:
            cafile = os.environ.get("PIP_CERT") or None
            _POOL.context = ssl.create_default_context(cafile=cafile)   # SSL_CERT_FILE: read by the default paths
        return _POOL.context


def _proxy_auth(proxy: str) -> dict[str, str]:
    import base64

    parts = urllib.parse.urlsplit(proxy)
    if parts.username is None:
        return {}
    login = f"{urllib.parse.unquote(parts.username)}:{urllib.parse.unquote(parts.password or '')}"
    return {"Proxy-Authorization": "Basic " + base64.b64encode(login.encode()).decode()}


def _connect(route: _Route, connect_timeout: float) -> http.client.HTTPConnection:
    if route.proxy is None:
        host, port = route.host, route.port
    else:
        proxy = urllib.parse.urlsplit(route.proxy)
        host, port = proxy.hostname or "", proxy.port or 80
    if route.scheme == "https":
        conn: http.client.HTTPConnection = http.client.HTTPSConnection(host, port, timeout=connect_timeout,
                                                                       context=_ssl_context())
        if route.proxy is not None:
            conn.set_tunnel(route.host, route.port, headers=_proxy_auth(route.proxy))
    else:
        conn = http.client.HTTPConnection(host, port, timeout=connect_timeout)
    conn.connect()     # TCP (+ tunnel) + TLS handshake, all under the connect timeout
    return conn


class _Pool:
    """Idle kept-alive connections per route; each is used by one request at a time."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.idle: dict[_Route, list[http.client.HTTPConnection]] = {}
        self.context: ssl.SSLContext | None = None
        self.opened = 0          # connections opened by this process (for tests and benchmarks)

    def take(self, route: _Route) -> http.client.HTTPConnection | None:
        with self.lock:
            conns = self.idle.get(route)
            return conns.pop() if conns else None

    def open(self, route: _Route, connect_timeout: float) -> http.client.HTTPConnection:
        conn = _connect(route, connect_timeout)
        with self.lock:
            self.opened += 1
        return conn

    def give_back(self, route: _Route, conn: http.client.HTTPConnection) -> None:
        with self.lock:
            conns = self.idle.setdefault(route, [])
            if len(conns) < budget_size():
                conns.append(conn)
                return
        conn.close()


_POOL = _Pool()


def connections_opened() -> int:
    """How many connections this process has opened so far (each reused as long as the server keeps it)."""
    return _POOL.opened


# --- one response -------------------------------------------------------------------------------

class Response:
    """An answer being read: ``status``, ``headers``, ``read()``, ``geturl()``; a context manager.

    Closing it gives the connection back to the pool when the body was read to its end and the
    server keeps connections alive; otherwise the connection is closed.
    """

    def __init__(self, url: str, route: _Route, conn: http.client.HTTPConnection, raw: http.client.HTTPResponse,
                 watch: _Watch, *, max_bytes: int | None, kind: str, stream: bool) -> None:
        self.url, self.route, self.conn, self.raw, self.watch = url, route, conn, raw, watch
        self.status, self.reason, self.headers = raw.status, raw.reason, raw.headers
        self.max_bytes, self.kind, self.stream = max_bytes, kind, stream
        self.got = 0
        self.moved = 0           # bytes since the file body last showed it is moving
        self.closed = False
        if stream:
            watch.expires = time.monotonic() + stall_s()
            watch.why = f"timed out (a file stalled: under {STALL_BYTES >> 10} KiB in {stall_s():g} s; " \
                        "TORCHENV_HTTP_STALL)"
        length = raw.headers.get("Content-Length")
        if max_bytes is not None and length and length.isdigit() and int(length) > max_bytes:
            self.close()
            raise TooLarge(kind, max_bytes)

    def geturl(self) -> str:
        return self.url

    def read(self, amt: int | None = None) -> bytes:
        """Up to ``amt`` bytes (all that is left when None); past a cap, :class:`TooLarge`."""
        if self.closed:
            return b""
        if amt is None or amt < 0:
            blocks = []
            while block := self.read(1 << 20):
                blocks.append(block)
            return b"".join(blocks)
        if self.max_bytes is not None:
            amt = min(amt, self.max_bytes + 1 - self.got)
        try:
            data = self.raw.read(amt)
        except (OSError, http.client.HTTPException) as exc:
            if self.watch.fired:
                raise DeadlineExceeded(self.watch.why) from None
            if isinstance(exc, http.client.HTTPException):   # cut short: an OSError for callers
                raise urllib.error.URLError(exc) from None
            raise
        if self.watch.fired:
            raise DeadlineExceeded(self.watch.why)
        self.got += len(data)
        if self.max_bytes is not None and self.got > self.max_bytes:
            raise TooLarge(self.kind, self.max_bytes)
        if self.stream:
            self.moved += len(data)
            if self.moved >= STALL_BYTES:
                self.moved = 0
                self.watch.expires = time.monotonic() + stall_s()
        return data

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        _WATCHDOG.remove(self.watch)
        if not self.raw.isclosed() and self.raw.length == 0 and not self.watch.fired:
            self.raw.read()          # a HEAD's (or an empty) answer: nothing left, the connection can serve again
        if self.raw.isclosed() and not self.raw.will_close and not self.watch.fired:
            _POOL.give_back(self.route, self.conn)     # read to its end: the connection can serve again
        else:
            self.raw.close()
            self.conn.close()

    def __enter__(self) -> Response:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# --- a request ----------------------------------------------------------------------------------

def _route_of(url: str) -> tuple[_Route, str]:
    """The route of ``url`` and the request target to send on it (the full URL through an HTTP proxy)."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise urllib.error.URLError(f"unsupported URL {url!r}")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    proxy = _proxy_for(parts.scheme, parts.hostname)
    path = urllib.parse.urlunsplit(("", "", parts.path or "/", parts.query, ""))
    target = url.partition("#")[0] if proxy is not None and parts.scheme == "http" else path
    return _Route(parts.scheme, parts.hostname, port, proxy), target


def _send(url: str, method: str, headers: dict[str, str], *, timeout: float, connect_timeout: float,
          watch: _Watch) -> tuple[_Route, http.client.HTTPConnection, http.client.HTTPResponse]:
    """One request on a pooled connection; a kept-alive one the server closed meanwhile is replaced once."""
    from .credentials import credential_for

    route, target = _route_of(url)
    hop = dict(headers)
    cred = credential_for(url)
    if cred is not None and "Authorization" not in hop:
        hop["Authorization"] = cred.header()      # this hop's own login: never carried to another host
    if route.proxy is not None and route.scheme == "http":
        hop.update(_proxy_auth(route.proxy))
    parts = urllib.parse.urlsplit(url)
    hop.setdefault("Host", parts.netloc.rpartition("@")[2])
    for attempt in (0, 1):
        conn = _POOL.take(route) if attempt == 0 else None
        reused = conn is not None
        try:
            if conn is None:
                conn = _POOL.open(route, connect_timeout)
            watch.conn = conn
            if conn.sock is not None:
                conn.sock.settimeout(timeout)
            conn.request(method, target, headers=hop)
            return route, conn, conn.getresponse()
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError,
                http.client.CannotSendRequest):
            if conn is not None:
                conn.close()
            if not reused or watch.fired:
                raise
        except BaseException:
            if conn is not None:
                conn.close()
            raise
    raise AssertionError("unreachable")


def _discard(route: _Route, conn: http.client.HTTPConnection, raw: http.client.HTTPResponse) -> bytes:
    """Read a small body (a redirect's, an error's) so the connection can serve again; a big one closes it."""
    body = raw.read(64 << 10)
    if raw.isclosed() and not raw.will_close:
        _POOL.give_back(route, conn)
    else:
        raw.close()
        conn.close()
    return body


def _send_watched(url: str, method: str, headers: dict[str, str], *, timeout: float, connect_timeout: float,
                  watch: _Watch) -> tuple[_Route, http.client.HTTPConnection, http.client.HTTPResponse]:
    """One request; a failure after the deadline fired is the deadline's, a garbled answer an OSError."""
    try:
        answer = _send(url, method, headers, timeout=timeout, connect_timeout=connect_timeout, watch=watch)
    except (OSError, http.client.HTTPException) as exc:
        if watch.fired:
            raise DeadlineExceeded(watch.why) from None
        if isinstance(exc, http.client.HTTPException):   # a garbled answer: an OSError for callers
            raise urllib.error.URLError(exc) from None
        raise
    if watch.fired:
        raise DeadlineExceeded(watch.why)
    return answer


def _keyring_has_login(url: str) -> bool:
    """No login is known for ``url`` from the URL or config, but the keyring has one (worth one more try)."""
    from .credentials import credential_for, keyring_credential

    return credential_for(url) is None and keyring_credential(url) is not None


def open_url(url: str, *, timeout: float = 10.0, connect_timeout: float = CONNECT_TIMEOUT,
             headers: dict[str, str] | None = None, method: str = "GET", limit: str | None = None,
             stream: bool = False) -> Response:
    """GET (or ``method``) ``url``, redirects followed, on a pooled connection.

    ``timeout`` bounds each read; the whole request is bounded by :func:`deadline_s`, except the
    body of a ``stream`` (a file), which must keep moving instead (:func:`stall_s`). ``limit``
    (a key of :data:`LIMITS`) caps a body that is read whole. Raises ``urllib.error.HTTPError`` for
    4xx/5xx and ``OSError`` subclasses for network failures (:class:`DeadlineExceeded`,
    :class:`TooLarge` among them); :func:`describe` turns either into a reason.
    """
    from .credentials import remember

    url = remember(url)          # a login in the URL is auth, not part of the host name
    base = {"User-Agent": user_agent(), "Accept-Encoding": "identity", **(headers or {})}
    watch = _Watch(time.monotonic() + deadline_s(),
                   f"timed out (no complete answer within {deadline_s():g} s; TORCHENV_HTTP_DEADLINE)")
    _WATCHDOG.add(watch)
    try:
        asked_keyring = False
        for _hop in range(MAX_REDIRECTS + 1):
            route, conn, raw = _send_watched(url, method, base, timeout=timeout,
                                             connect_timeout=min(connect_timeout, timeout), watch=watch)
            location = raw.headers.get("Location")
            if raw.status in (301, 302, 303, 307, 308) and location:
                _discard(route, conn, raw)
                url = urllib.parse.urljoin(url, location)
                method = "GET" if raw.status == 303 and method != "HEAD" else method
                continue
            if raw.status == 401 and not asked_keyring and _keyring_has_login(url):
                asked_keyring = True       # the keyring knew a login: ask once more with it
                _discard(route, conn, raw)
                continue
            if raw.status >= 400:
                body = _discard(route, conn, raw)
                raise urllib.error.HTTPError(url, raw.status, raw.reason, raw.headers, io.BytesIO(body))
            return Response(url, route, conn, raw, watch, max_bytes=limit_bytes(limit) if limit else None,
                            kind=limit or "", stream=stream)
        raise urllib.error.HTTPError(url, 310, "too many redirects", http.client.HTTPMessage(), None)
    except BaseException:
        _WATCHDOG.remove(watch)
        raise


def describe(exc: BaseException) -> str:
    """A short reason for a failed request, for warnings and error messages."""
    if isinstance(exc, urllib.error.HTTPError):
        return f"HTTP {exc.code}"
    if isinstance(exc, (DeadlineExceeded, TooLarge)):
        return str(exc)
    reason: Any = exc.reason if isinstance(exc, urllib.error.URLError) else exc
    if isinstance(reason, (socket.timeout, TimeoutError)):
        return "timed out"
    if isinstance(reason, ConnectionRefusedError):
        return "connection refused"
    if isinstance(reason, socket.gaierror):
        return "host name not found (DNS)"
    if isinstance(reason, (http.client.IncompleteRead, http.client.RemoteDisconnected,
                           ConnectionResetError, BrokenPipeError)):
        return "connection dropped"
    if isinstance(reason, ssl.SSLError):
        return f"TLS error ({reason.reason or reason})"
    text = str(reason) or type(reason).__name__
    return text


def status_of(exc: BaseException) -> int | None:
    return exc.code if isinstance(exc, urllib.error.HTTPError) else None
