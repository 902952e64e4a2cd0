"""Which sources may serve which file: the supply-chain rule as small functions.

Why: a PyPI-side mirror can hold a package *named* ``torch`` (or a planted ``torch-...+cu121``
wheel) that is not PyTorch's build. Torch-family files therefore come only from the tier's
torch sources (official index, its mirrors) or the user's own local wheelhouses; the PyPI
side serves them only when the plan says the tier *is* PyPI's default build, and then never
a file with a local version tag. Callers (resolver, ``up``, ``bundle``) ask here instead of
re-deriving the rule.
"""
from __future__ import annotations

import urllib.parse
from functools import lru_cache
from pathlib import Path
from typing import Any

from .index import normalize, project_of
from .model import OFFICIAL_TORCH_BASE, Sources

# Used only when the knowledge base cannot be read; the authoritative list is
# recipes/packages.toml [family], served by torchenv.kb.query.torch_family().
_FALLBACK_FAMILY = frozenset({
    "torch", "torchvision", "torchaudio", "torchao", "torchcodec", "torchtext", "torchrec", "torchtune",
    "torcharrow", "torchcsprng", "torchdistx", "torch-tensorrt", "fbgemm-gpu", "fbgemm-gpu-genai", "xformers",
    "triton", "pytorch-triton", "pytorch-triton-rocm", "pytorch-triton-xpu", "triton-rocm", "triton-xpu",
    "torchserve",
})

FROM_TORCH_INDEX = "torch-index"
FROM_PYPI = "pypi"


@lru_cache(maxsize=1)
def torch_family() -> frozenset[str]:
    """Normalised names of the torch family."""
    try:
        from ..kb.query import torch_family as kb_family

        names = kb_family()
        if names:
            return frozenset(normalize(n) for n in names)
    except Exception:
        pass
    return _FALLBACK_FAMILY


def is_torch_family(name: str) -> bool:
    return normalize(name) in torch_family()


def route(name: str, version: str, *, pypi_default_build: bool) -> str:
    """``torch-index`` or ``pypi`` for a package at an exact version."""
    if not is_torch_family(name):
        return FROM_PYPI
    if pypi_default_build and "+" not in version:
        return FROM_PYPI
    return FROM_TORCH_INDEX


def _sources(plan_or_sources: Any) -> Sources:
    sources = getattr(plan_or_sources, "sources", plan_or_sources)
    if not isinstance(sources, Sources):
        raise TypeError("expected a Plan with sources or a Sources object")
    return sources


def torch_candidates(plan_or_sources: Any, filename: str) -> list[str]:
    """Where a torch-family ``filename`` may be fetched from, in order: the user's local
    wheelhouses (files that exist), then each torch source of the tier. Never the PyPI side.

    URLs are the direct file locations ``<tier url>/<filename>`` (true for
    download.pytorch.org, flat mirrors and SJTU's proxy), then the same path on the hosts the
    source keeps its files on (download-r2.pytorch.org); a source that keeps files elsewhere
    simply answers 404 and ``fetch`` moves on. Raises ``ValueError`` for a
    non-torch-family file (those belong to the PyPI side).
    """
    project = project_of(filename)
    if project is None or not is_torch_family(project):
        raise ValueError(f"{filename} is not a torch-family file; it comes from the PyPI side")
    sources = _sources(plan_or_sources)
    out: list[str] = []
    for house in sources.wheelhouses:
        p = Path(house) / filename
        if p.is_file():
            out.append(str(p))
    for src in sources.torch:
        if src.is_local:
            base = Path(urllib.parse.unquote(urllib.parse.urlsplit(src.url).path)
                        if src.url.startswith("file:") else src.url)
            for p in (base / filename, base / normalize(project) / filename):
                if p.is_file():
                    out.append(str(p))
        else:
            out += [f"{base}/{urllib.parse.quote(filename)}" for base in _file_bases(src.url)]
    return list(dict.fromkeys(out))


def _file_bases(url: str) -> list[str]:
    from .filehosts import file_bases

    return file_bases(url)


def _local_part(url: str) -> str | None:
    """The path of a ``file://`` URL or a plain path; None for any other URL."""
    if url.startswith("file://"):
        return url[len("file://"):]
    return url if "://" not in url else None


def _in_local_torch_source(sources: Sources, local: str) -> bool:
    """A local torch-family file is allowed only inside a wheelhouse or a local torch source of the plan."""
    roots = [*sources.wheelhouses, *(s.url for s in sources.torch if s.is_local)]
    resolved = Path(urllib.parse.unquote(local)).resolve()
    return any(resolved.is_relative_to(Path(_local_part(r) or r).resolve()) for r in roots)


def allowed_url(plan_or_sources: Any, filename: str, url: str) -> bool:
    """May ``url`` (e.g. taken from an index listing) serve ``filename``?

    Torch-family files: only under a torch source of the plan, the official torch base
    (mirrors such as SJTU redirect listings there), the hosts those indexes keep their files
    on (``sources.filehosts``: download-r2.pytorch.org) or a local wheelhouse. Other files:
    anywhere (the PyPI side; hashes are checked anyway).
    """
    project = project_of(filename)
    if project is None or not is_torch_family(project):
        return True
    sources = _sources(plan_or_sources)
    local = _local_part(url)
    if local is not None:
        return _in_local_torch_source(sources, local)
    roots = [*(s.url for s in sources.torch), sources.canonical_torch or OFFICIAL_TORCH_BASE]
    prefixes = [b + "/" for r in roots for b in _file_bases(r)]
    return any(url.startswith(p) for p in prefixes)


def canonical_torch_url(sources: Sources, tier: str, filename: str) -> str:
    """The URL a lock records for a torch-family file, whatever mirror served it."""
    return f"{sources.canonical_torch.rstrip('/')}/{tier}/{urllib.parse.quote(filename)}"
