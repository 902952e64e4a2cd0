"""The knowledge base: facts about torch releases, wheel tiers, compiled GPU code, drivers and GPUs.

Why data + a query API: the facts (compat.md) change with every PyTorch release and get
corrected by hand in ``recipes/*.toml``; code asks questions through ``torchenv.kb``
and never hard-codes a version, tier or arch list.
"""
from __future__ import annotations

from .archs import ArchMatch
from .archs import match as arch_match
from .model import ArchSet, Release, TierInfo, vtuple
from .query import (
                    PLATFORMS,
                    companions,
                    compiled_archs,
                    cuda_version,
                    driver_floor,
                    driver_ok,
                    gpu_cc,
                    gpu_driver_floor,
                    gpu_family,
                    import_needs,
                    is_jetson,
                    pypi_default_tier,
                    release,
                    releases,
                    representative_gpu,
                    rocm_gfx,
                    stable_abi_torchaudio,
                    tier_info,
                    tiers_for,
                    torch_family,
)

__all__ = ["PLATFORMS", "ArchMatch", "ArchSet", "Release", "TierInfo", "arch_match", "companions", "compiled_archs",
           "cuda_version", "driver_floor", "driver_ok", "gpu_cc", "gpu_driver_floor", "gpu_family", "import_needs", "is_jetson",
           "pypi_default_tier", "release", "releases", "representative_gpu", "rocm_gfx", "stable_abi_torchaudio", "tier_info", "tiers_for",
           "torch_family", "vtuple"]
