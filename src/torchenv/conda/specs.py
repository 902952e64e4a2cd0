"""From a Plan to the conda request: channels, match specs, and why each spec looks as it does.

Why here and not in the resolver: the resolver decides tier, torch version and Python; this
module only spells that decision in conda's words (``pytorch 2.5.1 cuda*``,
``cuda-version 12.6.*``, ``cuda-nvcc 12.6.*``), so ``plan`` and ``up`` show the same reasons.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..i18n import _
from .channels import channel_name, channel_url

if TYPE_CHECKING:
    from ..resolve.plan import Plan

LEGACY_LAST_TORCH = (2, 5)          # the `pytorch` channel stopped at 2.5 (pytorch/pytorch#138506)
# CUDA toolkit parts whose version must follow the torch tier's CUDA (conda-forge and nvidia names).
_TOOLKIT = re.compile(r"^(cuda-(?!version$).+|cudatoolkit|cudatoolkit-dev|libcublas.*|libcusparse.*|"
                      r"libcufft.*|libcurand.*|libcusolver.*|libnvjitlink.*|libnpp.*)$")
_NAME = re.compile(r"^[A-Za-z0-9_.\-]+")


@dataclass(frozen=True)
class CondaRequest:
    channels: tuple[str, ...]       # canonical base URLs, in priority order
    specs: tuple[str, ...]          # conda match specs
    torch_from_conda: bool          # True: pytorch is a conda package; False: torch wheels go in the prefix
    reasons: tuple[str, ...]


def spec_name(spec: str) -> str:
    match = _NAME.match(spec.strip())
    return match.group(0).lower() if match else spec.strip()


def _is_bare(spec: str) -> bool:
    return spec.strip().lower() == spec_name(spec)


def _version_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", version)[:2])


def _toolkit_pins(user: list[str], cuda: str | None, tier: str, reasons: list[str]) -> bool:
    """Pin bare CUDA toolkit specs of ``[conda] packages`` (in place) to the tier's CUDA; True when a CUDA
    package asks for a ``cuda-version`` to hold the prefix at that CUDA."""
    wants_cuda_version = False
    for i, spec in enumerate(user):
        name = spec_name(spec)
        if not _TOOLKIT.match(name):
            continue
        if cuda is None:
            reasons.append(_("{name}: kept as written ({spec}); the torch tier is {tier}, so no CUDA version to "
                             "match it to").format(name=name, spec=repr(spec), tier=tier))
            continue
        wants_cuda_version = True
        if _is_bare(spec):
            user[i] = f"{name} {cuda}.*"
            reasons.append(_("{name} pinned to {cuda}.* to match torch tier {tier} (CUDA {cuda}), so nvcc compiles "
                             "extensions for the CUDA torch was built with").format(name=name, cuda=cuda, tier=tier))
        else:
            reasons.append(_("{name}: kept as written ({spec}); torch tier {tier} is CUDA {cuda}").format(
                name=name, spec=repr(spec), tier=tier, cuda=cuda))
    return wants_cuda_version


def conda_request(plan: Plan) -> CondaRequest:
    """The specs to solve for ``plan``; raises ``IntentError`` for a combination conda cannot serve."""
    intent = plan.intent
    conda = intent.conda
    file = str(intent.file) if intent.file else None
    channels = tuple(channel_url(c) for c in conda.channels)
    legacy = any(channel_name(c).rstrip("/").split("/")[-1] == "pytorch" for c in channels)
    cuda = plan.cuda_version if plan.tier.startswith("cu") else None
    specs = [f"python {plan.python}.*"]
    reasons = [_("python {python} from conda channels {channels} (the resolver chose Python {python})").format(
        python=plan.python, channels=", ".join(channel_name(c) for c in channels))]
    user = list(conda.packages)
    wants_cuda_version = _toolkit_pins(user, cuda, plan.tier, reasons)
    torch_from_conda = conda.torch_source == "conda"
    if torch_from_conda:
        specs += _conda_torch_specs(plan, cuda, legacy, reasons, file)
        wants_cuda_version = wants_cuda_version or (cuda is not None and not legacy)
    else:
        reasons.append(_("torch stack from the {tier} wheel index (the venv engine's rules), installed into the "
                         "prefix's Python; conda packages: Python and [conda] packages only").format(tier=plan.tier))
    if wants_cuda_version and cuda and not legacy and not any(spec_name(s) == "cuda-version" for s in user):
        specs.append(f"cuda-version {cuda}.*")
        reasons.append(_("cuda-version {cuda}.* keeps every CUDA package in the prefix at CUDA {cuda} (torch tier "
                         "{tier})").format(cuda=cuda, tier=plan.tier))
    specs += user
    return CondaRequest(channels=channels, specs=tuple(specs), torch_from_conda=torch_from_conda,
                        reasons=tuple(reasons))


def _conda_torch_specs(plan: Plan, cuda: str | None, legacy: bool, reasons: list[str],
                       file: str | None) -> list[str]:
    from ..errors import IntentError

    version = plan.torch_version.split("+")[0]
    companions = [c for c in plan.intent.torch.with_]
    if plan.tier.startswith("rocm"):
        raise IntentError(_("conda channels have no ROCm build of pytorch (tier {tier})").format(tier=plan.tier),
                          file=file,
                          key="conda.torch-source",
                          hint=_('use torch-source = "wheels" to get ROCm torch wheels inside the conda prefix'))
    if legacy:
        if _version_tuple(version) > LEGACY_LAST_TORCH:
            raise IntentError(_("the `pytorch` conda channel stopped at torch 2.5; torch {version} is not "
                                "there").format(version=version),
                              file=file, key="conda.channels",
                              hint=_('drop "pytorch"/"nvidia" from [conda] channels (conda-forge has newer '
                                     "builds), or ask for torch <= 2.5 (--torch 2.5)"))
        variant = f"pytorch-cuda {cuda}.*" if cuda else "cpuonly"
        reasons.append(_("legacy `-c pytorch` scheme (torch <= 2.5): pytorch {version} with {variant}").format(
            version=version, variant=variant.split()[0] + (" " + cuda if cuda else "")))
        return [f"pytorch =={version}", variant, *companions]
    build = "cuda*" if cuda else "cpu*"
    reasons.append(_("pytorch {version} {build} from {channels} (torch-source = \"conda\"; tier {tier})").format(
        version=version, build=build, channels=", ".join(channel_name(c) for c in plan.intent.conda.channels),
        tier=plan.tier))
    if companions:
        reasons.append(_("{packages}: versions chosen by the conda solver to match pytorch {version}").format(
            packages=", ".join(companions), version=version))
    return [f"pytorch =={version} {build}", *companions]
