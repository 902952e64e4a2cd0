"""Find the exact torch-family files for a plan, before any installer sees a requirement.

Why torchenv locates these itself instead of giving uv/pip an index: the supply-chain
rule says torch, torchvision, triton... come only from the tier's torch source (or a
local wheelhouse), and a file with a ``+cu121`` tag never from a PyPI-side index. An
installer given both indexes picks by its own rules (uv: first index; pip: highest
version, so ``2.4.1+cu121`` beats ``2.4.1``). Here each file is chosen by exact version
and wheel tags, hashed, and handed to the installer as a direct reference.
"""
from __future__ import annotations

import urllib.parse
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import SourceError
from .wheelfit import target_tags

if TYPE_CHECKING:
    from packaging.tags import Tag

    from ..lockfile.model import LockedWheel
    from .model import Sources

FROM_TORCH_INDEX = "torch-index"
FROM_PYPI = "pypi"


@cache
def torch_family() -> frozenset[str]:
    """Names routed to the torch source (``recipes/packages.toml``)."""
    from ..kb import torch_family as names
    from .index import normalize

    return frozenset(normalize(n) for n in names())


def _version_matches(file_version: str, planned: str, *, tier: str, allow_local: bool) -> bool:
    from packaging.version import InvalidVersion, Version

    try:
        have, want = Version(file_version), Version(planned)
    except InvalidVersion:
        return False
    if want.local is not None:
        return have == want
    if have.public != want.public:
        return False
    return have.local is None or (allow_local and have.local == tier.replace(".", ""))


def best_file(files: list[Any], name: str, version: str, *, tier: str, ranking: dict[Tag, int],
              allow_local: bool) -> Any | None:
    """The file of ``name==version`` whose tags rank best for the target, or None."""
    from .index import parse_wheel_filename

    best, best_rank = None, None
    for f in files:
        if not f.filename.endswith(".whl"):
            continue
        try:
            fname, fversion, ftags = parse_wheel_filename(f.filename)
        except SourceError:
            continue
        if fname != name or not _version_matches(fversion, version, tier=tier, allow_local=allow_local):
            continue
        ranks = [ranking[t] for t in ftags if t in ranking]
        if ranks and (best_rank is None or min(ranks) < best_rank):
            best, best_rank = f, min(ranks)
    return best


def search_order(sources: Sources, source: str) -> list[tuple[str, str]]:
    """(url, layout) to search, local ones first so a wheelhouse hit costs no network."""
    from .model import OFFICIAL_PYPI

    if source == FROM_PYPI:
        pypi = sources.pypi
        order = [(u, "flat") for u in (*sources.wheelhouses, *pypi.find_links)]
        order += [(u, "index") for u in (*pypi.extra_index_urls, pypi.index_url or OFFICIAL_PYPI)]
    else:
        order = [(u, "flat") for u in sources.wheelhouses]
        order += [(s.url, s.layout) for s in sources.torch]
    layout_by_url: dict[str, str] = {}
    for u, lay in order:
        layout_by_url.setdefault(u, lay)   # the first layout a URL is named with wins
    unique = list(layout_by_url.items())
    local = [(u, lay) for u, lay in unique if "://" not in u or u.startswith("file:")]
    return local + [(u, lay) for u, lay in unique if (u, lay) not in local]


def canonical(sources: Sources, tier: str, filename: str) -> tuple[str, str]:
    """(url, index) the lock records for a torch-index file, whichever mirror or folder had it."""
    index = f"{sources.canonical_torch.rstrip('/')}/{tier}"
    return f"{index}/{urllib.parse.quote(filename)}", index


@dataclass(frozen=True)
class Located:
    wheel: LockedWheel     # canonical URL; sha256 as listed ("" when a remote source lists none)
    found_url: str           # where the file was listed (a mirror, a local folder)
    core_metadata: str | None = None   # the listing offers ``<found_url>.metadata`` (its sha256, "" for none)


def locate(sources: Sources, name: str, version: str, *, source: str, tier: str, python: str,
           platform: str, ui: Any = None, memory: Any = None, hash_local: bool = True,
           glibc: str | None = None) -> Located:
    """The wheel of ``name==version`` for this target: the first source (in order) that lists it.

    ``hash_local=False``: a local file its listing gives no sha256 for keeps ``sha256=""`` (the
    caller hashes it while the engine resolves, not before).

    Nothing is downloaded here: the caller fetches the file (``sources.getfile``), which
    checks the listed sha256 or, when the source lists none, computes it while downloading.
    ``memory`` (an ``sources.deadhosts.SourceMemory``) skips hosts that already failed in this run.
    ``glibc``: the target's (``sources.wheelfit.target_glibc``); None keeps the tags of an unknown glibc.
    """
    from ..lockfile.model import LockedWheel
    from .index import list_project_files, local_path

    tags = target_tags(python, platform, glibc)
    ranking = {t: i for i, t in enumerate(tags)}
    from ..reasons import SOURCES, Joined, reason

    tried: list[str] = []
    for url, layout in search_order(sources, source):
        if memory is not None and not memory.usable(url):
            tried.append(reason("fetch.url_skipped_why", SOURCES, url=url, why=memory.why_skipped([url])))
            continue
        try:
            files = list_project_files(url, name, layout=layout)
        except SourceError as exc:
            tried.append(reason("fetch.url_why", SOURCES, url=url, why=exc.message))
            if memory is not None:
                memory.failed(url, exc.message, unreachable=True)
            if ui is not None:
                ui.warn(reason("fetch.url_failed", SOURCES, url=url, name=name, version=version))
            continue
        hit = best_file(files, name, version, tier=tier, ranking=ranking, allow_local=source != FROM_PYPI)
        if hit is None:
            tried.append(reason("fetch.url_no_version_wheel", SOURCES, url=url, name=name, version=version,
                                python=python, platform=platform))
            continue
        local = local_path(hit.url)
        sha = hit.sha256 or ""
        if local is not None and not sha and hash_local:
            from .fetch import verified_sha256

            sha = verified_sha256(local)
        if source == FROM_PYPI:
            record_url, index = hit.url, url
        else:
            record_url, index = canonical(sources, tier, hit.filename)
        wheel = LockedWheel(name=name, version=_file_version(hit.filename), filename=hit.filename, url=record_url,
                            sha256=sha, index=index, source=source,
                            size=local.stat().st_size if local is not None else hit.size)
        return Located(wheel, hit.url, hit.core_metadata)
    raise SourceError(reason("fetch.no_wheel_torch" if source != FROM_PYPI else "fetch.no_wheel_pypi", SOURCES,
                             name=name, version=version, python=python, platform=platform,
                             tried=Joined(tuple(tried), "; ") if tried else reason("fetch.no_source")),
                      url=tried[0].split(": ")[0] if tried else None,
                      hint="check the mirror (`torchenv mirror test`), add a folder holding the wheel to "
                           "pip's find-links, or choose another torch version/tier in torchenv.toml")


def _file_version(filename: str) -> str:
    from .index import parse_wheel_filename

    return parse_wheel_filename(filename)[1]


def on_this_machine(sources: Sources, wheel: LockedWheel) -> bool:
    """Is the file of ``wheel`` here already: in torchenv's cache, a local folder or ``file://`` index of
    ``sources``, or a local torch source? (Whether it holds the right bytes is checked when it is used.)"""
    from ..paths import wheel_cache
    from .index import local_path
    from .routing import torch_candidates

    if (wheel_cache() / wheel.sha256[:2] / wheel.sha256 / wheel.filename).is_file():
        return True
    places = local_candidates(sources, wheel)
    if wheel.name in torch_family():
        places += torch_candidates(sources, wheel.filename)
    return any(p is not None and p.is_file() for p in map(local_path, places))


def local_candidates(sources: Sources, wheel: LockedWheel) -> list[str]:
    """Places on this machine that may hold the exact file (hash-checked by fetch)."""
    dirs = [*sources.wheelhouses]
    from .pipconfig import local_dirs

    dirs += [str(p) for p in local_dirs(list(sources.pypi.find_links))]
    out = [str(Path(d) / wheel.filename) for d in dict.fromkeys(dirs)]
    if wheel.url.startswith("file:"):
        out.append(wheel.url)
    return out


def remote_candidates(sources: Sources, wheel: LockedWheel, ui: Any = None) -> list[str]:
    """Every remote URL that may serve ``wheel``, for callers that want one list for ``fetch``.

    Prefer ``sources.getfile.wheel_file``: it asks sources lazily and remembers dead hosts.
    Here torch-family files get direct ``<torch source>/<file>`` URLs (no listing) and then
    what each torch source lists; PyPI-side files what each index lists. A source that cannot
    be listed is a warning, never silent; the lock's URL is added only when it lies under
    the plan's sources (``getfile.recorded_url_allowed``).
    """
    from .deadhosts import SourceMemory
    from .getfile import listed_urls, pypi_roots, recorded_url_allowed

    memory = SourceMemory(ui)
    out: list[str] = []
    if wheel.source == FROM_TORCH_INDEX:
        from .routing import torch_candidates

        try:
            out += [u for u in torch_candidates(sources, wheel.filename) if "://" in u]
        except ValueError:
            pass
        searched = [(s.url, s.layout) for s in sources.torch]
    else:
        searched = pypi_roots(sources)
    for url, layout in searched:
        out += listed_urls(url, layout, wheel.name, wheel.filename, memory, ui)
    if recorded_url_allowed(sources, wheel):
        out.append(wheel.url)
    return list(dict.fromkeys(out))
