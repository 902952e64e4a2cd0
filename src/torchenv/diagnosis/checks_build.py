"""Checks of the torch build against the machine: CPU build on a GPU box, driver floor, GPU archs, companions.

Why these together: they need only the env's files and the machine facts (probe or ``--assume-*``),
so they are exact and cheap, and they are the causes behind most "CUDA doesn't work" reports.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..i18n import _
from . import archscan, fixes, knowledge
from .model import Context, EnvFacts, Finding

if TYPE_CHECKING:
    from ..machine import Machine
    from .model import Companion


def _gpu_names(machine: Machine) -> str:
    return ", ".join(f"{g.name} (CC {g.compute_capability or '?'})" for g in machine.gpus) or _("none")


def _tier_fix(machine: Machine, env: EnvFacts, ctx: Context) -> tuple[str | None, tuple[str, ...], str]:
    """(fix, alternatives, sentence) moving the env to a tier that runs here."""
    found = fixes.working_tier(machine, env.torch_public, env.python)
    if not found:
        return None, (), _("no official build of a known release runs on this machine")
    version, tier = found
    pip_cmd, te_cmd = fixes.install_build(env, version, tier, ctx.torch_mirror)
    return pip_cmd, (te_cmd,), _("torch {version} for {tier} runs here").format(version=version, tier=tier)


def check_cpu_build(machine: Machine, env: EnvFacts, ctx: Context) -> list[Finding]:
    if env.tier != "cpu" or not machine.gpus:
        return []
    fix, alts, why = _tier_fix(machine, env, ctx)
    return [Finding("error", _("CPU-only torch on a machine with an NVIDIA GPU"),
                    _("torch {version} has no CUDA (torch.version.cuda is None), so "
                      "torch.cuda.is_available() is False and .cuda() raises 'Torch not compiled with CUDA "
                      "enabled'. GPUs here: {gpus}. {why}.").format(
                        version=env.torch_version, gpus=_gpu_names(machine), why=why), fix, "cpu-build", alts)]


def check_driver(machine: Machine, env: EnvFacts, ctx: Context) -> list[Finding]:
    tier = env.tier or ""
    if not tier.startswith("cu"):
        return []
    if not machine.driver:
        if machine.gpus or machine.wsl:
            return [Finding("error", _("No NVIDIA driver found for this CUDA build"),
                            _("torch {version} needs the NVIDIA driver (libcuda.so), which the probe did "
                              "not find; torch reports 'Found no NVIDIA driver on your system'.").format(
                                version=env.torch_version),
                            _("install the NVIDIA driver (Linux: your distribution's nvidia-driver package; "
                              "WSL2: the Windows driver only), then reboot"), "no-driver")]
        return [Finding("info", _("CUDA build on a machine without an NVIDIA GPU"),
                        _("torch {version} runs on the CPU here; the CPU build is much smaller.").format(
                            version=env.torch_version),
                        fixes.pip_install(env, [f"torch=={env.torch_public}+cpu"], fixes.index_url("cpu", ctx.torch_mirror)),
                        "no-driver")]
    floor = knowledge.driver_floor(tier, machine.os)
    if not floor or knowledge.driver_ok(machine.driver, floor):
        return []
    fix, alts, why = _tier_fix(machine, env, ctx)
    return [Finding("error", _("NVIDIA driver {driver} is too old for this {tier} build").format(
                        driver=machine.driver, tier=tier),
                    _("torch {version} bundles CUDA {cuda}, which needs driver >= {floor}; CUDA calls fail with "
                      "'CUDA driver version is insufficient for CUDA runtime version'. Either upgrade the driver "
                      "to >= {floor} or install an older CUDA build: {why}.").format(
                        version=env.torch_version, cuda=knowledge.tier_cuda(tier), floor=floor, why=why),
                    fix, "driver-too-old", alts)]


def check_archs(machine: Machine, env: EnvFacts, ctx: Context) -> list[Finding]:
    if not env.archs or not (env.tier or "").startswith("cu"):
        return []
    out = []
    for gpu in machine.gpus:
        cc = gpu.cc_tuple
        if cc is None or archscan.runs_on(env.archs, cc):
            continue
        fix, alts, why = _tier_fix(machine, env, ctx)
        label = knowledge.gpu_label(gpu.compute_capability or "")
        out.append(Finding(
            "error", _("GPU with compute capability {cc} ({label}) is not supported by torch {version}").format(
                cc=gpu.compute_capability, label=label, version=env.torch_version),
            _("{gpu}: compute capability {cc} needs sm_{major}x code with minor <= {minor} or PTX "
              "<= compute_{major}{minor}; torch {version} carries {archs} ({source}). Kernels fail with "
              "'CUDA error: no kernel image is available for execution on the device'. {why}.").format(
                gpu=gpu.name, cc=gpu.compute_capability, major=cc[0], minor=cc[1], version=env.torch_version,
                archs=" ".join(env.archs), source=env.archs_source, why=why), fix, "arch-missing", alts))
    return out


def _tag(version: str | None) -> str | None:
    return version.split("+", 1)[1] if version and "+" in version else None


def _companion_reasons(env: EnvFacts, comp: Companion) -> list[str]:
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    torch_v = env.torch_public or ""
    reasons = []
    if comp.torch_requirement:
        try:
            if not SpecifierSet(comp.torch_requirement).contains(torch_v, prereleases=True):
                reasons.append(f"its METADATA requires torch{comp.torch_requirement}")
        except InvalidSpecifier:
            pass
    paired = knowledge.torch_for_companion(comp.name, comp.version)
    stable_abi = comp.name == "torchaudio" and comp.version.startswith("2.11") \
        and knowledge._vt(torch_v) >= (2, 11)
    if paired and knowledge.minor_of(paired) != knowledge.minor_of(torch_v) and not stable_abi and not reasons:
        reasons.append(f"{comp.name} {comp.version} was released for torch {paired}")
    ctag, ttag = _tag(comp.build_version) or _tag(comp.version), env.tier
    if ctag and ttag and ctag != ttag:
        reasons.append(f"it is a {ctag} build while torch is {ttag}")
    return reasons


def check_companions(machine: Machine, env: EnvFacts, ctx: Context) -> list[Finding]:
    out = []
    for comp in env.companions:
        reasons = _companion_reasons(env, comp)
        if not reasons:
            continue
        tier = env.tier or "cpu"
        want = knowledge.companion_version(env.torch_public or "", comp.name, tier)
        remove = fixes.pip_uninstall(env, [comp.name])
        if want:
            fix = fixes.pip_install(env, [f"{comp.name}=={want}+{tier}"], fixes.index_url(tier, ctx.torch_mirror))
            alts: tuple[str, ...] = (remove, f"torchenv up --torch {env.torch_public} --cuda {tier} --with {comp.name}")
            pair = f"The {comp.name} for torch {env.torch_public} is {want} ({tier} build)"
        else:
            fix, alts, pair = remove, (), f"No {comp.name} release is known for torch {env.torch_public}"
        shown = comp.build_version or comp.version
        out.append(Finding(
            "error", f"{comp.name} {shown} was built for another torch than {env.torch_version}",
            f"{'; '.join(reasons)}. Importing it fails ('operator torchvision::nms does not exist' or "
            f"'undefined symbol' in its _C.so). {pair}. If the project does not use {comp.name}, remove it: "
            f"{remove}", fix, "companion-mismatch", alts))
    return out


CHECKS = (check_cpu_build, check_driver, check_archs, check_companions)


def run_all(machine: Machine, env: EnvFacts, ctx: Context) -> list[Finding]:
    if not env.torch_version:
        return [Finding("info", _("No torch in this environment"),
                        _("no torch dist-info under {where}").format(where=", ".join(env.site_packages) or env.prefix),
                        "torchenv up", "no-torch")]
    out: list[Finding] = []
    for check in CHECKS:
        out += check(machine, env, ctx)
    return out
