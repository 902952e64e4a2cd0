"""Where packages come from, as decided for one plan.

Why: the supply-chain rule ("torch family only from the tier's torch source; all
else from the PyPI side") is enforced by construction. Engines receive a
``Sources`` and never invent an index; the lock records canonical URLs while the
files may be fetched through mirrors listed here.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

OFFICIAL_TORCH_BASE = "https://download.pytorch.org/whl"
OFFICIAL_PYPI = "https://pypi.org/simple"


@dataclass(frozen=True)
class TorchSource:
    url: str              # tier-specific: ".../whl/cu121" (index layout) or a flat find-links page/dir
    layout: str = "index"  # index (PEP 503: <url>/<project>/) | flat (one page/dir listing all files)
    name: str = "official"

    @property
    def is_local(self) -> bool:
        return self.url.startswith("file:") or self.url.startswith("/")


@dataclass(frozen=True)
class PypiSide:
    index_url: str | None = None                 # None = PyPI itself
    extra_index_urls: tuple[str, ...] = ()
    find_links: tuple[str, ...] = ()
    constraints: tuple[str, ...] = ()            # constraint files from the user's pip config
    origin: str = "default"                      # "pip config", "mirror tuna", "torchenv.toml", ...

    @property
    def all_indexes(self) -> tuple[str, ...]:
        return ((self.index_url or OFFICIAL_PYPI),) + self.extra_index_urls

    @property
    def index_strategy(self) -> str:
        """How several indexes are searched: as pip does, every index for the best version.

        Why not uv's default (``first-index``): it stops at the first index that lists a name,
        even when that index lacks the version or wheel needed, where the user's own pip would
        have taken it from the next index. The torch family is not affected: it is pinned to
        the files the plan chose, by URL.
        """
        return "unsafe-best-match" if len(self.all_indexes) > 1 else "first-index"

    def index_rule(self) -> str:
        """The rule in words, for ``plan``."""
        from ..reasons import SOURCES, reason

        if self.index_strategy == "first-index":
            return reason("sources.one_index", SOURCES)
        return reason("sources.best_match", SOURCES, count=len(self.all_indexes))


@dataclass(frozen=True)
class Sources:
    torch: tuple[TorchSource, ...]               # tried in order; first is preferred, rest are fallbacks
    pypi: PypiSide = field(default_factory=PypiSide)
    wheelhouses: tuple[str, ...] = ()            # local dirs searched first for exact files (hash-checked)
    conda_mirrors: dict[str, tuple[str, ...]] = field(default_factory=dict)  # channel URL prefix -> mirrors
    canonical_torch: str = OFFICIAL_TORCH_BASE   # what the lock records, whatever mirror served
    reasons: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "torch": [{"url": s.url, "layout": s.layout, "name": s.name} for s in self.torch],
            "pypi": {"index_url": self.pypi.index_url or OFFICIAL_PYPI,
                     "extra_index_urls": list(self.pypi.extra_index_urls),
                     "find_links": list(self.pypi.find_links),
                     "constraints": list(self.pypi.constraints),
                     "origin": self.pypi.origin},
            "wheelhouses": list(self.wheelhouses),
            "conda_mirrors": {k: list(v) for k, v in self.conda_mirrors.items()},
            "canonical_torch": self.canonical_torch,
            "reasons": list(self.reasons),
        }
