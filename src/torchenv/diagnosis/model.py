"""What doctor says: findings, and the facts about one environment it read from disk.

Why plain dataclasses: the same objects feed the terminal view, ``--json``, ``--report``
and ``--explain``; none of them should re-derive anything from raw files.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

SEVERITIES = ("error", "warning", "info")


@dataclass(frozen=True)
class Finding:
    """One diagnosis. ``fix`` is a command that can be pasted as is (or a torchenv.toml change)."""

    severity: str                       # error | warning | info
    title: str
    detail: str
    fix: str | None = None
    id: str = ""                        # stable key, e.g. "companion-mismatch"; tests and --explain use it
    alternatives: tuple[str, ...] = ()  # other fixes that also work ("if you do not use torchvision: ...")

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["alternatives"] = list(self.alternatives)
        return out


@dataclass(frozen=True)
class Companion:
    """torchvision/torchaudio as installed: its version (with local tag) and the torch it pins."""

    name: str
    version: str                        # dist-info Version
    build_version: str | None = None    # version.py __version__ ("0.28.0+cu130"), carries the tier
    torch_requirement: str | None = None  # "torch (==2.13.0)" normalised to "==2.13.0"


@dataclass(frozen=True)
class EnvFacts:
    """An environment as read from its files; torch is never imported to get these."""

    prefix: str
    kind: str                           # venv | conda | system
    python: str | None                  # "3.11" (from the layout), None when unknown
    interpreter: str | None
    site_packages: tuple[str, ...] = ()
    torch_version: str | None = None    # "2.13.0+cpu" from torch/version.py (else METADATA)
    torch_cuda: str | None = None       # torch.version.cuda ("12.8"), None for CPU builds
    torch_hip: str | None = None
    cuda_from_metadata: str | None = None  # CUDA level from Requires-Dist pins (compat §6c)
    archs: tuple[str, ...] = ()         # sm_XX / compute_XX the build carries
    archs_source: str = ""              # "binary <path>" | "kb <release> <tier>" | ""
    cudnn: str | None = None
    companions: tuple[Companion, ...] = ()
    conda_torch: tuple[str, ...] = ()   # conda-meta records of pytorch/torch
    pip_torch: bool = False             # a torch dist-info with a pip-style INSTALLER
    installer: str | None = None        # INSTALLER of torch's dist-info (pip, uv, conda)
    has_pip: bool = False
    torch_lib_dir: str | None = None
    notes: tuple[str, ...] = ()

    @property
    def torch_public(self) -> str | None:
        """``2.13.0`` without the local tag."""
        return self.torch_version.split("+", 1)[0] if self.torch_version else None

    @property
    def tier(self) -> str | None:
        """cpu | cuXYZ | rocmX.Y, from the local tag, else from version.py's cuda/hip."""
        if not self.torch_version:
            return None
        if "+" in self.torch_version:
            tag = self.torch_version.split("+", 1)[1]
            if tag == "cpu" or tag.startswith(("cu", "rocm", "xpu")):
                return tag
        if self.torch_cuda:
            return "cu" + self.torch_cuda.replace(".", "")[:3]
        if self.torch_hip:
            return "rocm" + ".".join(self.torch_hip.split(".")[:2])
        return "cpu"

    @property
    def cuda_level(self) -> str | None:
        return self.torch_cuda or self.cuda_from_metadata

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["tier"] = self.tier
        return out


@dataclass
class Diagnosis:
    """Everything one doctor run found; ``machine`` is the probe (or the assumed machine)."""

    machine: Any
    env: EnvFacts | None
    findings: list[Finding] = field(default_factory=list)
    runtime: dict[str, Any] | None = None   # what the in-env probe script said, if it ran

    @property
    def worst(self) -> str | None:
        for sev in SEVERITIES:
            if any(f.severity == sev for f in self.findings):
                return sev
        return None

    def to_json(self) -> dict[str, Any]:
        return {
            "machine": self.machine.to_json() if self.machine is not None else None,
            "env": self.env.to_json() if self.env else None,
            "runtime": self.runtime,
            "findings": [f.to_json() for f in self.findings],
            "ok": not any(f.severity == "error" for f in self.findings),
        }


@dataclass
class Context:
    """The world a doctor run looks at; tests replace each part (a fake root, a planted environment)."""

    environ: dict[str, str]
    root: str = "/"                      # filesystem root for machine paths (/usr/lib/wsl/lib ...)
    torch_mirror: str | None = None      # base URL for fix commands (<base>/<tier>)
    run_subprocesses: bool = True        # ldd / nvcc; off in tests that must not depend on the host
