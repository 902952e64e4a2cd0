"""The English shapes of the probe's findings, so they can be shown translated.

Why templates and not ``_()`` where each finding is made: findings are data
(``Machine.findings`` is saved by ``probe --save``, read back by ``--machine FILE`` and shown
by ``probe --json``), so they are made in English; ``translate_finding`` matches one against
these shapes (``i18n.translate_rendered``) where it is shown to a person.
"""
from __future__ import annotations

from ..i18n import N_, translate_rendered

FINDING_TEXTS = (
    # probe/__init__.py
    N_("probing {what} failed unexpectedly ({error}); please report this with `torchenv probe --json`"),
    N_("WSL2 without a usable NVIDIA GPU: install or update the NVIDIA driver on Windows (never a Linux driver "
       "inside WSL); WSL exposes it under /usr/lib/wsl/lib"),
    # context.describe_failure (also inside other findings)
    N_("{tool} timed out after {seconds} s"),
    N_("{tool} could not be run (permission denied)"),
    N_("{tool} was found but could not be started ({error})"),
    N_("{tool} failed to run: {error}"),
    N_("{failure}; Apple chip name unknown"),
    # rocm.py
    N_("HSA_OVERRIDE_GFX_VERSION={override} is set: ROCm will run these GPUs ({gfx}) as that target instead"),
    N_("ROCm {version} is installed but the kernel lists no AMD GPU (is the amdgpu driver loaded?)"),
    # nvidia/detect.py
    N_("the loaded kernel module is {version} but NVML reports driver {driver}; a driver update may be "
       "waiting for a reboot"),
    N_("NVML failed ({error}); GPUs were read with nvidia-smi instead"),
    N_("NVIDIA kernel module loaded ({version}) but {why}; GPUs and their compute capability are unknown "
       "(reinstall the driver's user-space libraries, or reboot after a driver update)"),
    N_("no tool could list the GPUs"),
    N_("NVML failed: {error}"),
    N_("nvidia-smi was not found"),
    N_("no usable NVIDIA driver: {why}"),
    N_("{count} NVIDIA GPU(s) on the PCI bus but no NVIDIA driver is loaded: install the NVIDIA driver "
       "(torch's wheels bring CUDA themselves, not the driver)"),
    N_("NVIDIA driver {installed} is installed but reports no GPU"),
    N_("(unknown version)"),
    N_("compute capability of GPU {index} ({name}) is unknown: {reason}; pass --assume-gpu CC to plan for it"),
    N_("NVML did not report it"),
    N_("nvidia-smi did not report it"),
    N_("this nvidia-smi (driver {driver}) cannot report compute_cap"),
    N_("nvidia-smi crashed (signal {code}): {output}"),
    N_("nvidia-smi exited with status {code}: {output}"),
    N_("no output"),
    # assume.py
    N_("assumed driver {driver} with no --assume-gpu: the plan checks the driver only, not whether the build "
       "carries kernels for the GPU"),
    # nvidia/nvml.py, nvidia/smi.py
    N_("NVML could not report the CUDA version driver {driver} supports: {error}"),
    N_("NVML could not open GPU {index}: {error}"),
    N_("NVML could not read the {what} of GPU {index}: {error}"),
    N_("nvidia-smi printed a line torchenv could not read: {line}"),
    N_("nvidia-smi reported compute capability {cc} for GPU {index}; ignored"),
    # nvidia/visible.py
    N_("{shown} selects MIG instances; torchenv plans for their GPUs ({count} in all) without mapping each "
       "instance"),
    N_("{shown}: entry {entry} names no GPU here; CUDA ignores it and every entry after it"),
    N_("{shown} hides all {count} GPU(s): torch in this shell will see no GPU (unset it to use them)"),
    N_("{shown} hides {hidden} of {count} GPUs ({names}); planning for the visible ones"),
    # nvidia/kernel.py
    N_("{path} exists but does not hold a driver version ({raw})"),
    N_("{path} exists but its version line could not be read ({raw})"),
    # cuda_toolkits.py
    N_("{var}={value} holds no CUDA toolkit (no bin/nvcc): extension builds that read it will fail"),
)


def translate_finding(text: str) -> str:
    """A probe finding in the active language (English, unchanged, when it matches no shape)."""
    return translate_rendered(text, FINDING_TEXTS)
