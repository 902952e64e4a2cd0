"""Large files in chunks: HTTP ``Range`` requests over several connections and several mirrors.

Why: mirrors (China's especially) throttle each connection, and a CUDA stack is gigabytes; one
connection per file leaves most of the link idle, and a download that dies at 90% would start
again from zero. So a file whose size reaches :data:`RANGED_MIN_BYTES` is cut into
:data:`CHUNK_BYTES` chunks that several connections fetch at once, from every mirror that holds
the same bytes (same size, ``206`` answers), within one run-wide connection budget.

* **Resume**: the chunks land in ``<cache entry>/.ranged-<sha>.part`` at their own offsets; a
  sidecar ``.ranged-<sha>.json`` records how many bytes of each chunk are on disk (saved at most
  every :data:`SAVE_EVERY_S`), so a killed run loses only what arrived since the last save.
* **Mirror choice**: each mirror's measured per-connection rate (seeded by ``mirror use auto``'s
  measurement) steers new chunks to the fastest; a mirror far slower than the best is left idle
  while a faster one has room, and a chunk that fails is continued on another mirror.
* **Hash**: the whole file's sha256 is checked before the file is used. When it fails, the
  chunks one mirror served are fetched again from another; chunks whose bytes differ are
  replaced, and when the whole hash then matches, the mirror that served them is named and
  dropped for the rest of the run. No source publishes per-chunk hashes, so comparing two
  mirrors is the only way to find which one lied.

Stdlib only (threads + ``sources.http.open_url``, whose pool keeps each connection alive for the
next chunk from the same host, and keeps proxies, deadlines and per-request Basic auth that never
crosses hosts). Never imported on the no-op ``up`` path.
"""
from __future__ import annotations

import hashlib
import json
import os
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..i18n import _
from .http import budget_size

CHUNK_BYTES = 8 << 20
RANGED_MIN_BYTES = 2 * CHUNK_BYTES     # smaller files keep one connection
PER_MIRROR_CONNECTIONS = 4             # what a mirror usually tolerates from one client
SAVE_EVERY_S = 0.25
SLOW_FACTOR = 0.25                     # a mirror under this share of the best rate waits
_BLOCK = 256 << 10


_BUDGET_LOCK = threading.Lock()
_BUDGET: list[threading.BoundedSemaphore] = []


def budget() -> threading.BoundedSemaphore:
    """The run-wide connection budget (one semaphore; every open download connection holds a slot)."""
    with _BUDGET_LOCK:
        if not _BUDGET:
            _BUDGET.append(threading.BoundedSemaphore(budget_size()))
        return _BUDGET[0]


def host_label(url: str) -> str:
    """A mirror's name in messages and the progress display: ``host[:port]``, never a login."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or url
    return f"{host}:{parts.port}" if parts.port else host


# --- measured rates ---------------------------------------------------------------------------------

@dataclass
class _Mirror:
    rate: float | None = None        # bytes/s of one connection, smoothed
    active: int = 0
    failures: int = 0
    liar: bool = False


class MirrorRates:
    """Per-host rate and health for the whole run (all files share what was learned)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.hosts: dict[str, _Mirror] = {}
        self.seeded = False

    def get(self, host: str) -> _Mirror:
        if not self.seeded:
            self.seeded = True
            for seed_host, rate in _seed_rates().items():
                self.hosts.setdefault(seed_host, _Mirror(rate=rate))
        return self.hosts.setdefault(host, _Mirror())

    def measured(self, host: str, nbytes: int, seconds: float) -> None:
        if nbytes <= 0 or seconds <= 0:
            return
        with self.lock:
            m = self.get(host)
            now = nbytes / seconds
            m.rate = now if m.rate is None else 0.5 * m.rate + 0.5 * now

    def pick(self, hosts: list[str], exclude: set[str], cap: int) -> str | None:
        """The mirror a new chunk should go to: untried ones first, then the fastest with a free slot.

        A mirror slower than ``SLOW_FACTOR`` of the best waits while a faster one has room.
        """
        with self.lock:
            live = [h for h in hosts if h not in exclude and not self.get(h).liar]
            free = [h for h in live if self.get(h).active < cap]
            if not free:
                return None
            choice = self._untried(free) or self._fast_enough(live, free)
            if choice is not None:
                self.get(choice).active += 1
            return choice

    def _untried(self, free: list[str]) -> str | None:
        """A mirror with no measured rate yet (the least busy one), so every mirror gets measured."""
        untried = [h for h in free if self.get(h).rate is None]
        return min(untried, key=lambda h: self.get(h).active) if untried else None

    def _fast_enough(self, live: list[str], free: list[str]) -> str | None:
        """The fastest free mirror, when it is within ``SLOW_FACTOR`` of the best live one."""
        best = max((self.get(h).rate or 0.0) for h in live if self.get(h).rate is not None)
        fast = [h for h in free if (self.get(h).rate or 0.0) >= SLOW_FACTOR * best]
        return max(fast, key=lambda h: self.get(h).rate or 0.0) if fast else None

    def release(self, host: str, *, ok: bool) -> None:
        with self.lock:
            m = self.get(host)
            m.active -= 1
            m.failures = 0 if ok else m.failures + 1


RATES = MirrorRates()


def _seed_rates() -> dict[str, float]:
    """Per-host bytes/s from ``mirror use auto``'s stored measurement (empty when none)."""
    try:
        from .mirrors import auto_choice

        ranking = auto_choice() or {}
    except Exception:
        return {}
    rates: dict[str, float] = {}
    for rows in ranking.values():
        for row in rows if isinstance(rows, list) else []:
            kibps = row.get("throughput_kibps") if isinstance(row, dict) else None
            if isinstance(kibps, (int, float)) and kibps > 0 and row.get("url"):
                rates[host_label(str(row["url"]))] = float(kibps) * 1024
    return rates


# --- the partial file and its sidecar ------------------------------------------------------------

class DiskFailed(Exception):
    """Writing a chunk here failed (disk full, read-only cache): not the mirror's fault."""


class ChunkFailed(Exception):
    def __init__(self, reason: str, received: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.received = received


@dataclass
class Partial:
    """``.part`` file + sidecar: bytes on disk per chunk and which mirrors served them."""

    part: Path
    sidecar: Path
    size: int
    chunk: int
    have: dict[int, int] = field(default_factory=dict)
    served: dict[int, list[str]] = field(default_factory=dict)
    saved_at: float = 0.0

    @classmethod
    def open(cls, folder: Path, sha256: str, size: int, chunk: int | None = None) -> Partial:
        chunk = chunk or CHUNK_BYTES
        folder.mkdir(parents=True, exist_ok=True)
        p = cls(folder / f".ranged-{sha256}.part", folder / f".ranged-{sha256}.json", size, chunk)
        try:
            data = json.loads(p.sidecar.read_text())
            if data.get("size") == size and data.get("chunk") == chunk and p.part.stat().st_size == size:
                p.have = {int(k): int(v) for k, v in data.get("have", {}).items()}
                p.served = {int(k): list(v) for k, v in data.get("served", {}).items()}
        except (OSError, ValueError, TypeError, AttributeError):
            pass
        if not p.have:
            try:
                with open(p.part, "wb") as f:
                    f.truncate(size)
            except OSError as exc:
                raise DiskFailed(f"cannot write {p.part}: {exc.strerror or exc}") from None
        return p

    @property
    def count(self) -> int:
        return -(-self.size // self.chunk)

    def bounds(self, index: int) -> tuple[int, int]:
        start = index * self.chunk
        return start, min(start + self.chunk, self.size)

    def missing(self) -> list[int]:
        return [i for i in range(self.count) if self.have.get(i, 0) < self.bounds(i)[1] - self.bounds(i)[0]]

    def on_disk(self) -> int:
        return sum(self.have.values())

    def save(self, *, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.saved_at < SAVE_EVERY_S:
            return
        self.saved_at = now
        tmp = self.sidecar.with_suffix(f".tmp{threading.get_ident()}")
        try:
            tmp.write_text(json.dumps({"size": self.size, "chunk": self.chunk, "have": self.have,
                                       "served": self.served}))
            os.replace(tmp, self.sidecar)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise DiskFailed(f"cannot write {self.sidecar}: {exc.strerror or exc}") from None

    def discard(self) -> None:
        self.part.unlink(missing_ok=True)
        self.sidecar.unlink(missing_ok=True)

    def sha256(self) -> str:
        h = hashlib.sha256()
        with open(self.part, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        return h.hexdigest()


# --- one chunk over one connection ----------------------------------------------------------------

def _content_range(value: str | None) -> tuple[int, int, int] | None:
    """``bytes START-END/TOTAL`` -> (start, end inclusive, total)."""
    try:
        unit, _space, rest = (value or "").partition(" ")
        span, _slash, total = rest.partition("/")
        start, _dash, end = span.partition("-")
        return (int(start), int(end), int(total)) if unit == "bytes" else None
    except ValueError:
        return None


def probe(url: str, *, timeout: float) -> tuple[Any, int | None]:
    """``(response, total)``: asks for byte 0. A ``206`` gives the size (response closed, None
    returned in its place); a server that ignores ``Range`` answers ``200`` with the whole file,
    and that response is handed back to be streamed as a one-connection download."""
    from .http import open_url

    resp = open_url(url, timeout=timeout, headers={"Range": "bytes=0-0"}, stream=True)   # a 200 streams the file
    if resp.status != 206:
        return resp, None
    cr = _content_range(resp.headers.get("Content-Range"))
    resp.read()
    resp.close()
    if cr is None:
        raise ChunkFailed("answered 206 without a usable Content-Range")
    return None, cr[2]


def _fetch_range(url: str, start: int, end: int, size: int, timeout: float,
                 sink: Callable[[bytes], None]) -> None:
    """GET bytes ``start..end-1`` of ``url`` into ``sink``; anything but exactly those bytes fails."""
    import urllib.error

    from .http import describe, open_url

    try:
        with open_url(url, timeout=timeout, headers={"Range": f"bytes={start}-{end - 1}"}, stream=True) as resp:
            cr = _content_range(resp.headers.get("Content-Range"))
            if resp.status != 206 or cr != (start, end - 1, size):
                raise ChunkFailed("does not serve the same file in ranges"
                                  + (f" (size {cr[2]}, not {size})" if cr and cr[2] != size else ""))
            left = end - start
            while left > 0:
                block = resp.read(min(_BLOCK, left))
                if not block:
                    raise ChunkFailed(f"connection dropped {left} bytes short")
                sink(block)
                left -= len(block)
    except (ChunkFailed, DiskFailed):
        raise
    except urllib.error.HTTPError as exc:
        raise ChunkFailed(f"HTTP {exc.code}") from None
    except Exception as exc:
        raise ChunkFailed(describe(exc)) from None


fetch_range = _fetch_range   # public: readers of a few parts of a file (``backends.wheelmeta``)


# --- the worker pool -----------------------------------------------------------------------------

@dataclass
class _Job:
    index: int
    exclude: set[str] = field(default_factory=set)
    attempts: int = 0


@dataclass
class Download:
    """One ranged download in progress: its mirrors, its partial file, its progress callbacks."""

    filename: str
    urls: dict[str, str]                      # host -> URL of this file there
    partial: Partial
    timeout: float
    advance: Callable[[int], None]
    show_mirrors: Callable[[list[str]], None]
    warn: Callable[[str], None]
    lock: threading.Lock = field(default_factory=threading.Lock)
    errors: dict[int, str] = field(default_factory=dict)
    in_use: dict[str, int] = field(default_factory=dict)

    def _uses(self, host: str, delta: int) -> None:
        with self.lock:
            self.in_use[host] = self.in_use.get(host, 0) + delta
            self.show_mirrors(sorted(h for h, n in self.in_use.items() if n > 0))

    def drop(self, host: str, reason: str) -> None:
        with self.lock:
            if self.urls.pop(host, None) is not None:
                self.warn(_("mirror {mirror} dropped for {filename} ({reason})").format(
                    mirror=host, filename=self.filename, reason=reason))

    def run(self, jobs: list[_Job], attempt: Callable[[_Job, str], None]) -> None:
        """Work through ``jobs`` with as many threads as the mirrors allow; bounded retries per job."""
        pending = list(jobs)
        threads = [threading.Thread(target=self._worker, args=(pending, attempt), daemon=True)
                   for _worker in range(min(len(jobs), PER_MIRROR_CONNECTIONS * max(1, len(self.urls)), budget_size()))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    def _next(self, pending: list[_Job]) -> _Job | None:
        with self.lock:
            return pending.pop(0) if pending else None

    def url(self, host: str) -> str:
        """The file's URL on ``host``; a mirror dropped meanwhile (by another connection) fails the attempt."""
        with self.lock:
            found = self.urls.get(host)
        if found is None:
            raise ChunkFailed("dropped meanwhile")
        return found

    def _worker(self, pending: list[_Job], attempt: Callable[[_Job, str], None]) -> None:
        while (job := self._next(pending)) is not None:
            try:
                self._do(job, pending, attempt)
            except DiskFailed as exc:   # no mirror can help: stop taking chunks
                self.errors[job.index] = str(exc)
                with self.lock:
                    pending.clear()

    def _do(self, job: _Job, pending: list[_Job], attempt: Callable[[_Job, str], None]) -> None:
        limit = 2 * len(self.urls) + 2
        give_up = time.monotonic() + 10 * self.timeout     # no free slot on any usable mirror for that long
        while job.attempts < limit and time.monotonic() < give_up:
            host = RATES.pick(list(self.urls), job.exclude, PER_MIRROR_CONNECTIONS)
            if host is None:
                if not [h for h in self.urls if h not in job.exclude]:
                    break
                time.sleep(0.02)     # every usable mirror is busy: wait for a slot
                continue
            give_up = time.monotonic() + 10 * self.timeout
            job.attempts += 1
            ok = False
            self._uses(host, +1)
            try:
                with budget():
                    attempt(job, host)
                ok = True
                self.errors.pop(job.index, None)
                return
            except ChunkFailed as exc:
                self.errors[job.index] = f"{host}: {exc.reason}"
                job.exclude.add(host)
                if RATES.get(host).failures >= 2 or "same file" in exc.reason:
                    self.drop(host, exc.reason)
            finally:
                RATES.release(host, ok=ok)
                self._uses(host, -1)
        self.errors.setdefault(job.index, "no mirror left for this chunk")


def _writer(d: Download, job: _Job, host: str, offset: int) -> Callable[[bytes], None]:
    """A sink that writes at the chunk's offset, counts it on disk and measures the mirror."""
    p = d.partial
    fd = os.open(p.part, os.O_WRONLY)
    pos, since, n = offset, time.monotonic(), 0   # write position; bytes measured since ``since``

    def sink(block: bytes) -> None:
        nonlocal pos, since, n
        try:
            os.pwrite(fd, block, pos)
        except OSError as exc:
            raise DiskFailed(f"cannot write {p.part}: {exc.strerror or exc}") from None   # not the mirror's fault
        pos += len(block)
        n += len(block)
        with d.lock:
            p.have[job.index] = p.have.get(job.index, 0) + len(block)
            served = p.served.setdefault(job.index, [])
            if host not in served:
                served.append(host)
            p.save()
        d.advance(len(block))
        if n >= 2 * _BLOCK:
            RATES.measured(host, n, time.monotonic() - since)
            since, n = time.monotonic(), 0

    def close() -> None:
        os.close(fd)
        RATES.measured(host, n, time.monotonic() - since)

    sink.close = close  # type: ignore[attr-defined]
    return sink


def _fill(d: Download, job: _Job, host: str) -> None:
    """Fetch what chunk ``job.index`` still lacks, from ``host``, continuing a partial chunk."""
    start, end = d.partial.bounds(job.index)
    begin = start + d.partial.have.get(job.index, 0)
    if begin >= end:
        return
    sink = _writer(d, job, host, begin)
    try:
        _fetch_range(d.url(host), begin, end, d.partial.size, d.timeout, sink)
    finally:
        sink.close()  # type: ignore[attr-defined]


def _read_chunk(p: Partial, index: int) -> bytes:
    start, end = p.bounds(index)
    with open(p.part, "rb") as f:
        f.seek(start)
        return f.read(end - start)


def _hunt_liar(d: Download, expected: str) -> str | None:
    """Re-fetch each suspect mirror's chunks from another mirror; the liar's name when that fixes the hash."""
    p = d.partial
    served_by = [h for hosts in p.served.values() for h in hosts]
    suspects = sorted(set(served_by), key=served_by.count)    # the cheapest check first
    for suspect in suspects:
        chunks = [i for i, hosts in p.served.items() if suspect in hosts]
        others = [h for h in d.urls if h != suspect]
        if not chunks or not others:
            continue
        replaced: list[int] = []

        def compare(job: _Job, host: str) -> None:
            got = bytearray()
            start, end = p.bounds(job.index)
            _fetch_range(d.url(host), start, end, p.size, d.timeout, got.extend)
            if bytes(got) != _read_chunk(p, job.index):
                with open(p.part, "r+b") as f:
                    f.seek(start)
                    f.write(got)
                with d.lock:
                    replaced.append(job.index)   # noqa: B023 -- d.run below calls compare in this same pass
                    p.served[job.index] = [host]

        d.run([_Job(i, exclude={suspect}) for i in chunks], compare)
        if replaced and p.sha256() == expected:
            p.save(force=True)
            RATES.get(suspect).liar = True
            which = ", ".join(f"bytes {p.bounds(i)[0]}-{p.bounds(i)[1] - 1}" for i in sorted(replaced))
            d.warn(_("mirror {mirror} served wrong bytes for {filename} ({which}: another mirror's copy "
                     "differs, and with it the file matches its sha256); dropped it for this run").format(
                         mirror=suspect, filename=d.filename, which=which))
            d.urls.pop(suspect, None)
            return suspect
    return None


def download(filename: str, expected: str, mirrors: list[str], size: int, dest: Path, *, timeout: float,
             advance: Callable[[int], None], show_mirrors: Callable[[list[str]], None],
             warn: Callable[[str], None], on_resume: Callable[[int], None] | None = None) -> Path:
    """Put ``filename`` (``size`` bytes, sha256 ``expected``) at ``dest`` from ``mirrors`` in ranged chunks.

    Raises :class:`ChunkFailed` when no mirror could deliver a chunk, or when the whole-file
    hash fails and comparing mirrors did not fix it (the partial file is then discarded).
    """
    partial = Partial.open(dest.parent, expected, size)
    urls: dict[str, str] = {}
    for url in mirrors:
        urls.setdefault(host_label(url), url)
    d = Download(filename, urls, partial, timeout, advance, show_mirrors, warn)
    resumed = partial.on_disk()
    if resumed:
        advance(resumed)
        if on_resume is not None:
            on_resume(resumed)
    d.run([_Job(i) for i in partial.missing()], lambda job, host: _fill(d, job, host))
    partial.save(force=True)
    if partial.missing():
        reasons = "; ".join(sorted(set(d.errors.values()))) or "no mirror answered"
        raise ChunkFailed(f"{len(partial.missing())} of {partial.count} chunks missing ({reasons}); "
                          "run again to continue where this stopped")
    digest = partial.sha256()
    if digest != expected and _hunt_liar(d, expected) is None:
        partial.discard()
        raise ChunkFailed("wrong bytes (sha256 mismatch)", received=digest)
    os.replace(partial.part, dest)
    partial.sidecar.unlink(missing_ok=True)
    return dest
