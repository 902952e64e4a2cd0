"""Measure mirrors: latency, a small throughput sample, and whether the exact files a plan
needs are there. Used by ``torchenv mirror test`` and ``mirror use auto``.

Why measure instead of trusting a static list: which China mirror is fastest depends on the
user's network (campus, ISP, cloud region), mirrors lag or drop kinds (TUNA's Anaconda
outage in 2026-08), and a fast mirror that lacks the ``+cu121`` wheel is useless for that
plan. Probes run concurrently with short timeouts and read a bounded number of bytes, so a
full test takes a few seconds even when half of the mirrors are unreachable.
"""
from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any

from .mirrors import KINDS, Preset

SAMPLE_BYTES = 256 * 1024


@dataclass(frozen=True)
class Need:
    """A file the plan needs: an exact filename, or a version for a Python/platform."""

    kind: str                       # "torch" | "pypi"
    project: str
    version: str | None = None      # exact, with local tag ("2.4.1+cu121")
    filename: str | None = None
    python: str | None = None       # "3.11"
    platform: str | None = None     # "linux-x86_64"

    def label(self) -> str:
        return self.filename or f"{self.project}=={self.version}"


@dataclass
class Result:
    name: str
    kind: str
    url: str
    ok: bool = False
    latency_ms: float | None = None
    throughput_kibps: float | None = None
    sampled_bytes: int = 0
    elapsed_s: float | None = None
    error: str | None = None
    files_needed: list[str] | None = None
    files_missing: list[str] | None = None
    verified: bool = False
    layout: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)   # e.g. conda channels of the preset

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("extra")
        return data


def matches(need: Need, filename: str) -> bool:
    if need.filename:
        return filename == need.filename
    if not filename.endswith(".whl"):
        return False
    from .wheelfit import read_or_none, tag_fits

    wheel = read_or_none(filename)
    if wheel is None or (need.version and wheel.version != need.version):
        return False
    return any(tag_fits(tag, python=need.python, platform=need.platform) for tag in wheel.tags)


def _probe_url(kind: str, url: str, layout: str | None) -> str:
    if kind == "pypi":
        return url.rstrip("/") + "/"
    if kind == "torch":
        return url.rstrip("/") + ("/torch/" if layout == "index" else "/")
    return url.rstrip("/") + "/noarch/repodata.json"


def _sample(url: str, timeout: float, sample_bytes: int) -> tuple[float, int, float]:
    """(latency s, bytes read, total s) for a bounded GET."""
    from .http import open_url

    start = time.monotonic()
    with open_url(url, timeout=timeout, connect_timeout=min(timeout, 3.0)) as resp:
        first = resp.read(1)
        latency = time.monotonic() - start
        got = len(first)
        while got < sample_bytes:
            block = resp.read(min(64 * 1024, sample_bytes - got))
            if not block:
                break
            got += len(block)
    return latency, got, time.monotonic() - start


def probe(result: Result, *, timeout: float, sample_bytes: int, needs: list[Need]) -> Result:
    from .http import describe

    try:
        latency, got, total = _sample(_probe_url(result.kind, result.url, result.layout), timeout, sample_bytes)
    except Exception as exc:
        result.error = describe(exc)
        return result
    result.ok = True
    result.latency_ms = round(latency * 1000, 1)
    result.sampled_bytes = got
    result.elapsed_s = round(total, 4)
    transfer = max(total - latency, 1e-4)
    result.throughput_kibps = round(got / 1024 / transfer, 1)
    mine = [n for n in needs if n.kind == result.kind]
    if mine:
        result.files_needed = [n.label() for n in mine]
        result.files_missing = _missing(result, mine, timeout)
    return result


def _missing(result: Result, needs: list[Need], timeout: float) -> list[str]:
    from ..errors import SourceError
    from .index import list_project_files

    missing: list[str] = []
    listings: dict[str, list[str]] = {}
    for need in needs:
        if need.project not in listings:
            try:
                files = list_project_files(result.url, need.project, layout=result.layout or "index",
                                           timeout=timeout)
                listings[need.project] = [f.filename for f in files]
            except SourceError:
                listings[need.project] = []
        if not any(matches(need, f) for f in listings[need.project]):
            missing.append(need.label())
    return missing


def candidates(table: dict[str, Preset], *, tier: str, kinds: tuple[str, ...] = KINDS) -> list[Result]:
    """One probe row per preset and kind it carries (conda: its conda-forge mirror, or the first)."""
    rows: list[Result] = []
    for name, p in sorted(table.items()):
        if "pypi" in kinds and p.pypi:
            rows.append(Result(name=name, kind="pypi", url=p.pypi, verified=p.verified.get("pypi", False)))
        if "torch" in kinds and p.torch:
            rows.append(Result(name=name, kind="torch", url=f"{p.torch}/{tier}", layout=p.torch_layout,
                               verified=p.verified.get("torch", False),
                               extra={"base": p.torch, "layout": p.torch_layout}))
        if "conda" in kinds and p.conda:
            key = next((k for k in p.conda if k.endswith("/conda-forge")), next(iter(p.conda)))
            rows.append(Result(name=name, kind="conda", url=p.conda[key], verified=p.verified.get("conda", False),
                               extra={"channels": dict(p.conda)}))
    return rows


def measure_mirrors(table: dict[str, Preset], *, tier: str = "cpu", needs: list[Need] | None = None,
                 kinds: tuple[str, ...] = KINDS, timeout: float = 5.0,
                 sample_bytes: int = SAMPLE_BYTES, workers: int = 16) -> list[Result]:
    """Probe every candidate concurrently; results in candidate order (see :func:`rank`)."""
    rows = candidates(table, tier=tier, kinds=kinds)
    if not rows:
        return []
    with ThreadPoolExecutor(max_workers=min(workers, len(rows))) as pool:
        futures = [pool.submit(probe, r, timeout=timeout, sample_bytes=sample_bytes, needs=needs or [])
                   for r in rows]
        return [f.result() for f in futures]


def rank(results: list[Result]) -> dict[str, list[Result]]:
    """Per kind: working mirrors first, then those holding every needed file, then fastest."""
    def key(r: Result) -> tuple[bool, int, float]:
        return (not r.ok, len(r.files_missing or []), r.elapsed_s if r.elapsed_s is not None else 1e9)

    return {kind: sorted((r for r in results if r.kind == kind), key=key) for kind in KINDS}


def choice_from(ranked: dict[str, list[Result]]) -> dict[str, list[dict[str, Any]]]:
    """What ``mirror use auto`` remembers: usable mirrors per kind, best first, with the measured
    speed (``sources.ranged`` starts from it when it spreads a download over mirrors)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for kind, rows in ranked.items():
        good = [r for r in rows if r.ok and not r.files_missing]
        out[kind] = [{"name": r.name, "url": r.url, **r.extra,
                      **({"throughput_kibps": r.throughput_kibps} if r.throughput_kibps else {})} for r in good]
    return out
