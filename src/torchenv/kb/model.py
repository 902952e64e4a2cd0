"""Typed views over the recipe tables, so callers never index raw TOML dicts.

Why frozen dataclasses: the resolver compares and explains these facts; a typo in a key
should fail at load time in one place, not as a ``KeyError`` deep in a decision.
"""
from __future__ import annotations

from dataclasses import dataclass, field


def vtuple(version: str) -> tuple[int, ...]:
    """``"550.54.14"`` -> ``(550, 54, 14)``: numeric field-by-field order for torch and driver versions."""
    out = []
    for part in version.split("."):
        digits = "".join(ch for ch in part if ch.isdigit())
        out.append(int(digits) if digits else 0)
    return tuple(out)


@dataclass(frozen=True)
class Release:
    """One torch patch release and the facts that decide whether it fits a machine."""

    version: str                                  # "2.4.1"
    series: str                                   # "2.4"
    python: tuple[str, ...]                       # minors with wheels, oldest first
    python_experimental: frozenset[str]
    platforms: dict[str, tuple[str, ...]]         # platform key -> tiers with wheels there (preferred first)
    experimental: frozenset[str]                  # tiers RELEASE.md calls experimental
    pypi_default: dict[str, str]                  # platform key -> tier of PyPI's own build
    torchvision: str | None
    torchaudio: str | None                        # None: use the stable-ABI torchaudio 2.11.x
    triton: str | None = None
    min_glibc: str | None = None
    min_glibc_aarch64: str | None = None
    verified: bool = True
    notes: str = ""
    source: str = ""
    python_platforms: dict[str, tuple[str, ...]] = field(default_factory=dict)   # minor -> only these platforms
    freethreaded: tuple[str, ...] = ()            # free-threaded CPythons with wheels ("3.14t")
    unlisted: frozenset[str] = frozenset()        # tiers on the index that RELEASE.md's table does not list
    unknown_kinds: frozenset[str] = frozenset()   # "rocm": which builds of that kind exist is not known
    learnt: frozenset[str] = frozenset()          # tiers of a shipped release that only `recipes refresh` saw
    seen_on_index: frozenset[str] = frozenset()   # tiers a live index check found that the recipes lack
    origin: str = "recipes"                       # recipes (shipped) | overlay (`torchenv recipes refresh`)
    untagged: dict[tuple[str, str], frozenset[str]] = field(default_factory=dict)   # (platform, tier) -> packages
    #                                               whose files on that tier's index carry no local tag (+cu128)

    @property
    def key(self) -> tuple[int, ...]:
        return vtuple(self.version)

    def pythons(self, platform: str | None = None, *, freethreaded: bool = False) -> tuple[str, ...]:
        """Python minors with wheels on ``platform`` (all platforms when None), oldest first.

        Why per platform: a new CPython often gets wheels on one platform first (torch 2.5's cp313
        exists only for Linux x86_64, 1.10.2's cp310 only for aarch64; compat.md §8c).
        """
        pool = self.freethreaded if freethreaded else self.python
        if platform is None:
            return pool
        return tuple(v for v in pool if platform in self.python_platforms.get(v, (platform,)))

    def tagged(self, name: str, platform: str, tier: str) -> bool:
        """Do ``name``'s files for this release on the ``tier`` index of ``platform`` carry the ``+tier`` tag?"""
        return name not in self.untagged.get((platform, tier), frozenset())

    def has_python(self, minor: str, platform: str | None = None) -> bool:
        return minor in self.pythons(platform, freethreaded=minor.endswith("t"))

    def tiers(self, platform: str) -> tuple[str, ...]:
        return self.platforms.get(platform, ())

    def status(self, tier: str) -> str:
        return "experimental" if tier in self.experimental else "stable"


@dataclass(frozen=True)
class ArchSet:
    """GPU code in one build: SASS for ``sm`` (CCs as "8.6"), PTX for ``ptx`` (or None)."""

    sm: tuple[str, ...]
    ptx: str | None
    source: str = ""
    verified: bool = True

    def labels(self) -> tuple[str, ...]:
        """What ``torch.cuda.get_arch_list()`` would print: ``sm_86``..., then ``compute_120`` for PTX."""
        out = tuple("sm_" + cc.replace(".", "") for cc in self.sm)
        return out + (("compute_" + self.ptx.replace(".", ""),) if self.ptx else ())


@dataclass(frozen=True)
class TierInfo:
    name: str                       # cu121 | cpu | rocm6.2
    kind: str                       # cuda | rocm | cpu
    cuda: str | None = None         # "12.1"
    compat: dict[str, str] = field(default_factory=dict)   # os -> minimum driver (minor-version compat)
    strict: dict[str, str] = field(default_factory=dict)   # os -> toolkit GA driver
    gfx: tuple[str, ...] = ()       # ROCm GPU architectures carried (empty = unknown)
    verified: bool = True
    source: str = ""
    origin: str = "recipes"         # recipes | overlay (floors inferred by `torchenv recipes refresh`)
