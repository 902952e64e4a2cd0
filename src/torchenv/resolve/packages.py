"""The exact torch-family pins of a plan: torch and its companions, each with version tag and source.

Why one place: the local-tag rule is easy to get subtly wrong. A PyPI file carries no local
tag (``2.4.1``) and is only used when the tier *is* PyPI's own build of that release on that
platform; every other build comes from the tier's torch index with its tag (``2.4.1+cu121``).
"""
from __future__ import annotations

from .. import kb
from ..errors import PlanRefused
from ..reasons import TORCHENV, reason
from .plan import FROM_PYPI, FROM_TORCH_INDEX, PlannedPackage


def planned_packages(rel: kb.Release, tier: str, platform: str, with_: tuple[str, ...]) -> tuple[PlannedPackage, ...]:
    pypi = kb.pypi_default_tier(rel, platform) == tier

    def pin(name: str, version: str, why: str) -> PlannedPackage:
        if pypi:
            return PlannedPackage(name, version, FROM_PYPI, why + f"; PyPI's own {tier} build, exactly pinned")
        if not rel.tagged(name, platform, tier):
            return PlannedPackage(name, version, FROM_TORCH_INDEX,
                                  why + f"; {tier} index file for {platform}, which carries no local tag")
        return PlannedPackage(name, f"{version}+{tier}", FROM_TORCH_INDEX, why + f"; {tier} build from the torch index")

    out = [pin("torch", rel.version, f"torch {rel.version}")]
    pairs = kb.companions(rel, tier, platform)
    for name in with_:
        version = pairs.get(name)
        if name == "torchaudio" and rel.torchaudio is None:
            if version is None:
                raise PlanRefused(reason("refuse.no_torchaudio", TORCHENV, tier=tier, version=rel.version),
                                  reasons=[reason("refuse.torchaudio_maintenance")],
                                  alternatives=[{"kind": "companions", "drop": "torchaudio",
                                                 "why": reason("refuse.without_torchaudio")}],
                                  hint=reason("hint.drop_torchaudio"))
            why = (f"torchaudio {version}: no torchaudio exists for torch >= 2.12; the 2.11 build uses the stable "
                   "ABI and works with every later torch (compat.md §1c)")
            audio_pypi = kb.stable_abi_torchaudio(tier, platform) if pypi else None
            if pypi and audio_pypi == version:
                out.append(PlannedPackage(name, version, FROM_PYPI, why + f"; PyPI's {tier} file"))
            else:
                out.append(pin(name, version, why) if not pypi else PlannedPackage(
                    name, f"{version}+{tier}", FROM_TORCH_INDEX, why + f"; {tier} build from the torch index"))
            continue
        if version is None:
            raise PlanRefused(reason("refuse.no_companion", TORCHENV, name=name, version=rel.version),
                              hint=reason("hint.drop_companion", name=name))
        out.append(pin(name, version, f"{name} {version} is the release built for torch {rel.version}"))
    return tuple(out)
