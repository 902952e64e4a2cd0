"""Get one locked file onto this machine, hash-checked, asking sources lazily and in the plan's order.

Why lazily: from China every unreachable source costs a connect timeout and the official
torch listing is large, so a source is contacted only when every source before it failed
to deliver the file with the locked sha256; the hosts that failed are skipped after
(``sources.deadhosts``). Why no silent fallback: each failure is a warning naming the
mirror, so users learn that their preferred mirror is dead. The one exception
to "lazily": a large file (``sources.ranged``) whose first source answers a range request is
fetched in chunks from that source and every later source of the same list at once.

Torch-family files come only from the plan's torch sources (direct ``<tier url>/<file>``
first, the source's listing only when that 404s) and the user's local wheelhouses; the
lock's canonical URL (download.pytorch.org) is used only when the plan's sources include
it. Everything else comes from the PyPI side, whose file URLs are found by listing.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import HashMismatch, SourceError
from .deadhosts import SourceMemory, host_of

if TYPE_CHECKING:
    from ..lockfile.model import LockedWheel
    from .model import Sources

def _get(filename: str, sha256: str | None, urls: list[str], memory: SourceMemory, ui: Any) -> tuple[Path, str]:
    """fetch (known hash) or fetch_and_hash (the source listed none) over the usable ``urls``."""
    from .fetch import fetch, fetch_and_hash

    usable = [u for u in dict.fromkeys(urls) if memory.usable(u)]
    if not usable:
        raise SourceError(_said("fetch.no_usable_source", file=filename,
                                why=memory.why_skipped(urls) or reason_words("words.none_given")),
                          url=urls[0] if urls else None,
                          hint="check your network/proxy, or pick a working mirror: `torchenv mirror test`")
    if sha256:
        return fetch(filename, sha256, usable, ui=ui, on_failure=memory.failed), sha256
    return fetch_and_hash(filename, usable, ui=ui, on_failure=memory.failed)


def listed_urls(url: str, layout: str, project: str, filename: str, memory: SourceMemory, ui: Any) -> list[str]:
    """URLs at which the source at ``url`` lists ``filename`` ([] when it has none or cannot be read)."""
    from .index import list_project_files

    if not memory.usable(url):
        return []
    try:
        files = list_project_files(url, project, layout=layout)
    except SourceError as exc:
        memory.failed(url, exc.message, unreachable=True)
        if ui is not None:
            ui.warn(_said("fetch.url_failed_file", url=url, file=filename, why=exc.message))
        return []
    return [f.url for f in files if f.filename == filename]


def torch_file(sources: Sources, filename: str, sha256: str | None, *, first: str | None = None,
               memory: SourceMemory, ui: Any = None) -> tuple[Path, str]:
    """``(path, sha256)`` of a torch-family file: local wheelhouses, ``first``, then each torch source.

    Direct URLs first (one request per source, the first good one wins); only if none
    delivered, each source's listing is read for the file's real location (an index whose
    files live elsewhere answers 404 for the direct URL).
    """
    from .index import project_of
    from .routing import torch_candidates

    try:
        candidates = torch_candidates(sources, filename)
    except ValueError:   # not a torch-family name (a hand-made lock): only the folders/first URL given
        candidates = []
    direct = [*([first] if first else []), *candidates]
    try:
        return _get(filename, sha256, direct, memory, ui)
    except SourceError as exc:
        error = exc
    project = project_of(filename) or filename.split("-", 1)[0]
    listed: list[str] = []
    for src in sources.torch:
        listed += [u for u in listed_urls(src.url, src.layout, project, filename, memory, ui) if u not in direct]
    if not listed:
        raise error
    try:
        return _get(filename, sha256, listed, memory, ui)
    except HashMismatch:
        raise
    except SourceError:
        if isinstance(error, HashMismatch):
            raise error from None
        raise


def pypi_roots(sources: Sources) -> list[tuple[str, str]]:
    from .model import OFFICIAL_PYPI

    pypi = sources.pypi
    searched = [(u, "flat") for u in pypi.find_links if host_of(u) is not None]
    return searched + [(u, "index") for u in (*pypi.extra_index_urls, pypi.index_url or OFFICIAL_PYPI)]


def recorded_url_allowed(sources: Sources, wheel: LockedWheel) -> bool:
    """May the lock's own URL be contacted? Only when it lies under one of the plan's sources.

    Why: a user who pinned a mirror without fallback must not see torchenv contact
    download.pytorch.org or pypi.org behind their back (the lock's URLs are canonical).
    """
    from .model import OFFICIAL_PYPI

    if host_of(wheel.url) is None:
        return True
    if wheel.source == "torch-index":
        from .filehosts import file_bases

        roots = [b for s in sources.torch for b in file_bases(s.url)]     # and the hosts their pages link files on
    else:
        roots = [u for u, _ in pypi_roots(sources)]
        if any(u.startswith(OFFICIAL_PYPI) for u in roots):
            roots.append("https://files.pythonhosted.org/")
    hosts = {host_of(r) for r in roots}
    if any(wheel.url.startswith(r.rstrip("/") + "/") for r in roots) or host_of(wheel.url) in hosts:
        return True
    from .prebuilt import is_prebuilt_host  # a prebuilt wheel's page is its only source (recipes/prebuilt.toml)

    return is_prebuilt_host(wheel.url)


def pypi_file(sources: Sources, wheel: LockedWheel, *, first: str | None = None,
              memory: SourceMemory, ui: Any = None) -> tuple[Path, str]:
    """``(path, sha256)`` of a PyPI-side file: ``first``, then each PyPI-side source's listing, in order."""
    tried: list[SourceError] = []
    steps: list[list[str] | tuple[str, str]] = [[first]] if first else []   # URLs, or a source to list
    steps += [(url, layout) for url, layout in pypi_roots(sources)]
    if recorded_url_allowed(sources, wheel):
        steps.append([wheel.url])
    for step in steps:
        urls = step if isinstance(step, list) else listed_urls(*step, wheel.name, wheel.filename, memory, ui)
        if not urls:
            continue
        try:
            return _get(wheel.filename, wheel.sha256 or None, urls, memory, ui)
        except SourceError as exc:
            tried.append(exc)
    mismatch = next((e for e in tried if isinstance(e, HashMismatch)), None)
    if mismatch is not None:
        raise mismatch
    reasons = "; ".join(e.message for e in tried) or "no PyPI-side source lists it"
    raise SourceError(f"could not get {wheel.filename} ({reasons})", url=tried[-1].url if tried else None,
                      hint="check your PyPI mirror / pip config (`torchenv mirror test`), or re-lock with "
                           "`torchenv lock` if the file was removed upstream")


def wheel_file(sources: Sources, wheel: LockedWheel, *, memory: SourceMemory, ui: Any = None,
               first: str | None = None) -> Path:
    """A hash-checked local file for a locked wheel: the cache or a local folder, else the remote sources.

    ``first``: where this run's lock found the file listed (a mirror, a local index), asked before the others.
    """
    from .fetch import fetch
    from .locate import FROM_TORCH_INDEX, local_candidates

    try:
        return fetch(wheel.filename, wheel.sha256, local_candidates(sources, wheel))
    except HashMismatch:
        pass   # a stale copy in a local folder: the remote sources may still have the right bytes
    except SourceError:
        pass
    if wheel.source == FROM_TORCH_INDEX:
        return torch_file(sources, wheel.filename, wheel.sha256, first=first, memory=memory, ui=ui)[0]
    return pypi_file(sources, wheel, first=first, memory=memory, ui=ui)[0]


def reason_words(id: str) -> str:
    from ..reasons import reason

    return reason(id)


def _said(id: str, **params: str) -> str:
    """A warning of the catalogue (``reason_catalogue``), about what the sources serve."""
    from ..reasons import SOURCES, reason

    return reason(id, SOURCES, **params)
