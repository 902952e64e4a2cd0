"""The probe's facts in the vocabulary of the wheel-variant proposals (PEP 825/826, drafts).

Why: a variant-aware installer asks *provider plugins* for the properties a machine supports,
as ``namespace :: feature :: value`` with the values in priority order, and matches them
against an index's ``{name}-{version}-variants.json``. torchenv already knows the same facts
(driver CUDA version, compute capabilities, gfx targets), so ``probe --json`` states them with
the names NVIDIA's provider uses (wheelnext/nvidia-variant-provider: ``cuda_version_lower_bound``,
``cuda_version_upper_bound``, ``sm_arch`` as CMake-style ``90_real``/``90_virtual``) and the
names of AMD's draft provider (``gfx_arch``, ``rocm_version``). Both proposals are drafts: the
names are the providers', not torchenv's, and may change with them.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..machine import Machine

SPEC = "PEP 825/826 wheel variants (drafts); nvidia names as in wheelnext/nvidia-variant-provider"
_CUDA_MAJORS = range(11, 16)      # the range NVIDIA's provider enumerates
_CUDA_MINORS = range(21)

Properties = dict[str, dict[str, list[str]]]     # namespace -> feature -> supported values, best first


def _cuda_lower_bounds(major: int, minor: int) -> list[str]:
    """Every ``cuda_version_lower_bound`` this driver satisfies, best (highest) first: 12.9 ... 12.0, 12, 11.20 ... 11."""
    out: list[str] = []
    for m in range(major, _CUDA_MAJORS.start - 1, -1):
        top = minor if m == major else _CUDA_MINORS.stop - 1
        out += [f"{m}.{n}" for n in range(top, -1, -1)] + [str(m)]
    return out


def _cuda_upper_bounds(major: int, minor: int) -> list[str]:
    """Every exclusive ``cuda_version_upper_bound`` above this driver's CUDA version, highest first."""
    out: list[str] = []
    for m in range(_CUDA_MAJORS.stop - 1, major - 1, -1):
        low = minor if m == major else -1
        out += [f"{m}.{n}" for n in range(_CUDA_MINORS.stop - 1, low, -1)]
        if m > major:
            out.append(str(m))
    return out


def _sm_arch(cc: str) -> list[str]:
    """Code that runs on the highest compute capability: its own major's SASS up to its minor, then PTX."""
    major, _, minor = cc.partition(".")
    return [f"{major}{n}_real" for n in range(int(minor or 0), -1, -1)] + [f"{major}0_virtual"]


def _nvidia(machine: Machine) -> dict[str, list[str]]:
    nv = machine.nvidia
    out: dict[str, list[str]] = {}
    if nv is None:
        return out
    parts = (nv.cuda_driver_version or "").split(".")
    if len(parts) >= 2 and all(p.isdigit() for p in parts[:2]) and int(parts[0]) in _CUDA_MAJORS:
        major, minor = int(parts[0]), int(parts[1])
        out["cuda_version_lower_bound"] = _cuda_lower_bounds(major, minor)
        out["cuda_version_upper_bound"] = _cuda_upper_bounds(major, minor)
    ccs = [g.cc_tuple for g in nv.gpus if g.cc_tuple]
    if ccs:
        top = max(ccs)
        out["sm_arch"] = _sm_arch(f"{top[0]}.{top[1]}")
    return out


def _amd(machine: Machine) -> dict[str, list[str]]:
    rocm = machine.rocm
    out: dict[str, list[str]] = {}
    if rocm is None:
        return out
    if rocm.gfx:
        out["gfx_arch"] = list(dict.fromkeys(rocm.gfx))
    if rocm.version:
        out["rocm_version"] = [rocm.version]
    return out


def supported_properties(machine: Machine) -> Properties:
    """What a variant provider would report for this machine; namespaces without facts are left out."""
    found = {"nvidia": _nvidia(machine), "amd": _amd(machine)}
    return {ns: features for ns, features in found.items() if features}


def variants_block(machine: Machine) -> dict[str, Any]:
    """The additive ``variants`` block of ``probe --json``."""
    props = supported_properties(machine)
    best = [f"{ns} :: {feature} :: {values[0]}" for ns, features in props.items() for feature, values in features.items()]
    return {"spec": SPEC, "properties": props, "best": best}
