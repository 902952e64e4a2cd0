"""Check the recipes against the tier indexes a plan would use, when they can be reached.

Why: the recipes are a snapshot. An index can hold a build they do not list (torch 2.8 aarch64
cu128, a limited cu129 build), and a mirror can lack one they list (a partial sync). When
``plan``/``up`` can read the tier's index, a build the index holds but the recipes lack is
considered, and a build the recipes list but the index lacks is skipped; each says so in the
plan. What was read is cached under torchenv's cache dir (``index-check/``, TTL
``TORCHENV_INDEX_TTL`` seconds, default 6 h), so repeated plans cost no request.

Never a cost offline: with ``TORCHENV_OFFLINE=1`` (or ``TORCHENV_INDEX_CHECK=0``) nothing is read.
Before any request each host gets one TCP connect probe (``PROBE_S``; skipped behind a proxy),
and a host that failed is remembered (``sources.deadhosts.SourceMemory``, kept on disk for 15
minutes), so an unreachable index costs at most one short probe, then nothing, and never the
import of the HTTP/TLS stack.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from .. import kb
from ..reasons import SOURCES, Reason, reason
from ..redaction import strip_secrets

if TYPE_CHECKING:
    from pathlib import Path

    from ..intent.model import Intent
    from ..sources.deadhosts import SourceMemory
    from ..sources.model import TorchSource
    from .machine_view import MachineView
    from .search import Constraints, Rejection

PAGE_TIMEOUT_S = 2.0
PROBE_S = 0.25                  # the connect probe that keeps an unreachable index cheap
DEFAULT_TTL_S = 6 * 3600


@dataclass(frozen=True)
class TierListing:
    """What one tier's torch page holds for the plan's platform."""

    tier: str
    url: str                                     # the page's index URL, without user:password@
    versions: frozenset[str]                     # public torch versions with a wheel for the platform
    age_s: float                                 # seconds since the page was read
    links: tuple[Any, ...] = ()                  # IndexFile-like: .filename, .url
    pythons: dict[str, frozenset[str]] = field(default_factory=dict)   # version -> "3.12", "3.14t" (cp3XY wheels)

    def when(self) -> Reason:
        return reason("index.just_now") if self.age_s < 60 else reason("index.minutes_ago",
                                                                        minutes=int(self.age_s // 60))


@dataclass(frozen=True)
class IndexView:
    platform: str
    listings: dict[str, TierListing] = field(default_factory=dict)
    unreachable: tuple[Reason, ...] = ()         # "host: why", for the plan's reasons

    def lacks(self, rel: kb.Release, tier: str, python: str | None = None) -> Rejection | None:
        """Why ``rel`` ``tier`` (for ``python``, when one is asked for) is skipped; None: the index has it or
        was not read."""
        from .search import Rejection

        listing = self.listings.get(tier)
        if listing is None or kb.pypi_default_tier(rel, self.platform) == tier:   # that build comes from PyPI
            return None
        where = reason("index.where", SOURCES, tier=tier, url=listing.url, when=listing.when())
        if rel.version not in listing.versions and tier not in rel.seen_on_index:
            return Rejection(rel.version, tier, "index", reason("index.no_wheel", SOURCES, tier=tier,
                                                                version=rel.version, where=where,
                                                                platform=self.platform))
        if python and listing.pythons.get(rel.version) and python not in listing.pythons[rel.version]:
            return Rejection(rel.version, tier, "index", reason(
                "index.no_python_wheel", SOURCES, tier=tier, where=where, python=python, version=rel.version,
                platform=self.platform, pythons=", ".join(sorted(listing.pythons[rel.version], key=kb.vtuple))))
        return None

    def extend(self, rel: kb.Release, mode: str) -> kb.Release:
        """``rel`` plus the tiers whose index holds it although the recipes do not list it there."""
        have = rel.tiers(self.platform)
        kind = mode if mode in ("cuda", "rocm") else "cpu"
        found = tuple(t for t, listing in self.listings.items()
                      if t not in have and rel.version in listing.versions and _kind_of(t) == kind
                      and kb.tier_info(t) is not None)
        if not found:
            return rel
        platforms = {**rel.platforms, self.platform: have + found}
        return replace(rel, platforms=platforms, learnt=rel.learnt | set(found), seen_on_index=frozenset(found))

    def reason(self, rel: kb.Release, tier: str) -> Reason | None:
        listing = self.listings.get(tier)
        if listing is None:
            return None
        return reason("index.checked", SOURCES, tier=tier, url=listing.url, when=listing.when(), version=rel.version,
                      platform=self.platform)


def _kind_of(tier: str) -> str:
    return "cuda" if tier.startswith("cu") else "rocm" if tier.startswith("rocm") else "cpu"


def enabled() -> bool:
    return os.environ.get("TORCHENV_OFFLINE") != "1" and os.environ.get("TORCHENV_INDEX_CHECK", "1") != "0"


def tiers_to_check(cons: Constraints, mv: MachineView) -> list[str]:
    """The tiers of the newest two matching series on this platform (one parallel round of requests)."""
    from .search import matching_releases

    if cons.tier != "auto":
        return [cons.tier]
    rels = matching_releases(cons.spec)
    series = list(dict.fromkeys(r.series for r in rels if mv.platform in r.platforms))[:2] or \
        list(dict.fromkeys(r.series for r in rels))[:2]
    kind = mv.mode if mv.mode in ("cuda", "rocm") else "cpu"
    # every platform's tiers: an index may hold a build on this platform that the recipes list elsewhere only
    tiers = (t for r in rels if r.series in series for p in sorted(r.platforms, key=lambda p: p != mv.platform)
             for t in r.tiers(p))
    return list(dict.fromkeys(t for t in tiers if _kind_of(t) == kind))


# -- reading, with a cache and a memory of dead hosts --------------------------------------------------------
def _state_dir() -> Path:
    from ..paths import cache_dir

    return cache_dir() / "index-check"


def _ttl() -> float:
    try:
        return float(os.environ.get("TORCHENV_INDEX_TTL", DEFAULT_TTL_S))
    except ValueError:
        return DEFAULT_TTL_S


def _load_json(path: Path) -> Any:   # a cache file's JSON, checked by each reader
    import json

    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def _save_json(path: Path, data: Any) -> None:
    import json

    from ..fileio import temp_file

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = temp_file(path.parent, prefix=f".{path.name}.")
        with os.fdopen(fd, "w") as fh:
            json.dump(data, fh)
        os.replace(tmp, path)
    except OSError:
        pass        # a cache that cannot be written only costs a request next time


def _cache_path(page: str) -> Path:
    import hashlib

    return _state_dir() / f"{hashlib.sha256(page.encode()).hexdigest()[:24]}.json"


@dataclass(frozen=True)
class _Link:
    """A link of a cached page (what ``IndexFile`` holds, without importing the index reader)."""

    filename: str
    url: str
    sha256: None = None


def _unreachable(url: str) -> str | None:
    """Why ``url``'s host cannot be reached (one TCP connect, PROBE_S), or None.

    Why before any request: an index that does not answer must cost the plan nothing that the
    offline path does not pay, and importing the HTTP/TLS stack alone costs more than this probe.
    """
    import socket
    import urllib.parse

    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None                                  # local folders and file: URLs
    if any(os.environ.get(v) for v in (f"{parts.scheme}_proxy", f"{parts.scheme.upper()}_PROXY", "all_proxy",
                                       "ALL_PROXY")):
        return None                                  # through a proxy: only the real request can tell
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        socket.create_connection((parts.hostname, port), timeout=PROBE_S).close()
    except socket.gaierror:
        return "host name not found (DNS)"
    except TimeoutError:
        return "timed out"
    except ConnectionRefusedError:
        return "connection refused"
    except OSError as exc:
        return exc.strerror or type(exc).__name__
    return None


def _cached(page: str) -> tuple[list[_Link], float] | None:
    from ..fileio import is_fresh

    cached = _load_json(_cache_path(page))
    read_at = cached.get("read_at") if cached else None
    if not cached or not isinstance(read_at, (int, float)) or not is_fresh(read_at, _ttl()):
        return None      # none, unreadable, older than the ttl, or dated ahead of this clock
    return [_Link(f, u) for f, u in cached["links"]], time.time() - cached["read_at"]


def _read_page(url: str, layout: str, memory: SourceMemory) -> tuple[list[Any], float] | None:
    """(links of the torch page, age in seconds); None when it cannot be read (the host is then remembered)."""
    from ..errors import SourceError
    from ..sources.variants import page_links

    try:
        links = page_links(url, "torch", layout=layout, timeout=PAGE_TIMEOUT_S)
    except SourceError as exc:
        memory.failed(strip_secrets(url), exc.message.rpartition(": ")[2], unreachable=True)
        return None
    _save_json(_cache_path(f"{url.rstrip('/')}|{layout}"),
               {"read_at": time.time(), "links": [[f.filename, strip_secrets(f.url)] for f in links]})   # no secrets
    return links, 0.0


def _listing(tier: str, url: str, links: list[Any], age: float, platform: str,
             glibc: str | None = None) -> TierListing | None:
    """None for a page without any torch wheel: more likely a wrong address than a tier without builds.

    A version counts for ``platform`` when one of its wheels fits it (``sources.wheelfit``; with ``glibc``,
    the machine's, a ``manylinux`` wheel needing a newer one does not); ``py3`` wheels fit every Python.
    """
    from ..sources.wheelfit import platform_fits, python_of, read_or_none

    wheels = [w for w in map(read_or_none, (f.filename for f in links)) if w is not None and w.name == "torch"]
    if not wheels:
        return None
    pythons: dict[str, set[str]] = {}
    for wheel in wheels:
        here = [t for t in wheel.tags if platform_fits(t.platform, platform, glibc)]
        if here:
            pythons.setdefault(wheel.public, set()).update(p for t in here if (p := python_of(t)))
    return TierListing(tier, strip_secrets(url), frozenset(pythons), age, tuple(links),
                       {v: frozenset(p) for v, p in pythons.items()})


def _torch_source(intent: Intent, tier: str, platform: str, overrides: Any) -> TorchSource | None:
    from ..sources.select import select_sources

    sources = select_sources(intent, tier=tier, platform=platform, overrides=overrides)
    return sources.torch[0] if sources.torch else None


def _probe_hosts(wanted: dict[str, TorchSource], memory: Any) -> None:
    """Ask each host once whether it answers at all; a host that does not is remembered as failed, so its pages
    are not read (a quick refusal instead of one timeout per tier)."""
    from ..sources.deadhosts import host_of

    probed: set[str | None] = set()
    for url in (strip_secrets(s.url) for s in wanted.values()):
        if host_of(url) not in probed and memory.usable(url):
            probed.add(host_of(url))
            why = _unreachable(url)
            if why:
                memory.failed(url, why, unreachable=True)


def _read_pages(wanted: dict[str, TorchSource], memory: Any) -> dict[str, Any]:
    """tier -> page (or None) for each tier whose host may still be asked, read in parallel."""
    wanted = {t: s for t, s in wanted.items() if memory.usable(strip_secrets(s.url))}
    if not wanted:
        return {}
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=8) as pool:
        return dict(zip(wanted, pool.map(lambda s: _read_page(s.url, s.layout, memory), wanted.values())))


def _dead_hosts(targets: dict[str, TorchSource], memory: Any) -> tuple[Reason, ...]:
    """``host: why`` for each host of the tiers' sources that failed, once each, in tier order."""
    from ..sources.deadhosts import host_of

    dead = dict.fromkeys(h for h in (host_of(strip_secrets(s.url)) for s in targets.values()) if h in memory.dead)
    return tuple(reason("index.host_failed", SOURCES, host=h, why=memory.dead[h]) for h in dead)


def check(intent: Intent, cons: Constraints, mv: MachineView, overrides: Any = None) -> IndexView | None:
    """Read (or recall) the torch page of each tier worth checking; None when checking is off.

    Pages read within the TTL come from the cache; hosts that failed recently are not asked (and
    nothing heavy is imported for them), so the unreachable path costs a few small file reads.
    """
    if not enabled():
        return None
    from ..sources.deadhosts import SourceMemory

    memory = SourceMemory.recent()          # hosts that failed in the last minutes are not asked again
    per_tier = {t: _torch_source(intent, t, mv.platform, overrides) for t in tiers_to_check(cons, mv)}
    targets = {t: s for t, s in per_tier.items() if s is not None}
    pages = {t: _cached(f"{s.url.rstrip('/')}|{s.layout}") for t, s in targets.items()}
    wanted = {t: s for t, s in targets.items() if pages[t] is None and memory.usable(strip_secrets(s.url))}
    _probe_hosts(wanted, memory)
    pages.update(_read_pages(wanted, memory))
    memory.remember()
    listings = {t: listing for t, page in pages.items() if page is not None
                if (listing := _listing(t, targets[t].url, *page, mv.platform, mv.glibc)) is not None}
    return IndexView(mv.platform, listings, _dead_hosts(targets, memory))


def variant_lines(index: IndexView, found: Any, machine: Any) -> tuple[list[Reason], list[Reason]]:
    """(reasons, warnings) from the ``torch-<version>-variants.json`` the chosen tier's page links, if any."""
    from ..errors import SourceError
    from ..probing.variants import supported_properties
    from ..sources.variants import find_variants_link, fits_ranked, read_variants

    listing = index.listings.get(found.tier)
    link = find_variants_link(list(listing.links), "torch", found.release.version) if listing else None
    if link is None:
        return [], []
    try:
        variants = read_variants(link, timeout=PAGE_TIMEOUT_S)
    except SourceError as exc:
        return [], [reason("index.variants_unused", SOURCES, error=exc.message)]
    ranked = fits_ranked(variants, supported_properties(machine))
    good = [v.label for v in ranked if v.fits]
    reasons = [reason("index.variants", SOURCES, file=link.filename,
                      good=", ".join(good) if good else reason("words.none"))]
    chosen = next((v for v in ranked if v.label == found.tier), None)
    warnings = [] if chosen is None or chosen.fits else [
        reason("index.variant_needs", SOURCES, file=link.filename, tier=found.tier, missing=chosen.missing)]
    return reasons, warnings
