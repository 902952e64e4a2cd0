"""Query API over the recipes: releases, tiers, compiled archs, driver floors, GPUs, the torch family.

Why a query layer: the resolver, doctor and verify ask questions ("which tiers does 2.8 have
on Windows?", "what does cu128 carry?") and should not know how the TOML is laid out, so a
hand correction to a recipe table never touches code. Everything is derived once per
process (``_index`` is cached) from ``recipes/*.toml``.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, cast

from .load import recipe
from .model import ArchSet, Release, TierInfo, vtuple

PLATFORMS = ("linux-x86_64", "linux-aarch64", "windows-x86_64", "macos-arm64", "macos-x86_64")


@dataclass(frozen=True)
class _Index:
    releases: tuple[Release, ...]                          # newest first
    by_version: dict[str, Release]
    archs: dict[tuple[str, str, str], ArchSet]             # (series, tier, platform)
    tiers: dict[str, TierInfo]
    families: dict[str, str]
    jetson_cc: frozenset[str]
    audio: dict[str, Any]
    gpu_driver_floor: dict[str, str]


def _releases(data: dict[str, Any], origin: str = "recipes") -> list[Release]:
    default_source = data.get("defaults", {}).get("source", "")
    out = []
    for entry in data["series"]:
        patches = entry["patches"]
        vision = entry.get("torchvision") or [None] * len(patches)
        audio = entry.get("torchaudio") or [None] * len(patches)
        if len(vision) != len(patches) or len(audio) != len(patches):
            raise ValueError(f"recipes/releases.toml: series {entry['minor']}: torchvision/torchaudio lists "
                             f"must have one entry per patch {patches}")
        for i, version in enumerate(patches):
            out.append(Release(
                version=version, series=entry["minor"],
                python=tuple(entry["python"]),
                python_experimental=frozenset(entry.get("python_experimental", ())),
                platforms={k: tuple(v) for k, v in entry["platforms"].items()},
                experimental=frozenset(entry.get("experimental", ())),
                pypi_default=dict(entry.get("pypi_default", {})),
                torchvision=vision[i],
                torchaudio=None if audio[i] == "stable-abi" else audio[i],
                triton=entry.get("triton"),
                min_glibc=entry.get("min_glibc"),
                min_glibc_aarch64=entry.get("min_glibc_aarch64", entry.get("min_glibc")),
                verified=entry.get("verified", True),
                notes=entry.get("notes", ""),
                source=entry.get("source", default_source),
                python_platforms={k: tuple(v) for k, v in entry.get("python_platforms", {}).items()},
                freethreaded=tuple(entry.get("python_freethreaded", ())),
                unlisted=frozenset(entry.get("unlisted", ())),
                unknown_kinds=frozenset(entry.get("unknown", ())), origin=origin,
                untagged={tuple(k.split("/", 1)): frozenset(v) for k, v in entry.get("untagged", {}).items()}))
    out.sort(key=lambda r: r.key, reverse=True)
    return out


def _archs(data: dict[str, Any]) -> dict[tuple[str, str, str], ArchSet]:
    out: dict[tuple[str, str, str], ArchSet] = {}
    for row in data["build"]:
        arch = ArchSet(sm=tuple(row["sm"]), ptx=row.get("ptx") or None, source=row.get("source", ""),
                       verified=row.get("verified", True))
        for series in row["series"]:
            for tier in row["tiers"]:
                for platform in row.get("platforms", ["linux-x86_64"]):
                    out[(series, tier, platform)] = arch     # later rows override earlier ones
    return out


def _tiers(data: dict[str, Any], origin: str = "recipes") -> dict[str, TierInfo]:
    return {name: TierInfo(name=name, kind=t["kind"], cuda=t.get("cuda"), compat=dict(t.get("compat", {})),
                           strict=dict(t.get("strict", {})), gfx=tuple(t.get("gfx", ())),
                           verified=t.get("verified", True), source=t.get("source", ""), origin=origin)
            for name, t in data["tier"].items()}


def _norm_name(name: str) -> str:
    return " ".join(name.lower().replace("-", " ").split())


@lru_cache(maxsize=1)
def _gpus() -> tuple[tuple[re.Pattern[str], str, bool, str], ...]:
    """(pattern, cc, jetson, name), longest name first; compiled only when a name must be looked up."""
    rows = []
    for entry in recipe("gpus")["gpu"]:
        for name in entry["names"]:
            pattern = re.compile(r"(?<![a-z0-9])" + re.escape(_norm_name(name)) + r"(?![a-z0-9])")
            rows.append((pattern, entry["cc"], bool(entry.get("jetson", False)), name))
    rows.sort(key=lambda r: len(r[3]), reverse=True)
    return tuple(rows)


def _with_overlay(rel: list[Release], tiers: dict[str, TierInfo]) -> list[Release]:
    """Add the refresh overlay's releases and tiers the shipped recipes lack (shipped facts always win)."""
    from .load import overlay

    extra = overlay()
    if not extra:
        return rel
    for name, info in _tiers({"tier": extra.get("tier", {})}, origin="overlay").items():
        tiers.setdefault(name, info)
    try:
        added = _releases({"series": extra.get("series", [])}, origin="overlay")
    except (KeyError, TypeError, ValueError) as exc:
        from ..errors import TorchenvError
        from .load import overlay_path

        raise TorchenvError(f"{overlay_path()}: a [[series]] entry is malformed ({exc!r})",
                            hint="run `torchenv recipes refresh` again, or delete that file") from None
    rel = [_with_learnt(r, extra.get("extra", [])) for r in rel]
    known = {r.version for r in rel}
    out = rel + [r for r in added if r.version not in known]
    out.sort(key=lambda r: r.key, reverse=True)
    return out


def _with_learnt(rel: Release, extras: list[dict[str, Any]]) -> Release:
    """A shipped release plus the tiers an index showed that its recipe entry lacks (``[[extra]]`` entries)."""
    from dataclasses import replace

    learnt: dict[str, list[str]] = {}
    for extra in extras:
        if extra.get("version") == rel.version:
            for platform, tiers in extra.get("platforms", {}).items():
                have = rel.platforms.get(platform, ())
                learnt.setdefault(platform, []).extend(t for t in tiers if t not in have)
    if not any(learnt.values()):
        return rel
    platforms = {**rel.platforms, **{p: rel.platforms.get(p, ()) + tuple(dict.fromkeys(ts))
                                     for p, ts in learnt.items()}}
    kinds = {tier_kind(t) for ts in learnt.values() for t in ts}
    return replace(rel, platforms=platforms, learnt=frozenset(t for ts in learnt.values() for t in ts),
                   unknown_kinds=rel.unknown_kinds - kinds)


def tier_kind(tier: str) -> str:
    """``cuda`` / ``rocm`` / ``cpu`` from a tier name (for tiers the recipes may not describe)."""
    return "rocm" if tier.startswith("rocm") else "cuda" if tier.startswith("cu") else "cpu"


@lru_cache(maxsize=1)
def _index() -> _Index:
    tiers_data = recipe("tiers")
    tiers = _tiers(tiers_data)
    rel = _with_overlay(_releases(recipe("releases")), tiers)
    gpus_data = recipe("gpus")
    floor = {k: v for k, v in tiers_data.get("gpu_driver_floor", {}).items() if k != "source"}
    return _Index(
        releases=tuple(rel), by_version={r.version: r for r in rel}, archs=_archs(recipe("archs")),
        tiers=tiers, families=dict(gpus_data.get("family", {})),
        jetson_cc=frozenset(gpus_data.get("jetson", {}).get("cc", ())),
        audio=recipe("releases").get("stable_abi_torchaudio", {}), gpu_driver_floor=floor)


# -- releases ------------------------------------------------------------------------------------------
def releases() -> tuple[Release, ...]:
    """Every known torch release, newest first."""
    return _index().releases


def release(version: str) -> Release | None:
    """The release ``"2.4.1"`` (a local tag is ignored), or None when the knowledge base does not know it."""
    return _index().by_version.get(version.partition("+")[0])


def tiers_for(rel: Release, platform: str) -> list[tuple[str, str]]:
    """``[(tier, "stable"|"experimental"), ...]`` with wheels for ``rel`` on ``platform``."""
    return [(t, rel.status(t)) for t in rel.tiers(platform)]


def pypi_default_tier(rel: Release, platform: str) -> str | None:
    """The tier of the file ``pip install torch==<rel>`` gets from PyPI on ``platform`` (None: no PyPI wheel)."""
    return rel.pypi_default.get(platform)


def companions(rel: Release, tier: str | None = None, platform: str | None = None) -> dict[str, str]:
    """Exact companion versions: ``{"torchvision": "0.19.1", "torchaudio": "2.4.1"}``.

    For torch >= 2.12 torchaudio is the stable-ABI 2.11.x build (compat.md §1c): 2.11.1 where a
    build for ``tier`` exists, else 2.11.0. When ``platform`` is given and ``tier`` is PyPI's default
    there, the PyPI file of that tier is preferred (a PyPI file carries no local tag).
    """
    out: dict[str, str] = {}
    if rel.torchvision:
        out["torchvision"] = rel.torchvision
    audio = rel.torchaudio or stable_abi_torchaudio(tier, platform if platform and tier and
                                                    pypi_default_tier(rel, platform) == tier else None)
    if audio:
        out["torchaudio"] = audio
    return out


def stable_abi_torchaudio(tier: str | None, pypi_platform: str | None = None) -> str | None:
    """The torchaudio 2.11.x build to pair with torch >= 2.12 on ``tier`` (None: no build for that tier).

    ``pypi_platform`` set: the plan takes torch from PyPI there, so pick the 2.11.x whose *PyPI* file
    is that tier's build. Otherwise pick the preferred version that has an index build for the tier.
    """
    audio = _index().audio
    builds = audio.get("builds", {})
    for version in cast("list[str]", audio.get("prefer", list(builds))):   # recipes/releases.toml
        build = builds.get(version, {})
        if pypi_platform is not None:
            if build.get("pypi", {}).get(pypi_platform) == tier:
                return version
        elif tier is None or tier in build.get("tiers", ()):
            return version
    if pypi_platform is not None:     # no PyPI file of that tier: fall back to an index build
        return stable_abi_torchaudio(tier)
    return None


# -- tiers, archs, drivers -----------------------------------------------------------------------------
def tier_info(tier: str) -> TierInfo | None:
    return _index().tiers.get(tier)


def cuda_version(tier: str) -> str | None:
    info = tier_info(tier)
    return info.cuda if info else None


def compiled_archs(rel: Release, tier: str, platform: str) -> ArchSet | None:
    """GPU code in ``rel``'s ``tier`` wheels on ``platform`` (None: unknown or not a CUDA tier).

    Windows without a Windows-specific row falls back to the Linux x86_64 row, marked unverified.
    """
    arch = _index().archs.get((rel.series, tier, platform))
    if arch is None and platform == "windows-x86_64":
        linux = _index().archs.get((rel.series, tier, "linux-x86_64"))
        if linux is not None:
            arch = ArchSet(sm=linux.sm, ptx=None, verified=False,
                           source=linux.source + "; Windows assumed equal to Linux without PTX [U]")
    if arch is None and (rel.origin == "overlay" or tier in rel.learnt):
        arch = _inferred_archs(rel, tier, platform)
    return arch


def _same_tier_rows(tier: str, major: str, platform: str, series: str) -> list[tuple[str, str, ArchSet]]:
    """(series, tier, archs) known for ``platform`` up to ``series``: of the same tier, else of the same CUDA major."""
    rows = [(s, t, a) for (s, t, p), a in _index().archs.items() if p == platform and vtuple(s) <= vtuple(series)]
    return [r for r in rows if r[1] == tier] or [r for r in rows if (cuda_version(r[1]) or "").split(".")[0] == major]


def _inferred_archs(rel: Release, tier: str, platform: str) -> ArchSet | None:
    """For a release learnt by ``recipes refresh``: the arch list of the newest known series with the same tier
    (else the same CUDA major) on the platform, marked unverified. Index pages cannot tell arch lists."""
    info = tier_info(tier)
    if info is None or info.kind != "cuda" or not info.cuda:
        return None
    look = "linux-x86_64" if platform == "windows-x86_64" else platform
    same = _same_tier_rows(tier, info.cuda.split(".")[0], look, rel.series)
    if not same:
        return None
    series, src_tier, arch = max(same, key=lambda r: (vtuple(r[0]), vtuple(cuda_version(r[1]) or "0")))
    return ArchSet(sm=arch.sm, ptx=None if platform == "windows-x86_64" else arch.ptx, verified=False,
                   source=f"inferred from torch {series} {src_tier} on {look} ({arch.source}); "
                          f"torch {rel.series} {tier} not read [U]")


def driver_floor(tier: str, os: str, policy: str = "compat") -> str | None:
    """Lowest NVIDIA driver for ``tier`` on ``os`` ("linux"/"windows") under ``policy`` ("compat"/"strict")."""
    info = tier_info(tier)
    if info is None or info.kind != "cuda":
        return None
    table = info.strict if policy == "strict" else info.compat
    return table.get("windows" if os == "windows" else "linux")


def driver_ok(driver: str, floor: str) -> bool:
    return vtuple(driver) >= vtuple(floor)


def gpu_driver_floor(cc: str) -> str | None:
    """Driver branch a GPU generation needs at all (Blackwell: R570) [U]."""
    return _index().gpu_driver_floor.get(cc.partition(".")[0])


def rocm_gfx(tier: str) -> tuple[str, ...]:
    info = tier_info(tier)
    return info.gfx if info else ()


# -- GPUs ----------------------------------------------------------------------------------------------
def gpu_cc(name: str) -> str | None:
    """Compute capability from a GPU name as the driver reports it, e.g. "NVIDIA GeForce GTX 1080 Ti" -> "6.1"."""
    norm = _norm_name(name)
    for pattern, cc, _jetson, _ in _gpus():
        if pattern.search(norm):
            return cc
    return None


def representative_gpu(cc: str) -> str | None:
    """A well-known GPU of this compute capability, for naming assumed GPUs: "6.1" -> "GTX 1080 Ti"."""
    for entry in recipe("gpus")["gpu"]:
        if entry["cc"] == cc and entry["names"]:
            return str(entry["names"][0])
    return None


def gpu_family(cc: str) -> str:
    """Architecture family for messages: "6.1" -> "Pascal"."""
    fam = _index().families
    return fam.get(cc) or fam.get(cc.partition(".")[0], "unknown architecture")


def is_jetson(cc: str | None, name: str = "") -> bool:
    """An integrated Jetson GPU (needs JetPack builds), judged by CC or by name."""
    if cc:                          # the CC decides: 5.3/6.2/7.2/8.7 exist only as Jetson; Thor (11.0) is SBSA
        return cc in _index().jetson_cc
    if not name:
        return False
    norm = _norm_name(name)
    if "jetson" in norm and "thor" not in norm:
        return True
    return any(j and pattern.search(norm) for pattern, _cc, j, _ in _gpus())


# -- packages -------------------------------------------------------------------------------------------
def import_needs(torch_version: str) -> tuple[str, ...]:
    """Requirements torch's import needs at ``torch_version`` without requiring them (``numpy<2``)."""
    v = vtuple(torch_version)
    return tuple(row["spec"] for row in recipe("packages").get("import_needs", [])
                 if vtuple(row.get("torch_from", "0")) <= v
                 and ("torch_below" not in row or v < vtuple(row["torch_below"])))


def torch_family() -> tuple[str, ...]:
    """Package names that must come from the tier's torch source (routing list)."""
    fam = recipe("packages")["family"]
    return tuple(fam["cuda_versioned"]) + tuple(fam["not_versioned"])


def cuda_versioned() -> frozenset[str]:
    return frozenset(recipe("packages")["family"]["cuda_versioned"])
