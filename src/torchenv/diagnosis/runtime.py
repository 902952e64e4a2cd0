"""Second layer: ask the env's own interpreter (in a child process, with a timeout) what torch says.

Why in a child: ``import torch`` of a broken build may segfault, abort or hang; in a child that is
just evidence (exit signal, last line of the traceback), which ``--explain``'s catalogue then reads.
"""
from __future__ import annotations

import json
import signal
import subprocess
from collections.abc import Mapping
from typing import Any

TIMEOUT_S = 90.0

SCRIPT = r"""
import json, sys, traceback
out = {"python": sys.version.split()[0]}
def last(exc):
    return "".join(traceback.format_exception_only(type(exc), exc)).strip()
try:
    import torch
    out["torch"] = torch.__version__
    out["cuda"] = torch.version.cuda
    try:
        out["cuda_available"] = bool(torch.cuda.is_available())
        out["device_count"] = torch.cuda.device_count() if out["cuda_available"] else 0
        out["arch_list"] = torch.cuda.get_arch_list() if out["cuda_available"] else []
    except Exception as exc:
        out["cuda_error"] = last(exc)
except Exception as exc:
    out["torch_error"] = last(exc)
    out["torch_traceback"] = traceback.format_exc()[-4000:]
for name in sys.argv[1:]:
    try:
        __import__(name)
        out.setdefault("imports", {})[name] = "ok"
    except Exception as exc:
        out.setdefault("imports", {})[name] = last(exc)
print("\n@@TORCHENV@@" + json.dumps(out))
"""


def probe_env(interpreter: str, companions: list[str], environ: Mapping[str, str],
              timeout_s: float = TIMEOUT_S) -> dict[str, Any]:
    """What the env's interpreter reports; on crash/timeout, a dict saying so (``crashed``, ``timeout``)."""
    try:
        cp = subprocess.run([interpreter, "-c", SCRIPT, *companions], capture_output=True, text=True,
                            timeout=timeout_s, errors="replace", stdin=subprocess.DEVNULL,
                            env=dict(environ), check=False)
    except subprocess.TimeoutExpired:
        return {"timeout": timeout_s}
    except OSError as exc:
        return {"error": f"cannot run {interpreter}: {exc}"}
    marker = cp.stdout.rfind("@@TORCHENV@@")
    if marker >= 0:
        try:
            data: dict[str, Any] = json.loads(cp.stdout[marker + len("@@TORCHENV@@"):])   # the probe's report
            data["stderr_tail"] = cp.stderr[-2000:]
            return data
        except ValueError:
            pass
    out: dict[str, Any] = {"crashed": cp.returncode, "stderr_tail": cp.stderr[-4000:]}
    if cp.returncode < 0:
        try:
            out["signal"] = signal.Signals(-cp.returncode).name
        except ValueError:
            pass
    return out


def messages(data: dict[str, Any]) -> list[str]:
    """Error texts from a probe result, for the ``--explain`` catalogue."""
    texts = [data.get("torch_traceback") or data.get("torch_error"), data.get("cuda_error"),
             data.get("stderr_tail") if data.get("crashed") is not None else None]
    texts += [v for v in (data.get("imports") or {}).values() if v != "ok"]
    return [t for t in texts if t]
