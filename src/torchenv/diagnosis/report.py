"""``doctor --report FILE``: a Markdown report to paste into an issue tracker, with secrets removed.

Why redaction is a pass over the finished text (not only over fields we chose): details quote paths,
URLs and tracebacks, any of which may carry a token, a ``user:pass@`` URL or the user's home. Values of
secret-looking variables are removed wherever they appear; ``$HOME`` becomes ``~`` and the user name
``<user>`` unless ``--include-paths``.
"""
from __future__ import annotations

import getpass
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .model import Diagnosis, EnvFacts, Finding

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


def _machine_lines(m: Any) -> list[str]:
    if m is None:
        return []
    glibc = f", glibc {m.glibc}" if m.glibc else ""
    wsl = " (WSL2)" if m.wsl else ""
    driver_cuda = m.nvidia.cuda_driver_version if m.nvidia else None
    supports = f" (supports CUDA <= {driver_cuda})" if driver_cuda else ""
    return [f"- OS: {m.os} {m.arch}{glibc}{wsl}",
            f"- NVIDIA driver: {m.driver or 'none'}{supports}",
            "- GPUs: " + (", ".join(f"{g.name} (CC {g.compute_capability})" for g in m.gpus) or "none"),
            "- CUDA toolkits: " + (", ".join(f"{t.version} at {t.path}" for t in m.cuda_toolkits) or "none"),
            f"- facts {'assumed (--assume-*/--machine)' if m.assumed else 'probed'}"]


def _torch_line(e: EnvFacts) -> str:
    parts = [f"- torch: {e.torch_version or 'not installed'}"]
    parts += [f", tier {e.tier}"] if e.tier else []
    parts += [f", CUDA {e.cuda_level}"] if e.cuda_level else []
    parts += [f", cuDNN {e.cudnn}"] if e.cudnn else []
    return "".join(parts)


def _env_lines(e: EnvFacts | None) -> list[str]:
    if e is None:
        return ["- none inspected"]
    archs_source = f" ({e.archs_source})" if e.archs_source else ""
    lines = [f"- prefix: `{e.prefix}` ({e.kind}, Python {e.python or '?'})", _torch_line(e),
             f"- compiled archs: {' '.join(e.archs) or 'n/a'}{archs_source}"]
    lines += [f"- {c.name}: {c.build_version or c.version} (requires torch{c.torch_requirement or ' (any)'})"
              for c in e.companions]
    if e.conda_torch:
        lines.append(f"- conda records: {', '.join(e.conda_torch)}")
    return lines


def _finding_lines(findings: Sequence[Finding]) -> list[str]:
    if not findings:
        return ["No problems found."]
    lines: list[str] = []
    for f in findings:
        lines += [f"### [{f.severity}] {f.title}", "", f.detail, ""]
        if f.fix:
            lines += ["Fix:", "", "```sh", f.fix, "```", ""]
        for alt in f.alternatives:
            lines += [f"Or: `{alt}`", ""]
    return lines


def render(diag: Diagnosis, environ: Mapping[str, str]) -> str:
    """The report in Markdown, one section per kind of fact, so it can be pasted into an issue as is."""
    from ..version import __version__

    lines = ["# torchenv doctor report", "", f"torchenv {__version__}", "", "## Machine", ""]
    lines += _machine_lines(diag.machine)
    lines += ["", "## Environment", ""] + _env_lines(diag.env)
    if diag.runtime is not None:
        from .explain import evidence

        lines.append(f"- import check: {evidence(diag.runtime)}")
    lines += ["", "## Relevant environment variables", ""] + (_env_vars(environ) or ["- none"])
    lines += ["", "## Findings", ""] + _finding_lines(diag.findings)
    return "\n".join(lines).rstrip() + "\n"


def write_report(path: Path, diag: Diagnosis, environ: Mapping[str, str], *, include_paths: bool = False) -> Path:
    """Render, redact and write atomically (temp file in the same directory + os.replace)."""
    text = redact(render(diag, environ), environ, include_paths=include_paths)
    from ..fileio import write_atomic

    return write_atomic(path.expanduser(), text)
