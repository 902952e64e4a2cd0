"""The one place torchenv opens HTTP(S) connections (stdlib only).

Why a module of its own: index listing, artifact fetching and ``mirror test`` all need
the same three things that bare ``urllib.request.urlopen`` lacks:

* a **User-Agent** (TUNA answers 403 to requests without one);
* a **short connect timeout** separate from the read timeout, so a dead mirror fails in
  seconds while a slow-but-alive one may still stream a 2 GB wheel;
* failures turned into one short, human reason ("HTTP 403", "connection refused",
  "timed out") that callers put in warnings and ``SourceError`` messages.

Proxies from the environment (``https_proxy``/``no_proxy``) are honoured, as urllib does.
Logins (``user:pass@`` in a configured URL, ``.netrc``, the keyring after a 401; see
``sources.credentials``) are sent as HTTP Basic auth, per request, so a redirect to another
host never carries them.
"""
from __future__ import annotations

import http.client
import socket
import ssl
import urllib.error
import urllib.request
from typing import Any, cast

CONNECT_TIMEOUT = 5.0


def user_agent() -> str:
    from .. import __version__

    return f"torchenv/{__version__}"


class _TimedHTTPConnection(http.client.HTTPConnection):
    """Connects within ``connect_timeout``, then waits up to ``read_timeout`` per read."""

    def __init__(self, *args: Any, connect_timeout: float, read_timeout: float, **kwargs: Any) -> None:
        kwargs["timeout"] = connect_timeout
        super().__init__(*args, **kwargs)
        self._read_timeout = read_timeout

    def connect(self) -> None:
        super().connect()
        self.sock.settimeout(self._read_timeout)


class _TimedHTTPSConnection(http.client.HTTPSConnection):
    def __init__(self, *args: Any, connect_timeout: float, read_timeout: float, **kwargs: Any) -> None:
        kwargs["timeout"] = connect_timeout
        super().__init__(*args, **kwargs)
        self._read_timeout = read_timeout

    def connect(self) -> None:
        super().connect()   # TCP + TLS handshake, both under the connect timeout
        self.sock.settimeout(self._read_timeout)


def _handlers(connect_timeout: float, read_timeout: float) -> list[urllib.request.BaseHandler]:
    kw = {"connect_timeout": connect_timeout, "read_timeout": read_timeout}

    class HTTP(urllib.request.HTTPHandler):
        def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
            return self.do_open(lambda host, **k: _TimedHTTPConnection(host, **{**k, **kw}), req)

    class HTTPS(urllib.request.HTTPSHandler):
        def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
            ctx = ssl.create_default_context()
            return self.do_open(lambda host, **k: _TimedHTTPSConnection(host, **{**k, **kw}), req,
                                context=ctx)

    return [HTTP(), HTTPS(), _BasicAuth()]


class _BasicAuth(urllib.request.BaseHandler):
    """Adds the login known for each request's own URL (redirects included) as an unredirected header."""

    handler_order = 400

    def http_request(self, req: urllib.request.Request) -> urllib.request.Request:
        from .credentials import credential_for

        cred = credential_for(req.full_url)
        if cred is not None and not req.has_header("Authorization"):
            req.add_unredirected_header("Authorization", cred.header())
        return req

    https_request = http_request


def open_url(url: str, *, timeout: float = 10.0, connect_timeout: float = CONNECT_TIMEOUT,
             headers: dict[str, str] | None = None) -> http.client.HTTPResponse:
    """GET ``url`` (redirects followed). Raises ``urllib.error.HTTPError`` for 4xx/5xx and
    ``OSError`` subclasses for network failures; :func:`describe` turns either into a reason."""
    from .credentials import credential_for, keyring_credential, remember

    url = remember(url)          # a login in the URL is auth, not part of the host name
    opener = urllib.request.build_opener(*_handlers(min(connect_timeout, timeout), timeout))
    req = urllib.request.Request(url, headers={"User-Agent": user_agent(), **(headers or {})})
    try:
        return cast(http.client.HTTPResponse, opener.open(req, timeout=timeout))   # Any in typeshed
    except urllib.error.HTTPError as exc:
        if exc.code != 401 or credential_for(url) is not None or keyring_credential(url) is None:
            raise
        exc.close()
        return cast(http.client.HTTPResponse,
                    opener.open(urllib.request.Request(url, headers=dict(req.header_items())), timeout=timeout))


def describe(exc: BaseException) -> str:
    """A short reason for a failed request, for warnings and error messages."""
    if isinstance(exc, urllib.error.HTTPError):
        return f"HTTP {exc.code}"
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
