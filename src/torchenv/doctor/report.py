"""``doctor --report FILE``: a Markdown report to paste into an issue tracker, with secrets removed.

Why redaction is a pass over the finished text (not only over fields we chose): details quote paths,
URLs and tracebacks, any of which may carry a token, a ``user:pass@`` URL or the user's home. Values of
secret-looking variables are removed wherever they appear; ``$HOME`` becomes ``~`` and the user name
``<user>`` unless ``--include-paths``.
"""
from __future__ import annotations

import getpass
import re
from collections.abc import Mapping
from pathlib import Path

from .model import Diagnosis

SECRET_NAME = re.compile(r"TOKEN|KEY|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|SESSION", re.I)
SHOWN_PREFIXES = ("CUDA", "NVIDIA", "TORCH", "PYTORCH", "LD_LIBRARY_PATH", "PATH", "CONDA_PREFIX", "VIRTUAL_ENV",
                  "HF_", "PIP_", "UV_", "TORCHENV")


def redact(text: str, environ: Mapping[str, str], *, include_paths: bool = False) -> str:
    from ..redaction import redact_text

    for name, value in environ.items():
        if SECRET_NAME.search(name) and value and len(value) >= 3:
            text = text.replace(value, f"<redacted:{name}>")
    text = redact_text(text)          # logins, tokens in URLs, Authorization values (one rule for all output)
    if not include_paths:
        home = environ.get("HOME") or str(Path.home())
        if home and home not in ("/", ""):
            text = re.sub(re.escape(home.rstrip("/")) + r"(?=/|\b|$)", "~", text)
        try:
            user = environ.get("USER") or getpass.getuser()
        except Exception:
            user = ""
        if user and len(user) >= 2 and user not in ("root",):
            text = re.sub(rf"(?<![\w.-]){re.escape(user)}(?![\w.-])", "<user>", text)
    return text


def _env_vars(environ: Mapping[str, str]) -> list[str]:
    rows = []
    for name in sorted(environ):
        if name.startswith(SHOWN_PREFIXES) or name == "PATH":
            value = "<redacted>" if SECRET_NAME.search(name) else environ[name]
            rows.append(f"- `{name}` = `{value}`")
    return rows


def render(diag: Diagnosis, environ: Mapping[str, str]) -> str:
    from ..version import __version__

    m, e = diag.machine, diag.env
    lines = ["# torchenv doctor report", "", f"torchenv {__version__}", "", "## Machine", ""]
    if m is not None:
        lines += [f"- OS: {m.os} {m.arch}" + (f", glibc {m.glibc}" if m.glibc else "") + (" (WSL2)" if m.wsl else ""),
                  f"- NVIDIA driver: {m.driver or 'none'}"
                  + (f" (supports CUDA <= {m.nvidia.cuda_driver_version})" if m.nvidia and m.nvidia.cuda_driver_version else ""),
                  "- GPUs: " + (", ".join(f"{g.name} (CC {g.compute_capability})" for g in m.gpus) or "none"),
                  "- CUDA toolkits: " + (", ".join(f"{t.version} at {t.path}" for t in m.cuda_toolkits) or "none"),
                  f"- facts {'assumed (--assume-*/--machine)' if m.assumed else 'probed'}"]
    lines += ["", "## Environment", ""]
    if e is None:
        lines.append("- none inspected")
    else:
        lines += [f"- prefix: `{e.prefix}` ({e.kind}, Python {e.python or '?'})",
                  f"- torch: {e.torch_version or 'not installed'}" + (f", tier {e.tier}" if e.tier else "")
                  + (f", CUDA {e.cuda_level}" if e.cuda_level else "") + (f", cuDNN {e.cudnn}" if e.cudnn else ""),
                  f"- compiled archs: {' '.join(e.archs) or 'n/a'}" + (f" ({e.archs_source})" if e.archs_source else "")]
        lines += [f"- {c.name}: {c.build_version or c.version} (requires torch{c.torch_requirement or ' (any)'})"
                  for c in e.companions]
        if e.conda_torch:
            lines.append(f"- conda records: {', '.join(e.conda_torch)}")
    if diag.runtime is not None:
        from .explain import evidence

        lines.append(f"- import check: {evidence(diag.runtime)}")
    lines += ["", "## Relevant environment variables", ""] + (_env_vars(environ) or ["- none"])
    lines += ["", "## Findings", ""]
    if not diag.findings:
        lines.append("No problems found.")
    for f in diag.findings:
        lines += [f"### [{f.severity}] {f.title}", "", f.detail, ""]
        if f.fix:
            lines += ["Fix:", "", "```sh", f.fix, "```", ""]
        for alt in f.alternatives:
            lines += [f"Or: `{alt}`", ""]
    return "\n".join(lines).rstrip() + "\n"


def write_report(path: Path, diag: Diagnosis, environ: Mapping[str, str], *, include_paths: bool = False) -> Path:
    """Render, redact and write atomically (temp file in the same directory + os.replace)."""
    text = redact(render(diag, environ), environ, include_paths=include_paths)
    from ..fileio import write_atomic

    return write_atomic(path.expanduser(), text)
