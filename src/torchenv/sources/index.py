"""List the files a package index (or a flat find-links page/dir) offers for one project.

Why our own reader instead of asking uv/pip: torchenv must know the *exact* files a
source has (``torch-2.4.1+cu121-cp311-...whl`` and its sha256) to plan, lock and test
mirrors, for three layouts seen in the wild (compat.md §5b):

* ``index``: PEP 503 ``<url>/<project>/`` pages (download.pytorch.org, PyPI mirrors, NJU);
  PEP 691 JSON is accepted when a server prefers it;
* ``flat``: one page or directory listing every file (Aliyun ``pytorch-wheels/<tier>/``,
  a user's local wheelhouse), where ``+`` is often written ``&#43;`` or ``%2B``;
* local ``file://`` URLs or plain paths for both.
"""
from __future__ import annotations

import json
import os
import urllib.parse
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..envlayout import dist_name
from ..errors import SourceError
from ..i18n import _
from ..reasons import SOURCES, reason

if TYPE_CHECKING:
    from packaging.tags import Tag

ARCHIVE_SUFFIXES = (".whl", ".tar.gz", ".zip", ".tar.bz2", ".tgz")


@dataclass(frozen=True)
class IndexFile:
    filename: str        # unescaped: "torch-2.4.1+cu121-cp311-cp311-linux_x86_64.whl"
    url: str             # absolute, without the #sha256= fragment
    sha256: str | None   # from the fragment / JSON hashes; None when the source does not say
    core_metadata: str | None = None   # PEP 658/714 ``<url>.metadata``: None not offered, "" no hash, else sha256
    size: int | None = None            # PEP 700 ``size`` (JSON pages only)


def normalize(name: str) -> str:
    """PEP 503 normalised project name (``envlayout.dist_name``)."""
    return dist_name(name)


def project_of(filename: str) -> str | None:
    """Normalised project name a distribution file belongs to (None: not a package file).

    Wheels put the name before the first ``-``; sdists before the last one. This is why
    ``torch-`` never matches ``torchvision-...``.
    """
    if filename.endswith(".whl"):
        return normalize(filename.split("-", 1)[0])
    for suffix in ARCHIVE_SUFFIXES[1:]:
        if filename.endswith(suffix):
            stem = filename[: -len(suffix)]
            return normalize(stem.rsplit("-", 1)[0]) if "-" in stem else None
    return None


def parse_wheel_filename(filename: str) -> tuple[str, str, frozenset[Tag]]:
    """(normalised name, version string, tags) of a wheel; ``SourceError`` when malformed (``wheelfit.read``)."""
    from .wheelfit import read

    wheel = read(filename)
    return wheel.name, wheel.version, wheel.tags


@cache
def _links_parser() -> type:
    """The ``<a href>`` collector, defined on first use: ``html.parser`` (and the HTTP stack, see
    ``local_path``) stays off the import path of every ``up`` that reads no index page."""
    from html.parser import HTMLParser

    class _Links(HTMLParser):
        """Collects ``<a href>`` targets and their attributes; HTMLParser already unescapes ``&#43;`` in them."""

        def __init__(self) -> None:
            super().__init__(convert_charrefs=True)
            self.links: list[tuple[str, dict[str, str | None]]] = []

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            if tag == "a":
                found = dict(attrs)
                href = found.get("href")
                if href:
                    self.links.append((href, found))

    return _Links


# PEP 714 renamed PEP 658's attribute; indexes may still write the old one
_CORE_METADATA_ATTRS = ("data-core-metadata", "data-dist-info-metadata")


def core_metadata_of(value: object) -> str | None:
    """A PEP 658/714 value (``"true"``, ``"sha256=HEX"``, JSON ``true`` / ``{"sha256": HEX}``) as
    ``IndexFile.core_metadata``: None when not offered, "" when offered without a sha256."""
    if value is None or value is False or value in ("false", ""):
        return None
    if isinstance(value, dict):
        return str(value.get("sha256") or "").lower()
    if isinstance(value, str) and value.startswith("sha256="):
        return value[len("sha256="):].lower()
    return ""


def _file_from_href(base: str, href: str, attrs: dict[str, str | None] | None = None) -> IndexFile | None:
    absolute = urllib.parse.urljoin(base, href)
    url, _hash, fragment = absolute.partition("#")
    path = urllib.parse.urlsplit(url).path
    if not path or path.endswith("/"):
        return None            # "../", sub-directories of an autoindex listing
    filename = urllib.parse.unquote(path.rsplit("/", 1)[-1])
    sha = None
    if fragment.startswith("sha256="):
        sha = fragment[len("sha256="):].lower() or None
    attrs = attrs or {}
    offered = next((attrs[a] for a in _CORE_METADATA_ATTRS if a in attrs), None)
    return IndexFile(filename=filename, url=url, sha256=sha, core_metadata=core_metadata_of(offered))


def parse_html(text: str, base_url: str) -> list[IndexFile]:
    parser = _links_parser()()
    parser.feed(text)
    files = (_file_from_href(base_url, href, attrs) for href, attrs in parser.links)
    return [f for f in files if f is not None]


def parse_json(data: dict[str, Any], base_url: str) -> list[IndexFile]:
    """PEP 691 ``application/vnd.pypi.simple.v1+json`` project page."""
    out = []
    for entry in data.get("files", []):
        url = urllib.parse.urljoin(base_url, entry.get("url", "")).partition("#")[0]
        filename = entry.get("filename") or urllib.parse.unquote(url.rsplit("/", 1)[-1])
        sha = (entry.get("hashes") or {}).get("sha256")
        offered = entry.get("core-metadata", entry.get("dist-info-metadata"))
        size = entry.get("size")
        out.append(IndexFile(filename=filename, url=url, sha256=sha.lower() if sha else None,
                             core_metadata=core_metadata_of(offered),
                             size=size if isinstance(size, int) and size >= 0 else None))
    return out


def _url2pathname(path: str) -> str:
    """``urllib.request.url2pathname`` without importing urllib.request (http.client, email, ssl: ~15 ms)."""
    if os.name == "nt":   # pragma: no cover - Windows
        from nturl2path import url2pathname

        return url2pathname(path)
    return urllib.parse.unquote(path)


def local_path(url: str) -> Path | None:
    """The filesystem path of a ``file://`` URL or plain path; None for remote URLs."""
    if url.startswith("file:"):
        return Path(_url2pathname(urllib.parse.urlsplit(url).path))
    if "://" not in url:
        return Path(url).expanduser()
    return None


_local_path = local_path   # older name, used by flows/ and engines/


def _list_dir(directory: Path) -> list[IndexFile]:
    return [IndexFile(filename=p.name, url=p.resolve().as_uri(), sha256=None)
            for p in sorted(directory.iterdir()) if p.is_file() and project_of(p.name)]


def read_local(path: Path) -> list[IndexFile]:
    """A local page (HTML listing) or directory; [] when it does not exist."""
    if path.is_dir():
        index = path / "index.html"
        return read_local(index) if index.is_file() else _list_dir(path)
    if path.is_file():
        return parse_html(path.read_text(encoding="utf-8", errors="replace"), path.resolve().as_uri())
    return []


def fetch_page(url: str, timeout: float) -> list[IndexFile]:
    """GET one listing page; [] on 404/410; SourceError when the host cannot be used."""
    import urllib.error

    from .http import describe, open_url

    accept = "application/vnd.pypi.simple.v1+json, text/html;q=0.9, */*;q=0.1"
    try:
        with open_url(url, timeout=timeout, headers={"Accept": accept}, limit="page") as resp:
            body = resp.read()
            final_url = resp.geturl()
            ctype = resp.headers.get("Content-Type", "")
    except urllib.error.HTTPError as exc:
        if exc.code in (404, 410):
            return []
        raise SourceError(reason("fetch.http_status", SOURCES, url=url, code=exc.code), url=url,
                          hint=_hint(url)) from None
    except OSError as exc:
        raise SourceError(reason("fetch.unreachable", SOURCES, url=url, reason=describe(exc)), url=url,
                          hint=_hint(url)) from None
    if "json" in ctype or body[:1] == b"{":
        try:
            return parse_json(json.loads(body), final_url)
        except ValueError:
            pass
    return parse_html(body.decode("utf-8", errors="replace"), final_url)


def _hint(url: str) -> str:
    return _("check the address and your network/proxy; choose another mirror with --mirror NAME (see "
             "`torchenv mirror test`), or fix [mirror] in torchenv.toml (source that failed: {url})").format(url=url)


def with_slash(url: str) -> str:
    """Directory URLs need a trailing slash, or relative hrefs resolve one level too high."""
    if url.endswith("/") or url.rsplit("/", 1)[-1].endswith((".html", ".htm")):
        return url
    return url + "/"


def list_project_files(url: str, project: str, *, layout: str = "index",
                       timeout: float = 10.0) -> list[IndexFile]:
    """Files of ``project`` that the source at ``url`` offers (``[]`` when it has none).

    ``layout="index"``: ``url`` is a PEP 503 root; ``<url>/<project>/`` is read.
    ``layout="flat"``: ``url`` is a find-links page or directory; files are filtered by
    project name. Raises ``SourceError`` naming ``url`` when the source is unreachable.
    """
    if layout not in ("index", "flat"):
        raise SourceError(_("unknown index layout {layout} for {url}").format(layout=repr(layout), url=url), url=url,
                          hint=_("layout is 'index' (PEP 503) or 'flat' (find-links page/dir)"))
    want = normalize(project)
    local = local_path(url)
    if local is not None:
        if not local.exists():
            raise SourceError(_("local package source {path} does not exist").format(path=local), url=url,
                              hint=_("fix the path, or remove it from your pip config / torchenv.toml"))
        if layout == "index":
            files = read_local(local / want)
        else:
            files = read_local(local)
    elif os.environ.get("TORCHENV_OFFLINE") == "1":
        raise SourceError(reason("fetch.offline", SOURCES, url=url), url=url,
                          hint=_("offline installs use only a bundle/--from folder and the local cache"))
    elif layout == "index":
        files = fetch_page(f"{url.rstrip('/')}/{want}/", timeout)
    else:
        files = fetch_page(with_slash(url), timeout)
    return [f for f in files if project_of(f.filename) == want]
