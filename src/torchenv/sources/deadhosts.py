"""Hosts that could not be reached: skipped for the rest of a run, and for a few minutes by the next.

Why a memory of dead hosts: from China every unreachable source costs a connect timeout, and a
mirror that does not answer for ``torch`` will not answer for ``torchvision`` either; it costs one
timeout per run, not one per package. The plan's reachability probe, the index check, the locker
and the fetcher share one ``SourceMemory``, so every stage of a run asks a dead host once. Why no
silent skip: each skipped host is a warning naming it, so users learn that their mirror is dead.
"""
from __future__ import annotations

import json
import urllib.parse
from pathlib import Path
from typing import Any

# fetch/http reasons that mean "this host cannot be reached at all" (not: this file is missing)
_UNREACHABLE = ("timed out", "connection refused", "host name not found (DNS)", "TLS error")


def host_of(url: str) -> str | None:
    """``host:port`` of a remote URL, never its login; None for local paths and ``file:`` URLs.

    Why without the login: the host is shown in warnings and kept in the dead-host memory on disk.
    """
    if "://" not in url or url.startswith("file:"):
        return None
    return urllib.parse.urlsplit(url).netloc.rpartition("@")[2] or None


DEAD_HOST_TTL_S = 15 * 60     # how long a host the plan found unreachable is not asked again


def dead_hosts_path() -> Path:
    """Where the hosts found unreachable in the last minutes are kept (``SourceMemory.remember``/``recent``)."""
    from ..paths import cache_dir

    return cache_dir() / "index-check" / "dead-hosts.json"


def _recent_dead_hosts() -> dict[str, tuple[str, float]]:
    """host -> (why, until) for the entries of ``dead_hosts_path`` that have not expired (a bad file: none)."""
    try:
        known = json.loads(dead_hosts_path().read_text())
    except (OSError, ValueError):
        return {}
    from ..fileio import is_fresh

    # an entry "until" further ahead than one ttl was written by a clock that ran ahead: stale
    return {host: (str(entry[0]), float(entry[1])) for host, entry in (known.items() if isinstance(known, dict) else ())
            if isinstance(entry, list) and len(entry) == 2 and isinstance(entry[1], (int, float))
            and is_fresh(entry[1] - DEAD_HOST_TTL_S, DEAD_HOST_TTL_S)}


class SourceMemory:
    """Hosts that could not be reached during this run; later requests skip them."""

    def __init__(self, ui: Any = None) -> None:
        self.ui = ui
        self.dead: dict[str, str] = {}      # host -> why
        self.unsaid: set[str] = set()       # dead hosts from the recent memory, not yet named to the user
        self.seeded: frozenset[str] = frozenset()   # the hosts it was seeded with (``remember``)

    @classmethod
    def recent(cls, ui: Any = None) -> SourceMemory:
        """A memory seeded with the hosts found unreachable within ``DEAD_HOST_TTL_S``.

        Why: ``up`` plans (the reachability probe asks each torch source) and then locks and
        fetches; a mirror that hung for the plan a moment ago would cost the lock one more
        connect timeout. Seeded from the same file, every stage of a run asks a dead host once.
        """
        memory = cls(ui)
        for host, (reason, _until) in _recent_dead_hosts().items():
            memory.dead[host] = reason
            memory.unsaid.add(host)
        memory.seeded = frozenset(memory.unsaid)
        return memory

    def remember(self) -> None:
        """Keep the hosts this run found unreachable for ``DEAD_HOST_TTL_S`` (what ``recent`` seeds from).

        Only the plan's reachability probe and index check call this: a host that failed once while
        files were fetched is skipped for the rest of that run, not for the next quarter hour.
        """
        import time

        from ..fileio import write_atomic

        new = {h: r for h, r in self.dead.items() if h not in self.seeded}
        if not new:
            return
        until = time.time() + DEAD_HOST_TTL_S
        known = {h: [r, t] for h, (r, t) in _recent_dead_hosts().items()}
        try:
            write_atomic(dead_hosts_path(), json.dumps({**known, **{h: [r, until] for h, r in new.items()}}),
                         durable=False)
        except OSError:
            pass        # a memory that cannot be written only costs a connect timeout next time

    def usable(self, url: str) -> bool:
        host = host_of(url)
        if host not in self.dead:
            return True
        if host in self.unsaid:      # skipped from the recent memory: said once, as a fresh failure is
            self.unsaid.discard(host)
            if self.ui is not None:
                from ..reasons import SOURCES, reason

                self.ui.warn(reason("fetch.host_failed_before", SOURCES, host=host, why=self.dead[host]))
        return False

    def failed(self, url: str, reason: str, *, unreachable: bool | None = None) -> None:
        """Note a failure; an unreachable host is skipped (with one warning) for the rest of the run."""
        host = host_of(url)
        if host is None or host in self.dead:
            return
        if unreachable is None:
            unreachable = reason.startswith(_UNREACHABLE)
        if unreachable:
            self.dead[host] = reason
            if self.ui is not None:
                from ..reasons import SOURCES
                from ..reasons import reason as said

                self.ui.warn(said("fetch.host_failed", SOURCES, host=host, why=reason))

    def why_skipped(self, urls: list[str]) -> str:
        hosts = dict.fromkeys(h for h in map(host_of, urls) if h in self.dead)
        from ..reasons import SOURCES, Joined, reason

        if not hosts:
            return ""
        return reason("fetch.hosts_failed_earlier", SOURCES, hosts=Joined(
            tuple(reason("fetch.host_failed_earlier", SOURCES, host=h, why=self.dead[h]) for h in hosts), "; "))
