"""Machine facts: what the probe finds, or what ``--assume-*`` flags / a saved probe say.

Why a separate module: the probe writes these, the resolver, backends, lock and
doctor read them. Keeping the shape here (and JSON round-trips) lets a user plan
for another machine with ``--machine saved.json`` and lets tests run with no GPU.
"""
from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SCHEMA = 1


@dataclass(frozen=True)
class Gpu:
    name: str
    compute_capability: str | None  # "8.6"; None when no source could tell
    index: int = 0
    memory_mib: int | None = None
    uuid: str | None = None

    @property
    def cc_tuple(self) -> tuple[int, int] | None:
        if not self.compute_capability:
            return None
        major, _, minor = self.compute_capability.partition(".")
        return int(major), int(minor or 0)


@dataclass(frozen=True)
class NvidiaInfo:
    driver: str | None                 # "550.144.03"
    cuda_driver_version: str | None    # highest CUDA the driver supports, "12.4"
    gpus: list[Gpu] = field(default_factory=list)
    source: str = "unknown"            # nvml | sysfs | proc | nvidia-smi | assumed
    hidden_by_cuda_visible_devices: int = 0


@dataclass(frozen=True)
class RocmInfo:
    version: str | None
    gfx: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class AppleInfo:
    chip: str | None
    mps: bool = True


@dataclass(frozen=True)
class PythonInstall:
    version: str      # "3.11.7"
    path: str
    source: str       # path | pyenv | conda | uv | assumed


@dataclass(frozen=True)
class CondaExe:
    kind: str         # conda | mamba | micromamba
    path: str
    version: str | None = None


@dataclass(frozen=True)
class CudaToolkit:
    version: str | None
    path: str
    source: str       # nvcc | CUDA_HOME | /usr/local


@dataclass(frozen=True)
class Machine:
    os: str                              # linux | windows | macos
    arch: str                            # x86_64 | aarch64 | arm64
    glibc: str | None = None
    wsl: bool = False
    nvidia: NvidiaInfo | None = None
    rocm: RocmInfo | None = None
    apple: AppleInfo | None = None
    pythons: list[PythonInstall] = field(default_factory=list)
    conda: list[CondaExe] = field(default_factory=list)
    cuda_toolkits: list[CudaToolkit] = field(default_factory=list)
    cuda_visible_devices: str | None = None
    findings: list[str] = field(default_factory=list)   # non-fatal problems seen while probing
    assumed: bool = False                                # built from flags/file, not probed

    # -- convenience -------------------------------------------------------------------
    @property
    def gpus(self) -> list[Gpu]:
        return list(self.nvidia.gpus) if self.nvidia else []

    @property
    def driver(self) -> str | None:
        return self.nvidia.driver if self.nvidia else None

    @property
    def platform_key(self) -> str:
        """``linux-x86_64`` style key used by recipes and lock targets."""
        return f"{self.os}-{self.arch}"

    def python_versions(self) -> list[str]:
        """Minors on this machine, oldest first; a free-threaded build is its own entry ("3.14t")."""
        minors = {".".join(p.version.rstrip("t").split(".")[:2]) + ("t" if p.version.endswith("t") else "")
                  for p in self.pythons}
        return sorted(minors, key=lambda v: (tuple(int(x) for x in v.rstrip("t").split(".")), v.endswith("t")))

    # -- JSON ----------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        from .reasons import to_json

        data = dataclasses.asdict(self)
        data["findings"] = [str(f) for f in self.findings]
        data["findings_data"] = [to_json(f) for f in self.findings]   # shown in the reader's language
        data["schema"] = SCHEMA
        return data

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=2, sort_keys=True)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Machine:
        data = dict(data)
        data.pop("schema", None)
        nv = data.get("nvidia")
        if nv is not None:
            nv = dict(nv)
            nv["gpus"] = [Gpu(**g) for g in nv.get("gpus", [])]
            data["nvidia"] = NvidiaInfo(**nv)
        if data.get("rocm") is not None:
            data["rocm"] = RocmInfo(**data["rocm"])
        if data.get("apple") is not None:
            data["apple"] = AppleInfo(**data["apple"])
        data["pythons"] = [PythonInstall(**p) for p in data.get("pythons", [])]
        data["conda"] = [CondaExe(**c) for c in data.get("conda", [])]
        data["cuda_toolkits"] = [CudaToolkit(**c) for c in data.get("cuda_toolkits", [])]
        data["findings"] = _findings(data.get("findings") or [], data.pop("findings_data", None))
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    @classmethod
    def load(cls, path: str | Path) -> Machine:
        from .errors import MachineFileError

        p = Path(path)
        try:
            raw = json.loads(p.read_text())
        except FileNotFoundError:
            raise MachineFileError(f"{p}: no such machine file",
                                   hint="save one with `torchenv probe --save FILE` on the target machine") from None
        except json.JSONDecodeError as exc:
            raise MachineFileError(f"{p}:{exc.lineno}: not valid JSON ({exc.msg})",
                                   hint="a machine file is what `torchenv probe --save FILE` writes") from None
        try:
            machine = cls.from_json(raw)
        except (TypeError, KeyError, AttributeError) as exc:
            raise MachineFileError(f"{p}: not a torchenv machine file ({exc})",
                                   hint="regenerate it with `torchenv probe --save FILE`") from None
        return dataclasses.replace(machine, assumed=True)


def _findings(texts: list[Any], data: Any) -> list[str]:
    """The saved findings, each made again as the ``Reason`` it was (so it is shown in the reader's language)
    where its data was saved beside it and still reads as the same text; a file from before findings were
    data, or edited by hand, keeps its text."""
    from .reasons import from_json

    if not isinstance(data, list) or len(data) != len(texts):
        return [str(t) for t in texts]
    out = []
    for text, saved in zip(texts, data):
        try:
            made = from_json(saved)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            made = None
        out.append(made if made is not None and str(made) == str(text) else str(text))
    return out
