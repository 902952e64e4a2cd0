"""The checks ``torchenv verify`` runs *inside the environment's own interpreter*.

Why a standalone script: only the env's interpreter can prove the env works (its torch,
its CUDA libraries, its companions), and it may be any Python from 3.8 on. So this file
imports nothing from torchenv, uses only the standard library plus torch, and is run as
``<env python> -I checks_script.py '<config json>'``.

Protocol: before each check a line ``@@torchenv-begin <name>`` and after it a line
``@@torchenv-check <json>`` go to stderr, so the caller still knows what passed and what
was running if the interpreter segfaults or times out. The last stdout line is one JSON
object ``{"checks": [...], "facts": {...}}``.

Layers: import -> versions -> devices -> compute -> deep. A failure in a layer skips the
later layers (each listed as skipped, with the reason), because their results would only
restate the first failure.
"""
from __future__ import annotations

import json
import os
import sys
import time
import traceback

# Python never evaluates the annotations (postponed by the __future__ import, so ``list[str]`` and
# ``str | None`` are fine on 3.8); mypy reads TYPE_CHECKING as True, so typing costs nothing at run time.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any
    from warnings import WarningMessage

    Outcome = str | tuple[str, str, bool]     # what a check returns: a detail, or (detail, severity, ok)

BEGIN = "@@torchenv-begin "
CHECK = "@@torchenv-check "
TORCH_FAMILY_MODULES = {"torchvision": "torchvision", "torchaudio": "torchaudio"}
TEXT_FIELDS = ("name", "detail", "hint")


class Text(str):
    """A sentence as data: its English template (the message catalogue's id) and its values; as a string, English.

    Why: torchenv shows these words in the user's language, but reads them from another process (this
    script's JSON). A template and values can be translated and filled in there; an English sentence could
    only be matched back against copies of the templates, and copies drift. Values are plain (numbers and
    names already formatted) or themselves ``Text``; every template is listed in ``verification/texts.py``.
    """

    msg: str
    values: dict[str, Any]

    def __new__(cls, msg: str, **values: Any) -> Text:
        self = str.__new__(cls, msg.format(**values) if values else msg)
        self.msg, self.values = msg, values
        return self

    def data(self) -> dict[str, Any]:
        return {"msg": self.msg, "values": {k: v.data() if isinstance(v, Text) else v for k, v in self.values.items()}}

    @classmethod
    def from_data(cls, data: Any) -> Any:
        """The ``Text`` that ``data()`` wrote (a value that is not such data comes back as it is)."""
        if isinstance(data, dict) and isinstance(data.get("msg"), str) and isinstance(data.get("values"), dict):
            return cls(data["msg"], **{str(k): cls.from_data(v) for k, v in data["values"].items()})
        return data


T = Text


class Skip(Exception):
    """Raised by a check that does not apply here; recorded as an informational pass."""


class Failed(Exception):
    """A check failed with a message written for the user (and an optional hint)."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        Exception.__init__(self, message)
        self.message, self.hint = message, hint


class Runner(object):
    def __init__(self) -> None:
        self.checks: list[dict[str, Any]] = []
        self.failed_layer: tuple[str, str] | None = None    # (layer, check name) of the first failure

    def _emit(self, record: dict[str, Any]) -> None:
        texts = {k: record[k].data() for k in TEXT_FIELDS if isinstance(record.get(k), Text)}
        if texts:
            record["texts"] = texts
        self.checks.append(record)
        sys.stderr.write(CHECK + json.dumps(record) + "\n")
        sys.stderr.flush()

    def skip_all(self, names: list[Text]) -> None:
        for name in names:
            self.skipped(name)

    def skipped(self, name: str) -> None:
        assert self.failed_layer is not None, "a check is skipped only after one failed"
        layer, check = self.failed_layer
        self._emit({"name": name, "ok": False, "severity": "skipped",
                    "detail": T("skipped: {check} failed", check=check)})

    def run(self, layer: str, name: str, fn: Callable[..., Outcome | None], *args: object) -> dict[str, Any] | None:
        """Run one check. ``fn`` returns a detail string or (detail, severity, ok)."""
        if self.failed_layer is not None and self.failed_layer[0] != layer:
            self.skipped(name)
            return None
        sys.stderr.write(BEGIN + json.dumps(name.data() if isinstance(name, Text) else name) + "\n")
        sys.stderr.flush()
        start = time.perf_counter()
        record: dict[str, Any] = {"name": name, "ok": True, "severity": "info", "detail": ""}
        try:
            result = fn(*args)
            if isinstance(result, tuple):
                record["detail"], record["severity"], record["ok"] = result
            else:
                record["detail"] = result or ""
        except Skip as exc:
            record["detail"] = T("not applicable: {why}", why=exc.args[0] if exc.args else "")
        except Failed as exc:
            record.update(ok=False, severity="error", detail=exc.message)
            if exc.hint:
                record["hint"] = exc.hint
        except Exception as exc:  # the check itself broke: that is the finding
            record.update(ok=False, severity="error", detail=_describe(exc))
        record["duration_s"] = round(time.perf_counter() - start, 3)
        if not record["ok"] and record["severity"] == "error" and self.failed_layer is None:
            self.failed_layer = (layer, name)
        self._emit(record)
        return record


def _describe(exc: BaseException) -> str:
    """``ExcType: message`` plus where it came from (the last frame), one line each."""
    text = "%s: %s" % (type(exc).__name__, exc)
    tb = traceback.extract_tb(exc.__traceback__)
    if tb:
        frame = tb[-1]
        text += " (at %s:%s)" % (frame.filename, frame.lineno)
    return text


# -- versions -------------------------------------------------------------------------------

def _release(version: str) -> list[int | str]:
    parts: list[int | str] = []
    for piece in version.split("+", 1)[0].split("."):
        digits = ""
        for ch in piece:
            if not ch.isdigit():
                break
            digits += ch
        parts.append(int(digits) if digits else 0)
        if digits != piece:    # pre/dev suffix: keep the rest for an exact string compare
            parts.append(piece[len(digits):])
            break
    while parts and parts[-1] == 0:
        parts.pop()
    return parts


def version_matches(expected: str, actual: str | None) -> bool:
    """The lock's version matches the installed one.

    Why loose on the local tag: PyPI's default builds report ``2.14.1+cu130`` from
    ``torch.__version__`` while the lock records the file's version ``2.14.1``; the CUDA
    level is checked separately. A lock version *with* a tag must match it exactly.
    """
    if actual is None:
        return False
    exp_base, _, exp_local = expected.strip().lower().partition("+")
    act_base, _, act_local = actual.strip().lower().partition("+")
    if _release(exp_base) != _release(act_base):
        return False
    return not exp_local or exp_local == act_local


def _mm(version: str) -> str:
    return ".".join(str(version).split(".")[:2])


def _cudnn_text(v: int | None) -> str | None:
    if not v:
        return None
    v = int(v)
    if v >= 90000:      # cuDNN 9: major*10000 + minor*100 + patch
        return "%d.%d.%d" % (v // 10000, (v % 10000) // 100, v % 100)
    return "%d.%d.%d" % (v // 1000, (v % 1000) // 100, v % 100)


# -- arch coverage --------------------------------------------------------------------------

def _parse_arch(arch: str) -> tuple[str, int, int, str] | None:
    """``sm_86`` -> ("sm", 8, 6, ""); ``compute_120`` -> ("compute", 12, 0, ""); else None."""
    kind, _, num = arch.partition("_")
    suffix = ""
    while num and not num[-1].isdigit():
        suffix = num[-1] + suffix
        num = num[:-1]
    if kind not in ("sm", "compute") or len(num) < 2 or not num.isdigit():
        return None
    return kind, int(num[:-1]), int(num[-1]), suffix


def _best_sass(major: int, minor: int, arch_list: list[str]) -> str | None:
    """The newest ``sm_XY`` of the same major with Y <= minor (an ``a``/``f`` arch only for exactly that cc)."""
    best = None
    for arch in arch_list:
        parsed = _parse_arch(arch)
        if parsed is None:
            continue
        kind, a_major, a_minor, suffix = parsed
        if kind != "sm" or a_major != major or a_minor > minor or (suffix and a_minor != minor):
            continue
        if best is None or a_minor > best[1]:
            best = (arch, a_minor)
    return best[0] if best is not None else None


def _best_ptx(major: int, minor: int, arch_list: list[str]) -> str | None:
    """The newest ``compute_XY`` with X.Y <= the cc (PTX JIT-compiles forward)."""
    best = None
    for arch in arch_list:
        parsed = _parse_arch(arch)
        if parsed is None or parsed[0] != "compute" or (parsed[1], parsed[2]) > (major, minor):
            continue
        if best is None or (parsed[1], parsed[2]) > best[1]:
            best = (arch, (parsed[1], parsed[2]))
    return best[0] if best is not None else None


def arch_coverage(cc: tuple[int, int], arch_list: list[str]) -> str | None:
    """How a GPU of compute capability ``cc`` (major, minor) runs this build, or None.

    SASS ``sm_XY`` runs on the same major with minor >= Y; PTX ``compute_XY`` JIT-compiles
    on any cc >= X.Y; arch-specific ``sm_90a`` runs only on exactly 9.0 (compat.md §2d).
    """
    major, minor = cc
    exact = "sm_%d%d" % (major, minor)
    sass = _best_sass(major, minor, arch_list)
    if sass is not None:
        if sass == exact:
            return T("{sm} is in the build's arch list", sm=exact)
        return T("{sm} runs the build's {code} code (same major, lower minor)", sm=exact, code=sass)
    ptx = _best_ptx(major, minor, arch_list)
    if ptx is not None:
        return T("{sm} is not compiled in, but PTX {ptx} JIT-compiles for it "
                 "(slow first run; needs a driver as new as the build's CUDA)", sm=exact, ptx=ptx)
    return None


def _build_text(cuda: str | None, hip: str | None, cudnn: str | None) -> str:
    if cuda:
        return T("CUDA {cuda} build, cuDNN {cudnn}", cuda=cuda, cudnn=cudnn) if cudnn else \
            T("CUDA {cuda} build, no cuDNN", cuda=cuda)
    if hip:
        return T("ROCm/HIP {version} build", version=hip)
    return T("CPU-only build (no CUDA)")


def _against_locked_cuda(text: str, cuda: str | None, want: str | None) -> str:
    """The build's CUDA held against the lock's: a CPU target must get no CUDA, a CUDA target its major.minor."""
    if want is None:
        return text
    if want.lower() in ("none", "cpu", ""):
        if cuda:
            raise Failed(T("{build}, but the lock's target is CPU-only", build=text))
        return text
    if not cuda:
        raise Failed(T("{build}, but the lock expects CUDA {want}", build=text, want=want),
                     T("the CPU wheel was installed instead of the CUDA one; run `torchenv up`"))
    if _mm(cuda) != _mm(want):
        raise Failed(T("torch is a CUDA {cuda} build, lock expects CUDA {want}", cuda=cuda, want=want),
                     T("reinstall the locked build with `torchenv up`"))
    return T("{build} (lock: CUDA {want})", build=text, want=want)


# -- the checks -----------------------------------------------------------------------------

class Verify(object):
    def __init__(self, config: dict[str, Any]) -> None:
        self.expected = dict(config.get("expected") or {})
        self.expects_gpu = bool(config.get("expects_gpu"))
        self.deep = bool(config.get("deep"))
        # The torch module once check_import succeeded; main() runs no later check while it is None.
        self.torch: Any = None
        self.devices: list[str] = []          # "cuda:0", "mps" ...; empty = CPU only
        self.facts: dict[str, Any] = {"python": sys.version.split()[0], "executable": sys.executable,
                                      "prefix": sys.prefix}
        self.r = Runner()

    # layer: import
    def check_import(self) -> Outcome:
        import warnings

        start = time.perf_counter()
        try:
            with warnings.catch_warnings(record=True) as said:   # torch warns through Python warnings
                warnings.simplefilter("always")
                import torch
        except BaseException as exc:   # ImportError, OSError from dlopen, even SystemExit
            hint = None
            text = str(exc)
            if ".so" in text or ".dll" in text or "DLL load failed" in text:
                hint = T("a CUDA library torch needs is missing or from another CUDA major; "
                         "reinstall with `torchenv up` (or run `torchenv doctor`)")
            raise Failed(T("import torch failed: {error}", error=_describe(exc)), hint)
        took = time.perf_counter() - start
        self.torch = torch
        self.facts["torch"] = torch.__version__
        self.facts["import_s"] = round(took, 3)
        text = T("torch {version} imported in {seconds} s from {folder}", version=torch.__version__,
                 seconds="%.2f" % took, folder=os.path.dirname(os.path.dirname(torch.__file__)))
        printed = _import_warnings(said)
        if not printed:
            return text
        self.facts["import_warnings"] = printed
        return (T("{text}, but the import printed: {printed}", text=text, printed="; ".join(printed)), "warning", True)

    # layer: versions
    def check_torch_version(self) -> str:
        actual = self.torch.__version__
        want = self.expected.get("torch")
        if want is None:
            return T("{version} (no lock version to compare)", version=actual)
        if not version_matches(want, actual):
            raise Failed(T("installed torch {version}, lock expects {want}", version=actual, want=want),
                         T("reinstall the locked versions with `torchenv up`"))
        return T("{version} (lock: {want})", version=actual, want=want)

    def check_build(self) -> str:
        torch = self.torch
        cuda = getattr(torch.version, "cuda", None)
        hip = getattr(torch.version, "hip", None)
        cudnn = None
        try:
            cudnn = _cudnn_text(torch.backends.cudnn.version()) if cuda else None
        except Exception as exc:
            raise Failed(T("cuDNN could not be loaded: {error}", error=_describe(exc)),
                         T("the nvidia-cudnn wheel is missing or mismatched; reinstall with `torchenv up`"))
        self.facts.update(cuda=cuda, hip=hip, cudnn=cudnn)
        if cuda:
            try:   # known without a device: lets doctor compare it with the GPUs later
                self.facts["arch_list"] = list(torch.cuda.get_arch_list())
            except Exception:
                pass
        text = _build_text(cuda, hip, cudnn)
        text = _against_locked_cuda(text, cuda, self.expected.get("cuda"))
        want_hip = self.expected.get("hip")
        if want_hip is not None and (not hip or _mm(hip) != _mm(want_hip)):
            raise Failed(T("{build}, lock expects ROCm {want}", build=text, want=want_hip))
        return text

    def check_companion(self, name: str) -> str:
        import importlib

        module = TORCH_FAMILY_MODULES.get(name, name)
        try:
            mod = importlib.import_module(module)
        except BaseException as exc:
            raise Failed(T("import {module} failed: {error}", module=module, error=_describe(exc)),
                         T("{name} must be the build made for torch {version}; reinstall with `torchenv up`",
                           name=name, version=self.torch.__version__))
        actual = getattr(mod, "__version__", None) or _dist_version(name)
        self.facts.setdefault("companions", {})[name] = actual
        want = self.expected.get(name)
        if want is not None and not version_matches(want, actual or ""):
            raise Failed(T("installed {name} {version}, lock expects {want}", name=name, version=actual, want=want),
                         T("reinstall the locked versions with `torchenv up`"))
        return T("{version} (lock: {want})", version=actual, want=want) if want else str(actual)

    def check_dist(self, name: str) -> str:
        actual = _dist_version(name)
        want = self.expected[name]
        if actual is None:
            raise Failed(T("{name} is not installed, lock expects {want}", name=name, want=want))
        if not version_matches(want, actual):
            raise Failed(T("installed {name} {version}, lock expects {want}", name=name, version=actual, want=want))
        return T("{version} (lock: {want})", version=actual, want=want)

    def check_nms(self) -> str:
        import torchvision

        torch = self.torch
        boxes = torch.tensor([[0.0, 0.0, 10.0, 10.0], [1.0, 1.0, 11.0, 11.0], [50.0, 50.0, 60.0, 60.0]])
        scores = torch.tensor([0.9, 0.8, 0.7])
        try:
            keep = torchvision.ops.nms(boxes, scores, 0.5)
        except Exception as exc:
            raise Failed(T("torchvision.ops.nms failed: {error}", error=_describe(exc)),
                         T("torchvision's compiled ops do not match this torch (a mismatched pair); "
                           "reinstall both from the lock with `torchenv up`"))
        if keep.tolist() != [0, 2]:
            raise Failed(T("torchvision.ops.nms returned {kept}, expected [0, 2]", kept=str(keep.tolist())))
        return T("torchvision.ops.nms works (compiled ops match torch)")

    # layer: devices
    def check_accelerator(self) -> Outcome:
        torch = self.torch
        cuda = getattr(torch.version, "cuda", None)
        hip = getattr(torch.version, "hip", None)
        if cuda or hip:
            if torch.cuda.is_available():
                n = torch.cuda.device_count()
                self.devices = ["cuda:%d" % i for i in range(n)]
                if cuda:
                    return T("{count} CUDA device visible", count=n) if n == 1 else \
                        T("{count} CUDA devices visible", count=n)
                return T("{count} ROCm device visible", count=n) if n == 1 else T("{count} ROCm devices visible", count=n)
            text = T("CUDA {cuda} build, no visible CUDA device (driver not loaded or CUDA_VISIBLE_DEVICES hides them)",
                     cuda=cuda) if cuda else \
                T("ROCm {version} build, no visible GPU (driver not loaded or HIP_VISIBLE_DEVICES hides them)",
                  version=hip)
            if self.expects_gpu:
                raise Failed(text, T("check `nvidia-smi` and CUDA_VISIBLE_DEVICES; `torchenv doctor` explains more"))
            return T("{text}; the plan does not expect a GPU here", text=text), "warning", True
        mps = getattr(getattr(torch.backends, "mps", None), "is_available", None)
        if mps is not None and mps():
            self.devices = ["mps"]
            return T("Apple MPS device available")
        if self.expects_gpu and sys.platform == "darwin":
            raise Failed(T("no MPS device available (torch {version}; MPS needs Apple silicon and macOS 12.3+)",
                           version=torch.__version__), T("check `sw_vers`; a VM or Rosetta Python hides MPS"))
        if self.expects_gpu:
            raise Failed(T("CPU-only build of torch, but the plan expects a GPU"),
                         T("the CPU wheel was installed; reinstall with `torchenv up`"))
        return T("CPU only (no CUDA/ROCm/MPS in this build)")

    def check_devices(self) -> str:
        torch = self.torch
        if not self.devices or self.devices == ["mps"]:
            raise Skip(T("no CUDA devices"))
        out = []
        info = []
        for i in range(len(self.devices)):
            p = torch.cuda.get_device_properties(i)
            cc = "%d.%d" % (p.major, p.minor)
            mem = getattr(p, "total_memory", 0) / 2.0 ** 30
            info.append({"index": i, "name": p.name, "cc": cc, "memory_gib": round(mem, 1)})
            out.append("cuda:%d %s (cc %s, %.0f GiB)" % (i, p.name, cc, mem))
        self.facts["devices"] = info
        return "; ".join(out)

    def check_arch(self, index: int) -> str:
        torch = self.torch
        if getattr(torch.version, "hip", None):
            raise Skip(T("ROCm build (gfx targets are not in get_arch_list)"))
        major, minor = torch.cuda.get_device_capability(index)
        archs = list(torch.cuda.get_arch_list())
        self.facts["arch_list"] = archs
        name = torch.cuda.get_device_name(index)
        how = arch_coverage((major, minor), archs)
        if how is None:
            raise Failed(T("{device} {name} is sm_{sm}; this torch build carries {archs} and no PTX that covers it",
                           device="cuda:%d" % index, name=name, sm="%d%d" % (major, minor),
                           archs=" ".join(archs) or T("no CUDA archs")),
                         T("choose a build that includes sm_{sm} (`torchenv plan` shows which tiers do)",
                           sm="%d%d" % (major, minor)))
        return T("{device} {name}: {how}", device="cuda:%d" % index, name=name, how=how)

    # layer: compute
    def _sync(self, device: str) -> None:
        torch = self.torch
        if device.startswith("cuda"):
            torch.cuda.synchronize(device)
        elif device == "mps":
            torch.mps.synchronize()

    def check_matmul(self, device: str) -> str:
        torch = self.torch
        g = torch.Generator().manual_seed(0)
        a = torch.randn(256, 256, generator=g)
        b = torch.randn(256, 256, generator=g)
        ref = a.double() @ b.double()
        start = time.perf_counter()
        out = (a.to(device) @ b.to(device))
        self._sync(device)
        took = time.perf_counter() - start
        err = ((out.cpu().double() - ref).abs().max() / ref.abs().max()).item()
        if not err < 1e-2:   # loose enough for TF32
            raise Failed(T("matmul on {device} differs from the CPU result (max relative error {error})",
                           device=device, error="%.3g" % err))
        return T("256x256 float32 matmul on {device} matches the float64 CPU result (rel. err {error}, {ms} ms)",
                 device=device, error="%.1e" % err, ms="%.1f" % (took * 1e3))

    def check_backward(self, device: str) -> str:
        torch = self.torch
        g = torch.Generator().manual_seed(1)
        x = torch.randn(64, 32, generator=g).to(device).requires_grad_(True)
        w = torch.randn(32, 16, generator=g).to(device)
        (x @ w).sum().backward()
        self._sync(device)
        want = w.sum(1).expand(64, 32)
        if not torch.allclose(x.grad, want, rtol=1e-3, atol=1e-3):
            raise Failed(T("backward on {device} gave a wrong gradient", device=device))
        return T("autograd backward on {device} gives the right gradient", device=device)

    def check_autocast(self, device: str) -> str:
        torch = self.torch
        kind = device.split(":")[0]
        if kind == "cuda":
            bf16 = getattr(torch.cuda, "is_bf16_supported", lambda: False)()
            dtype = torch.bfloat16 if bf16 else torch.float16
        elif kind == "mps":
            dtype = torch.float16
        else:
            dtype = torch.bfloat16
        g = torch.Generator().manual_seed(2)
        a = torch.randn(128, 128, generator=g).to(device)
        b = torch.randn(128, 128, generator=g).to(device)
        with torch.autocast(device_type=kind, dtype=dtype):
            out = a @ b
        self._sync(device)
        if out.dtype != dtype:
            raise Failed(T("autocast on {device} produced {dtype}, expected {want}", device=device, dtype=str(out.dtype),
                           want=str(dtype)))
        ref = (a @ b).float()
        err = ((out.float() - ref).abs().max() / ref.abs().max()).item()
        if not err < 5e-2:
            raise Failed(T("autocast {dtype} matmul on {device} is off by {error} (relative)", dtype=str(dtype),
                           device=device, error="%.3g" % err))
        return T("autocast {dtype} matmul on {device} (rel. err {error})", dtype=str(dtype).replace("torch.", ""),
                 device=device, error="%.1e" % err)

    def check_conv(self, device: str) -> str:
        torch = self.torch
        import torch.nn.functional as F

        g = torch.Generator().manual_seed(3)
        x = torch.randn(2, 3, 16, 16, generator=g)
        w = torch.randn(8, 3, 3, 3, generator=g)
        ref = F.conv2d(x.double(), w.double(), padding=1)
        xd = x.to(device).requires_grad_(True)
        wd = w.to(device).requires_grad_(True)
        out = F.conv2d(xd, wd, padding=1)
        out.sum().backward()
        self._sync(device)
        err = ((out.detach().cpu().double() - ref).abs().max() / ref.abs().max()).item()
        if not err < 1e-2:
            raise Failed(T("conv2d on {device} differs from the CPU result (max relative error {error})",
                           device=device, error="%.3g" % err))
        if xd.grad is None or wd.grad is None or xd.grad.shape != x.shape:
            raise Failed(T("conv2d backward on {device} produced no gradient", device=device))
        if device.startswith("cuda") and getattr(torch.version, "cuda", None):
            cudnn = torch.backends.cudnn
            if not (cudnn.enabled and cudnn.is_available()):
                raise Failed(T("cuDNN is not available on {device} (conv fell back to slow kernels)", device=device))
            return T("conv2d forward+backward on {device} via cuDNN {cudnn}", device=device,
                     cudnn=_cudnn_text(cudnn.version()))
        return T("conv2d forward+backward on {device}", device=device)

    # layer: deep
    def check_train(self, device: str) -> str:
        torch = self.torch
        from torch import nn
        from torch.utils.data import DataLoader, TensorDataset

        start = time.perf_counter()   # includes the first optimizer step's one-off imports
        torch.manual_seed(0)
        n = 1024
        labels = torch.randint(0, 2, (n,))
        x = torch.randn(n, 1, 12, 12)
        x[labels == 1, :, :6, :] += 0.3   # class 1: bright top half; class 0: bright bottom half
        x[labels == 0, :, 6:, :] += 0.3
        loader = DataLoader(TensorDataset(x, labels), batch_size=64, shuffle=True, num_workers=0)
        model = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                              nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(2),
                              nn.Flatten(), nn.Linear(64, 2)).to(device)
        opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
        loss_fn = nn.CrossEntropyLoss()
        losses = []
        steps = 0
        while steps < 240:
            for xb, yb in loader:
                xb, yb = xb.to(device), yb.to(device)
                opt.zero_grad()
                loss = loss_fn(model(xb), yb)
                loss.backward()
                opt.step()
                losses.append(loss.item())
                steps += 1
                if steps >= 240:
                    break
        took = time.perf_counter() - start
        first = sum(losses[:10]) / 10
        last = sum(losses[-10:]) / 10
        if not last < 0.5 * first:
            raise Failed(T("training a small CNN on {device} did not learn: loss {first} -> {last} over {steps} steps",
                           device=device, first="%.3f" % first, last="%.3f" % last, steps=steps))
        return T("small CNN on {device}: loss {first} -> {last} in {steps} steps ({seconds} s)", device=device,
                 first="%.3f" % first, last="%.3f" % last, steps=steps, seconds="%.1f" % took)

    # -- orchestration ------------------------------------------------------------------
    def main(self) -> None:
        r = self.r
        r.run("import", T("import torch"), self.check_import)
        if self.torch is None:
            r.skip_all([T("versions"), T("accelerator"), T("compute")] + ([T("train")] if self.deep else []))
            return
        self._versions()
        self._devices()
        compute = self.devices or ["cpu"]
        self._compute(compute)
        if self.deep:
            for device in compute:
                r.run("deep", T("train {device}", device=device), self.check_train, device)

    def _versions(self) -> None:
        """torch, its build, the companions present or locked, then every other locked distribution."""
        r = self.r
        r.run("versions", T("torch version"), self.check_torch_version)
        r.run("versions", T("torch build"), self.check_build)
        names = [n for n in TORCH_FAMILY_MODULES if n in self.expected or _installed(n)]
        for name in names:
            r.run("versions", name, self.check_companion, name)
        if "torchvision" in names:
            r.run("versions", T("torchvision ops"), self.check_nms)
        for name in sorted(self.expected):
            if name not in ("torch", "cuda", "hip") and name not in TORCH_FAMILY_MODULES:
                r.run("versions", name, self.check_dist, name)

    def _devices(self) -> None:
        r = self.r
        r.run("devices", T("accelerator"), self.check_accelerator)
        cuda_devices = [d for d in self.devices if d.startswith("cuda")]
        if cuda_devices:
            r.run("devices", T("devices"), self.check_devices)
            for i in range(len(cuda_devices)):
                r.run("devices", T("arch {device}", device="cuda:%d" % i), self.check_arch, i)

    def _compute(self, compute: list[str]) -> None:
        """matmul on every device; backward, autocast and conv2d on the first (and conv2d on the CPU too)."""
        r = self.r
        for device in compute:
            r.run("compute", T("matmul {device}", device=device), self.check_matmul, device)
        primary = compute[0]
        r.run("compute", T("backward {device}", device=primary), self.check_backward, primary)
        r.run("compute", T("autocast {device}", device=primary), self.check_autocast, primary)
        r.run("compute", T("conv2d {device}", device=primary), self.check_conv, primary)
        if primary != "cpu":
            r.run("compute", T("conv2d {device}", device="cpu"), self.check_conv, "cpu")


def _import_warnings(records: list[WarningMessage]) -> list[str]:
    """What ``import torch`` printed, one line each; "No module named X" says which package to add."""
    out = []
    for w in records:
        line = str(w.message).split(" (Triggered internally", 1)[0].strip()
        missing = line.split("No module named ", 1)[1].strip("'\"") if "No module named " in line else None
        if missing:
            line += " (add %s to the project's requirements; `torchenv up` then installs it)" % missing
        if line and line not in out:
            out.append(line)
    return out


def _installed(name: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(TORCH_FAMILY_MODULES.get(name, name)) is not None
    except Exception:
        return False


def _dist_version(name: str) -> str | None:
    try:
        from importlib import metadata
    except ImportError:  # pragma: no cover - Python < 3.8
        return None
    try:
        return metadata.version(name)
    except Exception:
        return None


def main(argv: list[str]) -> int:
    config = json.loads(argv[1]) if len(argv) > 1 else {}
    v = Verify(config)
    v.main()
    sys.stdout.write("\n" + json.dumps({"checks": v.r.checks, "facts": v.facts}) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
