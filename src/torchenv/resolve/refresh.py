"""``torchenv recipes refresh``: learn torch releases the shipped recipes do not know, from an index.

Why: releases keep coming (2.16 is due weeks after a torchenv release), and what an index can
tell -- which versions, tiers, Python tags and platforms have files, which torchvision pins
which torch (PEP 658 metadata, no wheel download) -- needs no human. What only people or
binaries can tell (compiled arch lists, driver floors) is not guessed here: a new release's
arch lists are inferred by ``kb.compiled_archs`` from the nearest known one and marked
unverified in every plan that uses them.

The result is a user-level overlay (``<config dir>/recipes/overlay.toml``) in the recipe
format, each entry carrying its source URL and date; the shipped recipes always win for a
release they know.
"""
from __future__ import annotations

import datetime
import os
import re
import urllib.parse
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import tomltext
from ..errors import SourceError
from ..kb.load import overlay_path
from ..redaction import strip_secrets
from ..sources.wheelfit import platforms_of

if TYPE_CHECKING:
    from packaging.tags import Tag

DEFAULT_INDEX = "https://download.pytorch.org/whl"
_LOCAL = re.compile(r"^(?P<public>[0-9][0-9.]*)(?:\+(?P<local>[a-z0-9.]+))?$")


@dataclass
class _Release:
    """What the index holds for one torch version."""

    version: str
    tiers: dict[str, list[str]] = field(default_factory=dict)        # platform -> tiers
    pythons: dict[str, set[str]] = field(default_factory=dict)       # "3.12" / "3.14t" -> platforms
    untagged: dict[tuple[str, str], set[str]] = field(default_factory=dict)   # (platform, tier) -> untagged packages
    glibc: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class RefreshResult:
    overlay: Path
    source: str
    added: tuple[str, ...]                 # torch versions written to the overlay
    new_tiers: tuple[str, ...]
    skipped: tuple[str, ...]               # versions the shipped recipes already know
    learnt: tuple[str, ...] = ()           # "2.15.0 rocm7.14": builds of known releases the recipes did not list


# -- reading the index ----------------------------------------------------------------------------------------
def _wheel_facts(filename: str) -> tuple[str, str | None, frozenset[Tag]] | None:
    """(public version, local tag, tags) of a final release's wheel name (``sources.wheelfit``), None otherwise."""
    from ..sources.wheelfit import read_or_none

    wheel = read_or_none(filename)
    m = _LOCAL.match(wheel.version) if wheel is not None else None
    if wheel is None or m is None:
        return None
    return m.group("public"), m.group("local"), wheel.tags


def _files(base: str, tier: str, project: str) -> list[Any]:
    """Files of ``project`` on the ``tier`` index ([] when the index has no such tier)."""
    from ..sources.index import list_project_files, local_path

    url = f"{base.rstrip('/')}/{tier}"
    local = local_path(url)
    if local is not None and not local.is_dir():
        return []
    return list_project_files(url, project)


def _learn(rel: _Release, tier: str, platform: str, tag: Tag, *, untagged: bool) -> None:
    """What one wheel tag of ``rel`` on ``tier`` tells: its platform, Python and glibc floor."""
    from ..sources.wheelfit import manylinux_floor, python_of

    if tier not in rel.tiers.setdefault(platform, []):
        rel.tiers[platform].append(tier)
    if untagged:
        rel.untagged.setdefault((platform, tier), set()).add("torch")
    minor = python_of(tag)
    if minor:
        rel.pythons.setdefault(minor, set()).add(platform)
    floor = manylinux_floor(tag.platform)
    if floor:
        rel.glibc.add(floor)


def _collect(base: str, tiers: list[str]) -> dict[str, _Release]:
    found: dict[str, _Release] = {}
    for tier in tiers:
        for f in _files(base, tier, "torch"):
            facts = _wheel_facts(f.filename)
            if facts is None:
                continue
            version, local, tags = facts
            if local not in (None, tier):
                continue
            rel = found.setdefault(version, _Release(version))
            for tag in tags:
                for platform in platforms_of(tag.platform):
                    _learn(rel, tier, platform, tag, untagged=local is None)
    return found


def _tiers_on_combined_page(base: str) -> list[str]:
    """Tiers named by the local tags on ``<base>/torch/`` (download.pytorch.org lists every tier's files there),
    so a tier newer than the recipes is found without ``--tier``."""
    from ..sources.index import list_project_files, local_path

    local = local_path(base)
    if local is not None and not (local / "torch").is_dir():
        return []
    found = []
    for f in list_project_files(base, "torch"):
        facts = _wheel_facts(f.filename)
        if facts and facts[1] and re.match(r"^(cu\d+|rocm[\d.]+|cpu)$", facts[1]):
            found.append(facts[1])
    return list(dict.fromkeys(found))


def _metadata(url: str) -> str | None:
    """PEP 658 core metadata of a file (``<file url>.metadata``), None when the index has none."""
    import urllib.error

    from ..sources.http import open_url
    from ..sources.index import local_path

    local = local_path(url + ".metadata")
    if local is not None:
        return local.read_text(encoding="utf-8", errors="replace") if local.is_file() else None
    try:
        with open_url(url + ".metadata", timeout=10.0, limit="metadata") as resp:
            return resp.read().decode("utf-8", errors="replace")
    except urllib.error.HTTPError as exc:
        if exc.code in (404, 410):
            return None
        raise SourceError(f"{strip_secrets(url)}.metadata answered HTTP {exc.code}", url=strip_secrets(url)) from None
    except OSError as exc:
        raise SourceError(f"cannot read {strip_secrets(url)}.metadata: {exc}", url=strip_secrets(url)) from None


def _torch_pin(metadata: str) -> str | None:
    """The ``torch`` specifier of a companion's Requires-Dist (``==2.16.0`` / ``>=2.14.0``), ignoring extras."""
    for line in metadata.splitlines():
        if not line.lower().startswith("requires-dist:"):
            continue
        req = line.split(":", 1)[1].split(";", 1)[0].strip()
        m = re.match(r"^torch\s*\(?\s*([<>=!~][^)]*)\)?$", req, re.IGNORECASE)
        if m:
            return m.group(1).replace(" ", "")
    return None


@dataclass
class _Companion:
    pins: dict[str, str] = field(default_factory=dict)                         # version -> torch specifier
    untagged: dict[str, set[tuple[str, str]]] = field(default_factory=dict)   # version -> {(platform, tier)}


def _companion(base: str, tiers: list[str], project: str) -> _Companion:
    """Which torch each companion version pins (one file's metadata per version), and where its files carry
    no local tag (aarch64 CUDA companions often do not)."""
    out = _Companion()
    for tier in tiers:
        for f in _files(base, tier, project):
            facts = _wheel_facts(f.filename)
            if facts is None:
                continue
            version, local, tags = facts
            if local is None:
                out.untagged.setdefault(version, set()).update(
                    (p, tier) for t in tags for p in platforms_of(t.platform))
            if version in out.pins:
                continue
            meta = _metadata(f.url)
            pin = _torch_pin(meta) if meta else None
            if pin:
                out.pins[version] = pin
    return out


def _pair(torch_version: str, pins: dict[str, str]) -> str | None:
    """The companion built for ``torch_version``: an exact ``==`` pin first, else the newest whose spec admits it."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import Version

    exact = [v for v, spec in pins.items() if spec.lstrip("=") == torch_version and spec.startswith("==")]
    if exact:
        return exact[0]
    fits = []
    for v, spec in pins.items():
        try:
            if SpecifierSet(spec).contains(torch_version, prereleases=True):
                fits.append(v)
        except InvalidSpecifier:
            continue
    return max(fits, key=Version) if fits else None


# -- writing the overlay --------------------------------------------------------------------------------------
def _tier_key(tier: str) -> tuple[int, tuple[int, ...]]:
    from ..kb.model import vtuple

    digits = re.sub(r"^[a-z]+", "", tier)
    if tier.startswith("cu"):
        return (2, vtuple(f"{digits[:-1]}.{digits[-1]}" if len(digits) > 1 else digits))
    return (0, vtuple(digits)) if tier.startswith("rocm") else (1, ())


def _untagged_builds(rel: _Release, companions: dict[str, tuple[str | None, _Companion]]) -> dict[tuple[str, str], set[str]]:
    """(platform, tier) -> the packages whose build on that tier carries no local tag (macOS left out: its builds
    are PyPI's own), companions counted only on tiers torch has."""
    untagged = {k: set(v) for k, v in rel.untagged.items() if not k[0].startswith("macos")}
    for name, (version, found) in companions.items():
        for key in found.untagged.get(version or "", ()):
            if key[1] in rel.tiers.get(key[0], ()) and not key[0].startswith("macos"):
                untagged.setdefault(key, set()).add(name)
    return untagged


def _python_fields(rel: _Release) -> dict[str, Any]:
    """The series' Python lists: GIL and free-threaded minors, and the platforms of those not on every one."""
    from ..kb.model import vtuple

    minors = sorted(rel.pythons, key=lambda v: vtuple(v.rstrip("t")))
    every = set(rel.tiers)
    gil = [v for v in minors if not v.endswith("t")]
    return {"python": gil, "python_freethreaded": [v for v in minors if v.endswith("t")],
            "python_platforms": {v: sorted(rel.pythons[v]) for v in gil if rel.pythons[v] != every}}


def _series_entry(rel: _Release, companions: dict[str, tuple[str | None, _Companion]],
                  source: str) -> dict[str, Any]:
    from ..kb.model import vtuple

    vision, audio = (companions[n][0] for n in ("torchvision", "torchaudio"))
    untagged = _untagged_builds(rel, companions)
    entry: dict[str, Any] = {
        "minor": ".".join(rel.version.split(".")[:2]), "patches": [rel.version],
        "torchvision": [vision or ""], "torchaudio": [audio or ""],
        **_python_fields(rel),
        "experimental": [],
        "platforms": {p: sorted(ts, key=_tier_key, reverse=True) for p, ts in sorted(rel.tiers.items())},
        "pypi_default": {p: t for (p, t), names in sorted(rel.untagged.items()) if p.startswith("macos")},
        "untagged": {f"{p}/{t}": sorted(names) for (p, t), names in sorted(untagged.items())},
        "verified": False, "source": source,
        "notes": "from the index only: experimental tiers, PyPI's own builds and arch lists are not known",
    }
    if rel.glibc:
        entry["min_glibc"] = max(rel.glibc, key=vtuple)
    return entry


def _new_tier(tier: str, source: str, known: dict[str, Any]) -> dict[str, Any] | None:
    """A tier the recipes lack: its CUDA version from the name, floors from the same CUDA major [U]."""
    from ..kb.model import vtuple

    if tier.startswith("rocm"):
        return {"kind": "rocm", "verified": False, "source": source}
    m = re.match(r"^cu(\d+)(\d)$", tier)
    if not m:
        return None
    cuda = f"{int(m.group(1))}.{m.group(2)}"
    same_major = [t for t in known.values() if t.kind == "cuda" and t.cuda and t.cuda.split(".")[0] == m.group(1)]
    if not same_major:
        return None
    nearest = max(same_major, key=lambda t: vtuple(t.cuda or "0"))
    return {"kind": "cuda", "cuda": cuda, "compat": dict(nearest.compat), "strict": dict(nearest.compat),
            "verified": False,
            "source": f"{source}; driver floors of CUDA {cuda} taken from {nearest.name}'s minor-version floor [U]"}


def _cuda_from_pins(base: str, tier: str) -> tuple[str, str] | None:
    """(CUDA version, the pin it came from) of a tier, from one Linux torch wheel's PEP 658 metadata.

    Why: a wheel's Requires-Dist names the CUDA runtime it was built against, either
    ``nvidia-cuda-runtime-cu12==12.8.90`` or, in newer torch, NVIDIA's ``cuda-toolkit[cudart,...]==13.0.2``
    metapackage; the tier's name only suggests it. The file (and its metadata) may live on another host
    than the page, which is why the listed URL is used as it is.
    """
    from ..kb.pins import cuda_from_requires

    for f in _files(base, tier, "torch"):
        facts = _wheel_facts(f.filename)
        if facts is None or not any("linux-x86_64" in platforms_of(tag.platform) for tag in facts[2]):
            continue
        metadata = _metadata(f.url)
        if metadata is None:
            return None
        pins = [line.split(":", 1)[1].strip() for line in metadata.splitlines()
                if line.lower().startswith("requires-dist:")]
        cuda = cuda_from_requires(pins)
        if cuda:
            return cuda, next(p.split(";", 1)[0].strip() for p in pins if cuda_from_requires([p]))
        return None
    return None


def _with_pinned_cuda(info: dict[str, Any], base: str, tier: str) -> dict[str, Any]:
    pinned = _cuda_from_pins(base, tier) if info.get("kind") == "cuda" else None
    if pinned is None:
        return info
    cuda, pin = pinned
    return {**info, "cuda": cuda, "source": f"{info['source']}; CUDA {cuda} from torch's Requires-Dist {pin}"}


def _extras(seen: dict[str, _Release], shipped: dict[str, Any], source: str) -> list[dict[str, Any]]:
    """For releases the shipped recipes know: the (platform, tier) builds the index has that they do not list."""
    from ..kb.model import vtuple

    out = []
    for version, rel in sorted(seen.items(), key=lambda kv: vtuple(kv[0])):
        missing = {p: [t for t in ts if t not in shipped[version].tiers(p)] for p, ts in rel.tiers.items()}
        missing = {p: sorted(ts, key=_tier_key, reverse=True) for p, ts in missing.items() if ts}
        if missing:
            out.append({"version": version, "platforms": missing, "source": source})
    return out


def _render(series: list[dict[str, Any]], tiers: dict[str, dict[str, Any]], refreshed: dict[str, str],
            extras: Sequence[dict[str, Any]] = ()) -> str:
    lines = ["# Written by `torchenv recipes refresh`: torch releases read from an index, in the recipe format",
             "# of recipes/releases.toml and recipes/tiers.toml. The shipped recipes win for releases they know.",
             "", "[refresh]"]
    lines += [f"{k} = {tomltext.value(v)}" for k, v in refreshed.items()]
    for entry in series:
        lines += ["", "[[series]]"] + [f"{k} = {tomltext.value(v)}" for k, v in entry.items()]
    for name, info in tiers.items():
        lines += ["", f"[tier.{tomltext.string(name)}]"] + [f"{k} = {tomltext.value(v)}" for k, v in info.items()]
    for extra in extras:
        lines += ["", "[[extra]]"] + [f"{k} = {tomltext.value(v)}" for k, v in extra.items()]
    return "\n".join(lines) + "\n"


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + f".tmp{os.getpid()}")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


# -- the command's work ---------------------------------------------------------------------------------------
def _refuse_login(base: str, shown: str) -> None:
    if shown != base and "@" in urllib.parse.urlsplit(base).netloc:
        raise SourceError(f"recipes refresh --from {shown}: URLs with user:password@ are not supported "
                          "(the credentials would travel in every request and error message)", url=shown,
                          hint="refresh from an index that needs no login, or from a local folder copy of it")


def _entry_tiers(entries: Sequence[dict[str, Any]]) -> list[str]:
    """Every tier the entries' ``platforms`` tables name, first seen first."""
    return list(dict.fromkeys(t for e in entries for ts in e["platforms"].values() for t in ts))


def _new_series(base: str, tiers: list[str], new: dict[str, _Release], source: str) -> list[dict[str, Any]]:
    """One ``[[series]]`` entry per release the shipped recipes lack, with the companions paired to it."""
    from ..kb.model import vtuple

    vision = _companion(base, tiers, "torchvision") if new else _Companion()
    audio = _companion(base, tiers, "torchaudio") if new else _Companion()
    return [_series_entry(r, {"torchvision": (_pair(v, vision.pins), vision),
                              "torchaudio": (_audio(v, audio.pins), audio)}, source)
            for v, r in sorted(new.items(), key=lambda kv: vtuple(kv[0]))]


def _new_tiers(seen: list[str], base: str, source: str, shipped_tiers: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The tiers seen that the shipped recipes lack, each with its CUDA read from torch's pins where it can be."""
    out: dict[str, dict[str, Any]] = {}
    for tier in dict.fromkeys(seen):
        if tier in shipped_tiers or tier == "cpu":
            continue
        info = _new_tier(tier, source, shipped_tiers)
        if info:
            out[tier] = _with_pinned_cuda(info, base, tier)
    return out


def refresh(base: str = DEFAULT_INDEX, extra_tiers: tuple[str, ...] = ()) -> RefreshResult:
    """Read ``base`` (a download.pytorch.org-shaped index: ``<base>/<tier>/<project>/``, URL or folder) and
    write what the shipped recipes lack to the overlay (replacing an earlier overlay: a refresh is compared
    with the shipped recipes only, so nothing learnt before is lost when the index still has it).
    Raises ``SourceError`` when the index cannot be read."""
    from ..kb import load, query
    from ..kb.model import vtuple

    shown = strip_secrets(base)
    _refuse_login(base, shown)
    load.clear_cache()
    today = datetime.date.today().isoformat()
    source = f"index {shown}, read {today} by torchenv recipes refresh"
    shipped_tiers = query._tiers(load.recipe("tiers"))
    shipped = {r.version: r for r in query._releases(load.recipe("releases"))}
    tiers = list(dict.fromkeys([*shipped_tiers, *extra_tiers, *_tiers_on_combined_page(base)]))
    found = _collect(base, tiers)
    series = _new_series(base, tiers, {v: r for v, r in found.items() if v not in shipped}, source)
    extras = _extras({v: r for v, r in found.items() if v in shipped}, shipped, source)
    new_tiers = _new_tiers(_entry_tiers(series) + _entry_tiers(extras), base, source, shipped_tiers)
    path = overlay_path()
    _write(path, _render(series, new_tiers, {"source": shown, "date": today}, extras))
    load.clear_cache()
    return RefreshResult(overlay=path, source=shown, added=tuple(e["patches"][0] for e in series),
                         new_tiers=tuple(new_tiers), skipped=tuple(sorted(set(found) & set(shipped), key=vtuple)),
                         learnt=tuple(f"{e['version']} {t}" for e in extras for t in _entry_tiers([e])))


def _audio(torch_version: str, pins: dict[str, str]) -> str | None:
    """torch >= 2.12 pairs with the stable-ABI torchaudio 2.11.x of the recipes ("stable-abi")."""
    from ..kb.model import vtuple

    if vtuple(torch_version) >= (2, 12):
        return "stable-abi"
    return _pair(torch_version, pins)
