"""Write the user's own mirrors file (``torchenv mirror add``): a named proxy or copy, as data.

Why a file in the presets' schema: a team's Artifactory, Nexus or devpi, or a university copy of
``whl/cu126``, is then a mirror like any shipped preset (``use``, ``fallback``, ``mirror list/test``),
and ``sources.mirrors.presets`` merges it without a second code path.

Why the login goes to ``.netrc``: the mirrors file is shown (``mirror list``, error messages) and
copied between machines; a login must never be in it. ``.netrc`` is where pip, uv and
``sources.credentials`` already look for a host's login, and it is written mode 0600.
"""
from __future__ import annotations

import os
import re
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

from ..errors import IntentError
from ..i18n import _
from .mirrors import KINDS, SPECIAL, read_user_mirrors, user_mirrors_file

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


@dataclass(frozen=True)
class MirrorEntry:
    """One ``mirror add`` request."""

    name: str
    kind: str                  # torch | pypi | conda
    url: str                   # as typed: may carry ``user:password@``
    layout: str = "index"      # torch only
    channel: str | None = None  # conda only: the channel it mirrors (default conda-forge)


@dataclass(frozen=True)
class Added:
    file: Path
    url: str                   # the URL stored (no login)
    login_in: str | None       # where the login went (a .netrc path), None when the URL had none
    login_note: str | None     # said when an existing login was left as it was


def netrc_file() -> Path:
    """The ``.netrc`` that ``sources.credentials`` reads (``$NETRC``, else ``~/.netrc``)."""
    return Path(os.environ.get("NETRC") or Path.home() / ".netrc")


def _checked(entry: MirrorEntry) -> tuple[str, urllib.parse.SplitResult]:
    from ..redaction import redact
    from .credentials import split_userinfo

    if not _NAME.fullmatch(entry.name) or entry.name in SPECIAL:
        raise IntentError(_("{name} cannot name a mirror").format(name=repr(entry.name)), key="NAME",
                          hint=_("use letters, digits, '.', '_' or '-' (not 'auto' or 'official'), e.g. team-proxy"))
    if entry.kind not in KINDS:
        raise IntentError(_("unknown kind {kind}").format(kind=repr(entry.kind)), key="--kind",
                          hint=_("one of: {kinds}").format(kinds=", ".join(KINDS)))
    clean, _cred = split_userinfo(entry.url)
    parts = urllib.parse.urlsplit(clean)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise IntentError(_("{url} is not an http(s) URL").format(url=redact(entry.url)), key="URL",
                          hint=_("write the full URL, e.g. https://artifactory.example/api/pypi/pypi-remote/simple"))
    if redact(clean) != clean:
        raise IntentError(_("{url} carries a secret in its query or path").format(url=redact(entry.url)), key="URL",
                          hint=_("give the URL without it and put the login in {netrc} "
                                 "(machine HOST login USER password TOKEN)").format(netrc=netrc_file()))
    return clean.rstrip("/"), parts


def _table(entry: MirrorEntry, url: str) -> dict[str, object]:
    if entry.kind == "pypi":
        return {"url": url}
    if entry.kind == "torch":
        return {"base": url, "layout": entry.layout}
    from .condarc import channel_url

    return {"channels": {channel_url(entry.channel or "conda-forge"): url}}


def _store_login(url: str) -> tuple[str | None, str | None]:
    """Put the URL's login into ``.netrc`` for its host; (where, note)."""
    import netrc

    from .credentials import split_userinfo

    _clean, cred = split_userinfo(url)
    if cred is None:
        return None, None
    host = urllib.parse.urlsplit(url).hostname or ""
    path = netrc_file()
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    if text:
        try:
            found = netrc.netrc(str(path)).authenticators(host)
        except netrc.NetrcParseError as exc:
            raise IntentError(_("cannot read {file}: {error}").format(file=path, error=exc.msg), file=str(path),
                              line=exc.lineno, hint=_("fix the file; nothing was written")) from None
        if found is not None:
            if (found[0] or "", found[2] or "") == (cred.username, cred.password):
                return str(path), None
            return str(path), _("{file} already holds another login for {host}; left it as it was "
                                "(edit it by hand if the new one should replace it)").format(file=path, host=host)
    from ..fileio import write_atomic

    line = f"machine {host} login {cred.username} password {cred.password}\n"
    write_atomic(path, (text if not text or text.endswith("\n") else text + "\n") + line, private=True)
    return str(path), None


def add_user_mirror(entry: MirrorEntry) -> Added:
    """Add (or replace) ``[KIND.NAME]`` in the user's mirrors file, keeping its comments; atomically."""
    import tomlkit

    from ..fileio import write_atomic

    url, _parts = _checked(entry)
    path = user_mirrors_file()
    read_user_mirrors(path)                       # bad TOML: an error naming the file, nothing written
    text = path.read_text(encoding="utf-8") if path.is_file() else (
        "# Your own mirrors, in the schema of torchenv's recipes/mirrors.toml (`torchenv mirror add` writes it).\n"
        "# Logins are not kept here: `mirror add` puts them in your .netrc.\n")
    doc = tomlkit.parse(text)
    kind_table = doc.setdefault(entry.kind, tomlkit.table(is_super_table=True))
    body = tomlkit.table()
    for key, value in _table(entry, url).items():
        body[key] = value
    kind_table[entry.name] = body
    login_in, note = _store_login(entry.url)
    write_atomic(path, tomlkit.dumps(doc))
    return Added(file=path, url=url, login_in=login_in, login_note=note)
