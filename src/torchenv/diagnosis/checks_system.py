"""Checks of what surrounds the env: shell variables, shared-library resolution, toolkits, WSL, conda/pip mix.

Why apart from the build checks: the same correct env breaks in one shell and works in another
(``LD_LIBRARY_PATH`` of an HPC module, ``CUDA_VISIBLE_DEVICES=""`` from a job script), so these
findings name the variable or path to change rather than a package to reinstall.
"""
from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

from ..i18n import _
from . import syslibs
from .model import Context, EnvFacts, Finding

if TYPE_CHECKING:
    from ..machine import Machine


def _major(v: str | None) -> str | None:
    return v.split(".")[0] if v else None


def _selects_a_gpu(entry: str, n: int, uuids: set[str]) -> bool:
    """A CUDA_VISIBLE_DEVICES entry names a GPU: an index below the count, or a (prefix of a) known UUID."""
    if entry.isdigit():
        return int(entry) < n
    return entry.startswith(("GPU-", "MIG-")) and (not uuids or any(u.startswith(entry) for u in uuids))


def check_visible_devices(machine: Machine, env: EnvFacts | None, ctx: Context) -> list[Finding]:
    value = ctx.environ.get("CUDA_VISIBLE_DEVICES")
    if value is None or not machine.gpus:
        return []
    entries = [e.strip() for e in value.split(",")]
    n = len(machine.gpus)
    uuids = {g.uuid for g in machine.gpus if g.uuid}
    if entries and _selects_a_gpu(entries[0], n, uuids):   # CUDA stops at the first invalid entry
        return []
    return [Finding("error", _("CUDA_VISIBLE_DEVICES hides every GPU"),
                    _("CUDA_VISIBLE_DEVICES={value!r} selects none of the {n} GPU(s) ({items}), so "
                      "torch.cuda.is_available() is False and device_count() is 0.").format(
                        value=value, n=n, items=', '.join(g.name for g in machine.gpus)),
                    "unset CUDA_VISIBLE_DEVICES", "cuda-visible-devices",
                    ("export CUDA_VISIBLE_DEVICES=" + ",".join(str(i) for i in range(n)),))]


def check_pip_conda_mix(machine: Machine, env: EnvFacts | None, ctx: Context) -> list[Finding]:
    if env is None or not env.conda_torch or not env.pip_torch:
        return []
    from . import fixes

    prefix = shlex.quote(env.prefix)
    tier = env.tier or "cpu"
    reinstall = fixes.pip_install(env, [f"torch=={env.torch_public}+{tier}"], fixes.index_url(tier, ctx.torch_mirror))
    return [Finding("error", _("torch installed by both conda and pip in one env"),
                    _("conda-meta records {items} while site-packages holds a torch dist-info installed by "
                      "{installer}; files of one overwrite the other, and conda's CUDA libraries may be loaded by "
                      "pip's torch (or the reverse). Keep one source per env.").format(
                        items=', '.join(env.conda_torch), installer=env.installer),
                    f"conda remove -p {prefix} --force pytorch && {reinstall} --force-reinstall",
                    "pip-conda-mixed", ("torchenv up",))]


def check_wsl(machine: Machine, env: EnvFacts | None, ctx: Context) -> list[Finding]:
    if not machine.wsl:
        return []
    wsl_lib = Path(ctx.root) / "usr/lib/wsl/lib"
    if list(wsl_lib.glob("libcuda.so*")):
        return []
    return [Finding("error", _("WSL2 without the NVIDIA driver libraries"),
                    _("/usr/lib/wsl/lib/libcuda.so* is missing: under WSL2 the GPU driver comes from the Windows "
                      "NVIDIA driver, mapped into /usr/lib/wsl/lib. Never install a Linux NVIDIA driver inside WSL."),
                    _("update the NVIDIA driver on Windows, then run `wsl --shutdown` in PowerShell and reopen WSL"),
                    "wsl-no-driver-libs")]


def _ld_without(ctx: Context, bad: set[str]) -> str:
    keep = [d for d in ctx.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep) if d and d not in bad]
    return "export LD_LIBRARY_PATH=" + shlex.quote(os.pathsep.join(keep)) if keep else "unset LD_LIBRARY_PATH"


def _foreign_cudart(env: EnvFacts, ctx: Context) -> list[tuple[str, str, str]]:
    """(dir, file, CUDA major) of each libcudart on LD_LIBRARY_PATH of another CUDA major than torch's."""
    want = _major(env.cuda_level)
    if not want:
        return []
    return [(d, f, m) for d, f, m in syslibs.cudart_on_ld_path(ctx.environ) if m != want]


def _shadowed_finding(env: EnvFacts, ctx: Context, foreign: list[tuple[str, str, str]]) -> Finding:
    dirs = {d for d, _, _ in foreign}
    return Finding(
        "error", _("LD_LIBRARY_PATH puts another CUDA's runtime ahead of torch's"),
        _("{files} (CUDA {cuda}) is found through LD_LIBRARY_PATH before the wheel's own nvidia/*/lib (CUDA "
          "{torch_cuda}); loading torch fails with 'libcudart.so...: cannot open shared object file' or "
          "undefined symbols.").format(files=", ".join(f"{d}/{f}" for d, f, _cuda in foreign),
                                      cuda=foreign[0][2], torch_cuda=env.cuda_level),
        _ld_without(ctx, dirs), "ld-shadowed", ("module purge   # when an HPC module set it",))


_SYSTEM_LIB_DIRS = ("/usr/lib/wsl", "/lib", "/usr/lib")


def _is_cuda_lib(name: str) -> bool:
    return "cuda" in name or "cudnn" in name or "cublas" in name


def _ldd_findings(env: EnvFacts, ctx: Context, lib: Path, resolved: dict[str, str | None],
                  shadowed: bool) -> list[Finding]:
    """What ldd of libtorch_cuda.so says: libraries not found, and CUDA libraries taken from outside the env (not
    repeated when LD_LIBRARY_PATH's shadowing is already reported)."""
    out = []
    missing = sorted(k for k, v in resolved.items() if v is None)
    if missing:
        out.append(Finding(
            "error", _("Shared libraries of torch cannot be found"),
            _("ldd {lib}: {items} not found; import torch fails with 'cannot open shared object file'. The "
              "nvidia-* wheels torch depends on are missing or incomplete.").format(
                lib=lib, items=', '.join(missing)),
            f"{shlex.quote(env.interpreter or 'python')} -m pip install --force-reinstall torch=={env.torch_version}",
            "libs-missing"))
    elsewhere = sorted(f"{k} => {v}" for k, v in resolved.items()
                       if v and _is_cuda_lib(k) and not v.startswith(env.prefix) and not v.startswith(_SYSTEM_LIB_DIRS))
    if elsewhere and not shadowed:
        out.append(Finding("warning", _("torch's CUDA libraries resolve outside the env"),
                           f"ldd {lib}: {'; '.join(elsewhere)}", _ld_without(ctx, {
                               str(Path(v.split(' => ')[1]).parent) for v in elsewhere}), "ld-shadowed"))
    return out


def check_library_resolution(machine: Machine, env: EnvFacts | None, ctx: Context) -> list[Finding]:
    """A libcudart of another CUDA ahead of the wheel's own (LD_LIBRARY_PATH), or libraries ldd cannot find."""
    if env is None or not (env.tier or "").startswith("cu"):
        return []
    foreign = _foreign_cudart(env, ctx)
    out = [_shadowed_finding(env, ctx, foreign)] if foreign else []
    lib = Path(env.torch_lib_dir or "") / "libtorch_cuda.so"
    if not (ctx.run_subprocesses and env.torch_lib_dir and lib.is_file()):
        return out
    resolved = syslibs.ldd(lib, ctx.environ)
    if resolved:
        out += _ldd_findings(env, ctx, lib, resolved, bool(foreign))
    return out


def check_toolkits(machine: Machine, env: EnvFacts | None, ctx: Context) -> list[Finding]:
    found = syslibs.toolkit_versions(ctx.environ)
    if len(found) < 2:
        return []
    listing = "; ".join(f"{v}: {', '.join(w)}" for v, w in sorted(found.items()))
    keep = env.cuda_level if env and env.cuda_level in found else sorted(found)[-1]
    return [Finding("warning", _("Several CUDA toolkits on PATH/LD_LIBRARY_PATH ({items})").format(
                                   items=', '.join(sorted(found))),
                    _("{listing}. Which nvcc and which libcudart load then depends on order; builds of extensions "
                      "and imports may mix versions.").format(listing=listing),
                    f"module purge && module load cuda/{keep}", "several-toolkits",
                    (f"export CUDA_HOME=/usr/local/cuda-{keep}  # and drop the other cuda-* entries from PATH "
                     "and LD_LIBRARY_PATH",))]


def check_nvcc(machine: Machine, env: EnvFacts | None, ctx: Context) -> list[Finding]:
    if env is None or not env.cuda_level or not ctx.run_subprocesses:
        return []
    nvcc = syslibs.find_nvcc(ctx.environ)
    if nvcc is None:
        return []
    found = syslibs.nvcc_version(nvcc, ctx.environ)
    want = ".".join(env.cuda_level.split(".")[:2])
    if not found or found == want:
        return []
    severity = "error" if _major(found) != _major(want) else "warning"
    if env.kind == "conda":
        fix = f"conda install -p {shlex.quote(env.prefix)} -c nvidia cuda-nvcc={want}"
    elif ctx.environ.get("MODULESHOME") or ctx.environ.get("LMOD_CMD"):
        fix = f"module load cuda/{want}"
    else:
        fix = f"export CUDA_HOME=/usr/local/cuda-{want} PATH=/usr/local/cuda-{want}/bin:$PATH"
    return [Finding(severity, _("nvcc {found} differs from torch's CUDA {want}").format(found=found, want=want),
                    _("{nvcc} is CUDA {found} but torch {torch_version} was built with CUDA {want}. Building "
                      "extensions (torch.utils.cpp_extension, DeepSpeed, apex, flash-attn) fails with 'The "
                      "detected CUDA version mismatches the version that was used to compile PyTorch' or ABI "
                      "errors. Running torch itself is unaffected.").format(
                        nvcc=nvcc, found=found, torch_version=env.torch_version, want=want), fix, "nvcc-mismatch",
                    (f"conda install cuda-nvcc={want}", f"module load cuda/{want}",
                     f"export CUDA_HOME=/usr/local/cuda-{want}"))]


CHECKS = (check_visible_devices, check_pip_conda_mix, check_wsl, check_library_resolution, check_toolkits,
          check_nvcc)


def run_all(machine: Machine, env: EnvFacts | None, ctx: Context) -> list[Finding]:
    out: list[Finding] = []
    for check in CHECKS:
        out += check(machine, env, ctx)
    return out
