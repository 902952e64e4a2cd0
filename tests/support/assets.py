"""Real-torch assets for the integration tests, found the way a user's installer finds them.

Why not fixed paths: a wheel's place differs per machine. The torch wheels (2.13.0+cpu,
2.14.1 with its nvidia-* wheels, torchvision) are looked up through this machine's pip
configuration (``pip config list``: find-links folders and ``file://`` simple indexes,
PIP_* variables included), and uv through the dev env's own ``uv`` dependency.

When an asset is missing the test cannot prove anything: under CI (``CI`` set to a true
value) that is a failure with the reason, elsewhere a skip with the reason::

    wheel = need(find_wheel("torch", "2.13.0+cpu", "cp311"), "the torch 2.13.0+cpu cp311 wheel")
"""
from __future__ import annotations

import functools
import html.parser
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar
from urllib.parse import unquote, urljoin, urlsplit

import pytest

from .skips import unavailable

T = TypeVar("T")


def need(found: T | None, what: str) -> T:
    """``found`` when present; else fail (CI) or skip (locally), naming what is missing and where it was sought."""
    if found:
        return found
    unavailable(f"missing {what} (looked in: {where_searched()})")


@dataclass(frozen=True)
class PipSources:
    """The local places pip's configuration names: find-links folders and file:// simple indexes."""

    find_links: tuple[Path, ...]
    indexes: tuple[Path, ...]       # folders holding <project>/index.html (PEP 503)
    urls: dict[str, tuple[str, ...]]  # key (index-url, extra-index-url, find-links) -> values as configured


def _config_values() -> dict[str, list[str]]:
    """``pip config list`` of the running interpreter's pip: later files over earlier, PIP_* (``:env:``) over all."""
    proc = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True,
                          timeout=60, env=dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1"))
    lines = sorted(proc.stdout.splitlines(), key=lambda line: line.startswith(":env:"))
    out: dict[str, list[str]] = {}
    for line in lines:
        scoped, _, raw = line.partition("=")
        out[scoped.rsplit(".", 1)[-1].strip()] = raw.strip().strip("'\"").split()
    return out


def _local_path(item: str) -> Path | None:
    if item.startswith("file://"):
        return Path(unquote(urlsplit(item).path))
    return None if "://" in item else Path(item).expanduser()


@functools.cache
def pip_sources() -> PipSources:
    values = _config_values()
    urls = {k: tuple(values.get(k, ())) for k in ("index-url", "extra-index-url", "find-links")}
    links = [p for p in map(_local_path, urls["find-links"]) if p is not None and p.is_dir()]
    indexes = [p for p in map(_local_path, urls["index-url"] + urls["extra-index-url"]) if p is not None and p.is_dir()]
    return PipSources(tuple(links), tuple(indexes), urls)


def where_searched() -> str:
    src = pip_sources()
    places = [str(p) for p in src.find_links + src.indexes]
    return ", ".join(places) or "pip's configuration names no local find-links folder or file:// index"


class _Hrefs(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.hrefs += [v for k, v in attrs if tag == "a" and k == "href" and v]


def _index_files(index: Path, project: str) -> list[Path]:
    page = index / _norm(project) / "index.html"
    if not page.is_file():
        return []
    parser = _Hrefs()
    parser.feed(page.read_text(encoding="utf-8", errors="replace"))
    base = page.as_uri()
    found = (_local_path(urljoin(base, h.split("#", 1)[0])) for h in parser.hrefs)
    return [p for p in found if p is not None]


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def wheels_of(project: str) -> list[Path]:
    """Every wheel of ``project`` the pip configuration can reach locally (find-links first)."""
    prefix = re.sub(r"[-_.]+", "_", project).lower() + "-"
    src = pip_sources()
    found = [p for d in src.find_links for p in sorted(d.glob("*.whl")) if p.name.lower().startswith(prefix)]
    found += [p for i in src.indexes for p in _index_files(i, project)]
    return [p for p in dict.fromkeys(found) if p.is_file()]


def find_wheel(project: str, version: str, python_tag: str = "cp311") -> Path | None:
    """The local wheel ``project==version`` for ``python_tag`` on this platform (Linux x86_64), if any."""
    stem = f"{re.sub(r'[-_.]+', '_', project).lower()}-{version}-{python_tag}-"
    return next((p for p in wheels_of(project) if p.name.lower().startswith(stem.lower())
                 and "x86_64" in p.name), None)


def index_holding(project: str, version: str) -> Path | None:
    """The local simple index (from pip's config) that lists ``project==version``."""
    src = pip_sources()
    return next((i for i in src.indexes if any(f"-{version}-" in p.name for p in _index_files(i, project))), None)


def uv_bin() -> Path | None:
    """The dev env's own uv (torchenv depends on it)."""
    try:
        from uv import find_uv_bin
    except ImportError:
        return None
    try:
        return Path(find_uv_bin())
    except FileNotFoundError:
        return None


def uv_source_args() -> list[str]:
    """uv flags naming the same sources as pip's configuration (uv does not read pip.conf)."""
    src = pip_sources()
    args = [a for p in src.find_links for a in ("--find-links", str(p))]
    args += [a for u in src.urls["index-url"][:1] for a in ("--index-url", u)]
    args += [a for u in src.urls["extra-index-url"] for a in ("--extra-index-url", u)]
    return args


CPU_TORCH = "2.13.0+cpu"
UV_CACHE_VARIABLE = "TORCHENV_TEST_UV_CACHE"


def shared_uv_cache() -> Path:
    """The one uv cache of the real-torch tests: ``$TORCHENV_TEST_UV_CACHE``, which ``tests/conftest.py`` points
    into the run's temp folder (``use_run_uv_cache``), so a passing run leaves none behind; else under the temp
    folder (a single test imported outside pytest).

    Why: uv unpacks a wheel into its cache once and hard-links envs from there; with a cache per test every
    env that installs torch unpacked it again (800 MB for the CPU build, several GB for a CUDA stack). Per
    run, not kept across runs: uv keys a local wheel by its path, and tests that install from their own
    wheelhouse or torchenv cache would add a copy of torch to a kept cache every run. Only for tests whose
    subject is not the cache itself (those keep a fresh home's).
    """
    return Path(os.environ.get(UV_CACHE_VARIABLE) or Path(tempfile.gettempdir()) / "torchenv-tests-uv-cache")


def use_run_uv_cache(config: pytest.Config) -> None:
    """From ``pytest_configure`` of the main process (xdist workers inherit the variable): the cache lives in
    the run's basetemp, removed with it (``tmp_path_retention_policy``). A cache the developer names is kept."""
    if os.environ.get(UV_CACHE_VARIABLE) or os.environ.get("PYTEST_XDIST_WORKER"):
        return
    run_temp = config._tmp_path_factory.getbasetemp()   # type: ignore[attr-defined]  # what tmp_path_factory is
    os.environ[UV_CACHE_VARIABLE] = str(run_temp / "real-torch-uv-cache")


def cpu_torch_wheel() -> Path:
    """The torch 2.13.0+cpu cp311 wheel (fail in CI, skip elsewhere, when absent)."""
    return need(find_wheel("torch", CPU_TORCH), f"the torch {CPU_TORCH} cp311 Linux x86_64 wheel")


def uv() -> Path:
    return need(uv_bin(), "uv from the dev env (`pip install -e '.[test]'` installs it)")
