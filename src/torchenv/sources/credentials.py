"""Credentials for package sources: found the way pip finds them, never shown, never stored.

Why one module: a private mirror is configured as ``https://user:TOKEN@host/simple`` (pip.conf,
``PIP_INDEX_URL``, ``[mirror]``), or as a bare URL whose login sits in ``~/.netrc`` or the
system keyring. The same URL is then shown (plan, warnings, errors, mirror commands) and stored
(lock, env config, caches, reports). So:

* ``remember(url)`` splits the login off a configured URL and keeps it **in this process only**,
  keyed by scheme, host, port and path; everything downstream carries the clean URL;
* ``credential_for(url)`` finds a login again for any URL on a remembered scheme+host+port (the
  source it lies under first, longest path first), else from ``.netrc`` (``$NETRC`` or ``~/.netrc``, as pip/requests read it); the
  keyring (``keyring_credential``) is asked only after a 401, and only when ``keyring`` is
  importable, as pip's default ``--keyring-provider auto`` does;
* ``with_credentials(url)`` puts the login back into a URL for an engine (uv/pip) command line;
* every password found is handed to ``torchenv.redaction`` (``mask_everywhere``), whose ``redact``,
  ``redact_text`` and ``strip_secrets`` every display and every stored file goes through.
"""
from __future__ import annotations

import os
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

from ..redaction import mask_everywhere, without_userinfo


@dataclass(frozen=True)
class Credential:
    """A login for one source; ``origin`` says where it was found ("URL", ".netrc", "keyring")."""

    username: str
    password: str = field(repr=False)
    origin: str = "URL"

    def header(self) -> str:
        """The ``Authorization`` value for HTTP Basic auth."""
        import base64

        raw = f"{self.username}:{self.password}".encode()
        return "Basic " + base64.b64encode(raw).decode("ascii")


_Scope = tuple[str, str, int | None, str]   # (scheme, host, port, path): a plain tuple, as this module is imported on every plan


def _same_origin(a: _Scope, b: _Scope) -> bool:
    return a[:3] == b[:3]


def _covers(a: _Scope, b: _Scope) -> bool:
    """Does source ``a`` hold URL ``b`` (same origin, ``b``'s path under ``a``'s)?"""
    base = a[3].rstrip("/")
    return _same_origin(a, b) and (not base or b[3] == base or b[3].startswith(base + "/"))


_REMEMBERED: dict[_Scope, Credential] = {}


def _scope(parts: urllib.parse.SplitResult) -> _Scope | None:
    try:
        port = parts.port or {"http": 80, "https": 443}.get(parts.scheme.lower())
    except ValueError:
        return None
    host = (parts.hostname or "").lower()
    return (parts.scheme.lower(), host, port, parts.path) if host else None


def split_userinfo(url: str) -> tuple[str, Credential | None]:
    """``(url without user:pass@, the login or None)``; non-URLs come back unchanged."""
    if "://" not in url or "@" not in url.split("://", 1)[1].split("/", 1)[0]:
        return url, None
    parts = urllib.parse.urlsplit(url)
    userinfo = parts.netloc.rpartition("@")[0]
    user, _, password = userinfo.partition(":")
    clean = urllib.parse.urlunsplit(parts._replace(netloc=without_userinfo(parts.netloc)))
    return clean, Credential(urllib.parse.unquote(user), urllib.parse.unquote(password))


def remember(url: str) -> str:
    """Keep the login of a configured ``url`` for this process; returns the URL without it."""
    clean, cred = split_userinfo(url)
    if cred is None:
        return url
    scope = _scope(urllib.parse.urlsplit(clean))
    if scope is not None:
        _REMEMBERED[scope] = cred
    for secret in (cred.password, cred.username if not cred.password else ""):
        if len(secret) >= 4:          # a token given as the user name (https://TOKEN@host) is a secret too
            mask_everywhere(secret)
    return clean


def remember_all(urls: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    return tuple(remember(u) for u in urls)


def _netrc_credential(host: str) -> Credential | None:
    import netrc

    path = Path(os.environ.get("NETRC") or Path.home() / ".netrc")
    try:
        found = netrc.netrc(str(path)).authenticators(host)
    except (OSError, netrc.NetrcParseError):
        return None
    if not found:
        return None
    login, _account, password = found
    if password:
        mask_everywhere(password)
    return Credential(login or "", password or "", origin=".netrc")


def credential_for(url: str) -> Credential | None:
    """The login for ``url``: its own userinfo, a remembered source it lies under, else ``.netrc``."""
    clean, own = split_userinfo(url)
    if own is not None:
        remember(url)
        return own
    scope = _scope(urllib.parse.urlsplit(clean))
    if scope is None or scope[0] not in ("http", "https"):
        return None
    same_host = [s for s in _REMEMBERED if _same_origin(s, scope)]
    if same_host:   # the source it lies under, else (as pip keeps logins per host) any on that host
        return _REMEMBERED[max(same_host, key=lambda s: (_covers(s, scope), len(s[3])))]
    return _netrc_credential(scope[1])


def keyring_credential(url: str) -> Credential | None:
    """The keyring's login for ``url`` (then its host), when ``keyring`` is importable; else None.

    Why only after a 401: pip asks the keyring only then too, since a keyring backend may
    prompt or unlock a wallet.
    """
    try:
        import keyring
    except Exception:
        return None
    clean, _ = split_userinfo(url)
    netloc = urllib.parse.urlsplit(clean).netloc
    for service in (clean, netloc):
        try:
            found = keyring.get_credential(service, None)
        except Exception:
            found = None
        if found is not None and found.password:
            remember(urllib.parse.urlunsplit(urllib.parse.urlsplit(clean)._replace(
                netloc=f"{_quote(found.username)}:{_quote(found.password)}@{netloc}")))
            return Credential(found.username, found.password, origin="keyring")
    return None


def _quote(value: str) -> str:
    return urllib.parse.quote(value, safe="")


def with_credentials(url: str) -> str:
    """``url`` with its login (if one is known) in it, for an engine that reads logins from URLs."""
    cred = credential_for(url)
    if cred is None or "://" not in url:
        return url
    parts = urllib.parse.urlsplit(split_userinfo(url)[0])
    login = _quote(cred.username) + (f":{_quote(cred.password)}" if cred.password else "")
    return urllib.parse.urlunsplit(parts._replace(netloc=f"{login}@{parts.netloc}"))
