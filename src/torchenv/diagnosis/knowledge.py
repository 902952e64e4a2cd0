"""The few knowledge-base questions doctor asks, phrased over ``torchenv.kb``.

Why a thin adapter: kb speaks in ``Release``/``ArchSet`` objects; doctor works with version strings read
from an env ("2.8.0+cu128") and arch labels as ``get_arch_list()`` prints them. Keeping the conversion
here means checks never import kb internals, and a kb gap (unknown release) reads as "unknown", not a crash.
"""
from __future__ import annotations

from typing import Any, cast


def _kb() -> Any:   # torchenv.kb, imported on first use; its answers are cast where returned
    from .. import kb

    return kb


def _vt(v: str) -> tuple[int, ...]:
    return cast("tuple[int, ...]", _kb().vtuple(v.split("+")[0]))


def minor_of(version: str) -> str:
    return ".".join(version.split("+")[0].split(".")[:2])


def _release(version: str) -> Any:
    return _kb().release(version.split("+")[0]) if version else None


def driver_floor(tier: str, os_name: str = "linux") -> str | None:
    """Lowest driver that runs a ``cuXYZ`` build (None for cpu/rocm or unknown tiers)."""
    return cast("str | None", _kb().driver_floor(tier, os_name))


def driver_ok(driver: str, floor: str) -> bool:
    return bool(_kb().driver_ok(driver, floor))


def tier_cuda(tier: str) -> str | None:
    """``cu128`` -> ``12.8``."""
    got: str | None = _kb().cuda_version(tier)
    if got:
        return got
    return f"{tier[2:-1]}.{tier[-1]}" if tier.startswith("cu") and tier[2:].isdigit() else None


def compiled_archs(version: str, tier: str, platform: str = "linux-x86_64") -> tuple[str, ...]:
    """Arch labels (``sm_86``, ``compute_120``) of the official ``tier`` wheels of that release; () if unknown."""
    rel = _release(version)
    archs = _kb().compiled_archs(rel, tier, platform) if rel else None
    return tuple(archs.labels()) if archs else ()


def gpu_label(cc: str) -> str:
    """``6.1`` -> ``sm_61, Pascal, e.g. GTX 1080 Ti`` so the user recognises their card."""
    kb = _kb()
    major, _, minor = cc.partition(".")
    example = kb.representative_gpu(cc)
    return f"sm_{major}{minor or 0}, {kb.gpu_family(cc)}" + (f", e.g. {example}" if example else "")


def companion_version(torch_version: str, name: str, tier: str | None = None) -> str | None:
    """The companion release paired with a torch release (``2.13.0`` -> torchvision ``0.28.0``)."""
    rel = _release(torch_version)
    return cast("str | None", _kb().companions(rel, tier).get(name)) if rel else None


def torch_for_companion(name: str, version: str) -> str | None:
    """Which torch a torchvision/torchaudio release was built for (reverse of the pin table)."""
    public = version.split("+")[0]
    for rel in _kb().releases():
        if getattr(rel, name, None) == public:
            return cast(str, rel.version)
    return None


def tiers_for(torch_version: str, platform: str = "linux-x86_64") -> tuple[str, ...]:
    """Tiers with wheels for that release on that platform, in kb's preference order."""
    rel = _release(torch_version)
    return tuple(t for t, _status in _kb().tiers_for(rel, platform)) if rel else ()


def pypi_default(torch_version: str, platform: str = "linux-x86_64") -> str | None:
    """The tier `pip install torch==X` gets from PyPI on that platform (compat.md §6c)."""
    rel = _release(torch_version)
    return _kb().pypi_default_tier(rel, platform) if rel else None


def releases() -> list[str]:
    """Every known torch release, newest first."""
    return [r.version for r in _kb().releases()]


def latest_torch() -> str | None:
    known = releases()
    return known[0] if known else None
