"""Secrets out of text: what every display and every stored file goes through.

Why a module of its own, at the bottom floor: errors, the console (``ui``), the lock writer and
the caches all need "this URL without its login or token", and they sit below the package sources
that find logins (``sources.credentials``). So the rules live here, once:

* ``redact(url)`` / ``redact_text(text)`` make a URL or any text fit to show: ``user:pass@``
  becomes ``***@``, secret-looking query values and ``Authorization`` values become ``***``, conda
  ``/t/<token>/`` path tokens become ``/t/***/``, and any secret ``mask_everywhere`` was told about is
  masked wherever it appears;
* ``strip_secrets(url)`` / ``strip_secrets_in_text(text)`` make them fit to store: the login and the
  secret query values dropped.
"""
from __future__ import annotations

import re
import urllib.parse

MASK = "***"

# Query parameters whose value is a secret (signed URLs, token-in-URL registries).
_SECRET_QUERY = re.compile(
    r"^(?:x-amz-)?(?:token|access[_-]?token|auth(?:[_-]?token)?|private[_-]?token|api[_-]?key|apikey|key|"
    r"password|passwd|pwd|secret|client[_-]?secret|sig|signature|credential|security[_-]?token|jwt|"
    r"x-goog-signature|x-goog-credential)$", re.IGNORECASE)
_URL_IN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>()\[\]{}]+")
_AUTH_VALUE = re.compile(r"(?i)\b(authorization\s*[:=]\s*|proxy-authorization\s*[:=]\s*)"
                         r"((?:basic|bearer|token|digest)\s+)?[^\s'\",;]+")
_CONDA_TOKEN = re.compile(r"/t/[A-Za-z0-9_.-]{6,}(?=/)")

# passwords and tokens met in this process (a configured login, a .netrc entry): masked in any text shown
_SECRETS: set[str] = set()


def mask_everywhere(secret: str) -> None:
    """From now on, ``secret`` is masked wherever ``redact``/``redact_text`` meet it (in this process only)."""
    _SECRETS.add(secret)


def knows_secrets() -> bool:
    """Was any secret remembered? Without one, text with no URL in it has nothing to redact."""
    return bool(_SECRETS)


def without_userinfo(netloc: str) -> str:
    """``user:pass@host:port`` -> ``host:port``."""
    return netloc.rpartition("@")[2]


def _strip_query_secrets(parts: urllib.parse.SplitResult, replacement: str | None) -> str:
    """The query with secret values masked (``replacement``) or dropped (``None``)."""
    if not parts.query:
        return ""
    pairs = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    if not any(_SECRET_QUERY.match(k) for k, _ in pairs):
        return parts.query
    kept = [(k, replacement if _SECRET_QUERY.match(k) else v) for k, v in pairs
            if replacement is not None or not _SECRET_QUERY.match(k)]
    return urllib.parse.urlencode(kept, safe="*")


def _clean(url: str, mask: str | None) -> str:
    if "://" not in url:
        return url
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:
        return url
    netloc = parts.netloc
    if "@" in netloc:
        host = without_userinfo(netloc)
        netloc = f"{mask}@{host}" if mask is not None else host
    path = _CONDA_TOKEN.sub(f"/t/{mask or MASK}", parts.path)
    query = _strip_query_secrets(parts, mask)
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc, path=path, query=query))


def redact(url: str) -> str:
    """``url`` fit to show: login → ``***@``, secret query values and path tokens → ``***``."""
    return _mask_remembered(_clean(url, MASK))


def strip_secrets(url: str) -> str:
    """``url`` fit to store (lock, env config, caches): login and secret query values dropped."""
    return _clean(url, None)


def strip_secrets_in_text(text: str) -> str:
    """``text`` (a config file going into a bundle) with every URL's login and token dropped."""
    return _URL_IN_TEXT.sub(lambda m: _clean(m.group(0), None), text)


def _mask_remembered(text: str) -> str:
    for secret in sorted(_SECRETS, key=len, reverse=True):
        for form in {secret, urllib.parse.quote(secret, safe="")}:
            text = text.replace(form, MASK)
    return text


def redact_text(text: str) -> str:
    """Any text (messages, engine output, JSON) with every URL redacted and remembered secrets masked."""
    if not text:
        return text
    text = _URL_IN_TEXT.sub(lambda m: _clean(m.group(0), MASK), text)
    text = _AUTH_VALUE.sub(lambda m: m.group(1) + (m.group(2) or "") + MASK, text)
    return _mask_remembered(text)
