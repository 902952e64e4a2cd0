"""The English shapes of verify's check names, details and hints, so the report can be shown translated.

Why templates and not ``_()`` at each string: the checks run in the environment's own interpreter
(``checks_script.py``, stdlib only, no torchenv import) and their text is data (``verify --json``,
``.torchenv/verify.json``) that stays English; ``render_report`` matches each text against these
templates (``i18n.translate_rendered``) and shows the catalogue's text with the same values.
"""
from __future__ import annotations

from ..i18n import N_

CHECK_TEXTS = (
    # check names
    N_("import torch"), N_("torch version"), N_("torch build"), N_("torchvision ops"), N_("accelerator"),
    N_("devices"), N_("arch {device}"), N_("matmul {device}"), N_("backward {device}"), N_("autocast {device}"),
    N_("conv2d {device}"), N_("train {device}"),
    # runner (the interpreter itself)
    N_("no Python interpreter at {python}"),
    N_("create the environment with `torchenv up`"),
    N_("could not start {python}: {error}"),
    N_("the environment is broken; recreate it with `torchenv up`"),
    N_("timed out after {seconds} s while running this check"),
    N_("a hung GPU or driver is the usual cause; `torchenv doctor` inspects without importing torch"),
    N_("the interpreter died ({how}) while running this check; stderr tail:\n{tail}"),
    N_("the interpreter died ({how}) while running this check"),
    N_("run `torchenv doctor` to diagnose the environment without importing torch"),
    # checks_script: runner
    N_("skipped: {check} failed"),
    N_("not applicable: {why}"),
    # import
    N_("import torch failed: {error}"),
    N_("a CUDA library torch needs is missing or from another CUDA major; reinstall with `torchenv up` "
       "(or run `torchenv doctor`)"),
    N_("torch {version} imported in {seconds} s from {folder}"),
    # versions
    N_("{version} (no lock version to compare)"),
    N_("installed torch {version}, lock expects {want}"),
    N_("cuDNN could not be loaded: {error}"),
    N_("the nvidia-cudnn wheel is missing or mismatched; reinstall with `torchenv up`"),
    N_("CUDA {cuda} build, cuDNN {cudnn} (lock: CUDA {want})"),
    N_("CUDA {cuda} build, cuDNN {cudnn}"),
    N_("CUDA {cuda} build, no cuDNN"),
    N_("ROCm/HIP {version} build"),
    N_("CPU-only build (no CUDA)"),
    N_("the CPU wheel was installed instead of the CUDA one; run `torchenv up`"),
    N_("reinstall the locked build with `torchenv up`"),
    N_("{build}, lock expects ROCm {want}"),
    N_("{build}, but the lock's target is CPU-only"),
    N_("{build}, but the lock expects CUDA {want}"),
    N_("torch is a CUDA {cuda} build, lock expects CUDA {want}"),
    N_("import {module} failed: {error}"),
    N_("{name} must be the build made for torch {version}; reinstall with `torchenv up`"),
    N_("installed {name} {version}, lock expects {want}"),
    N_("{name} is not installed, lock expects {want}"),
    N_("{version} (lock: {want})"),
    N_("torchvision.ops.nms failed: {error}"),
    N_("torchvision.ops.nms works (compiled ops match torch)"),
    # devices
    N_("{count} CUDA device visible"), N_("{count} CUDA devices visible"),
    N_("{count} ROCm device visible"), N_("{count} ROCm devices visible"),
    N_("ROCm {version} build, no visible GPU (driver not loaded or HIP_VISIBLE_DEVICES hides them)"),
    N_("check `nvidia-smi` and CUDA_VISIBLE_DEVICES; `torchenv doctor` explains more"),
    N_("Apple MPS device available"),
    N_("CPU-only build of torch, but the plan expects a GPU"),
    N_("the CPU wheel was installed; reinstall with `torchenv up`"),
    N_("CPU only (no CUDA/ROCm/MPS in this build)"),
    N_("no CUDA devices"),
    N_("{device} {name} is sm_{sm}; this torch build carries {archs} and no PTX that covers it"),
    N_("choose a build that includes sm_{sm} (`torchenv plan` shows which tiers do)"),
    N_("{sm} is in the build's arch list"),
    N_("{sm} runs the build's {code} code (same major, lower minor)"),
    N_("{sm} is not compiled in, but PTX {ptx} JIT-compiles for it (slow first run; needs a driver as new as "
       "the build's CUDA)"),
    # compute
    N_("matmul on {device} differs from the CPU result (max relative error {error})"),
    N_("256x256 float32 matmul on {device} matches the float64 CPU result (rel. err {error}, {ms} ms)"),
    N_("backward on {device} gave a wrong gradient"),
    N_("autograd backward on {device} gives the right gradient"),
    N_("autocast {dtype} matmul on {device} (rel. err {error})"),
    N_("conv2d on {device} differs from the CPU result (max relative error {error})"),
    N_("conv2d backward on {device} produced no gradient"),
    N_("cuDNN is not available on {device} (conv fell back to slow kernels)"),
    N_("conv2d forward+backward on {device} via cuDNN {cudnn}"),
    N_("conv2d forward+backward on {device}"),
    N_("small CNN on {device}: loss {first} -> {last} in {steps} steps ({seconds} s)"),
    N_("training a small CNN on {device} did not learn: loss {first} -> {last} over {steps} steps"),
    # the verdict (VerifyReport.verdict)
    N_("verified: {what} works on {devices} (matmul, backward, autocast, conv, trained a small CNN) in {seconds} s"),
    N_("verified: {what} works on {devices} (matmul, backward, autocast, conv) in {seconds} s"),
    N_("the environment"),
    N_("verify failed: no check ran"),
    N_("verify failed: {check}: {detail}"),
    # last: the per-device line of the "devices" and "arch" checks
    N_("{device} {name}: {how}"),
)
