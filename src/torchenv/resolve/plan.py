"""The Plan: every decision ``up`` will carry out, each with its reason.

Why: deciding is kept apart from doing (virtualenv's session_via_cli vs cli_run).
``torchenv plan`` prints this object; ``up`` executes it and decides nothing new.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..intent.model import Intent
    from ..machine import Machine
    from ..sources.model import Sources

# Sources of a planned package: the tier's torch index (or its mirror), or the PyPI side
# (only for PyPI's own default build of that release on that platform, exactly pinned).
FROM_TORCH_INDEX = "torch-index"
FROM_PYPI = "pypi"


@dataclass(frozen=True)
class PlannedPackage:
    name: str
    version: str               # exact; torch carries its local tag when the index file has one ("2.4.1+cu121")
    source: str                # FROM_TORCH_INDEX | FROM_PYPI
    reason: str = ""

    @property
    def requirement(self) -> str:
        return f"{self.name}=={self.version}"


@dataclass(frozen=True)
class Plan:
    torch_version: str                       # "2.4.1" (no local tag)
    tier: str                                # cpu | cu121 | rocm6.2 | mps is reported as cpu on macOS
    tier_status: str                         # stable | experimental
    cuda_version: str | None                 # "12.1" for cu121, None for cpu/rocm
    python: str                              # "3.11"
    backend: str                             # venv | conda
    installer: str                           # uv | pip
    platform: str                            # linux-x86_64
    packages: tuple[PlannedPackage, ...]
    pypi_default_build: bool                 # the tier is what PyPI serves for this release/platform
    reasons: tuple[str, ...]
    machine: Machine
    intent: Intent
    sources: Sources | None = None
    python_path: str | None = None           # interpreter on this machine with that version, if any
    warnings: tuple[str, ...] = ()
    expects_gpu: bool = False                # verify should find CUDA/ROCm/MPS devices
    compiled_archs: tuple[str, ...] = ()     # sm_XY / compute_XY the chosen build carries
    backend_reason: str = ""
    import_requirements: tuple[str, ...] = ()   # PyPI-side packages torch's import needs ("numpy<2"), see recipes

    @property
    def target_name(self) -> str:
        """Lock target key, e.g. ``linux-x86_64-cu121``."""
        return f"{self.platform}-{self.tier}"

    def package(self, name: str) -> PlannedPackage | None:
        return next((p for p in self.packages if p.name == name), None)

    def to_json(self) -> dict[str, Any]:
        from ..reasons import to_json as reason_json

        return {
            "torch": self.torch_version,
            "tier": self.tier,
            "tier_status": self.tier_status,
            "cuda": self.cuda_version,
            "python": self.python,
            "python_path": self.python_path,
            "backend": self.backend,
            "backend_reason": self.backend_reason,
            "backend_reason_data": reason_json(self.backend_reason),
            "installer": self.installer,
            "platform": self.platform,
            "target": self.target_name,
            "pypi_default_build": self.pypi_default_build,
            "expects_gpu": self.expects_gpu,
            "compiled_archs": list(self.compiled_archs),
            "packages": [{"name": p.name, "version": p.version, "source": p.source, "reason": p.reason}
                         for p in self.packages],
            "sources": self.sources.to_json() if self.sources else None,
            "reasons": list(self.reasons),
            "reasons_data": [reason_json(r) for r in self.reasons],
            "import_requirements": list(self.import_requirements),
            "warnings": list(self.warnings),
            "warnings_data": [reason_json(w) for w in self.warnings],
            "machine": {
                "os": self.machine.os, "arch": self.machine.arch, "driver": self.machine.driver,
                "compute_capabilities": [g.compute_capability for g in self.machine.gpus],
                "assumed": self.machine.assumed,
            },
            "intent_hash": self.intent.hash(),
        }
