"""The intent: what a project asks for in ``torchenv.toml`` (after parsing and normalising).

Why frozen dataclasses: the resolver, lock (intent hash) and commands all read the
same object; flags produce a modified copy with ``dataclasses.replace``.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

INTENT_FILE = "torchenv.toml"


@dataclass(frozen=True)
class TorchIntent:
    version: str | None = None          # PEP 440 spec as written ("2.4" is normalised to "==2.4.*")
    cuda: str = "auto"                  # auto | cpu | cuXYZ | rocmX.Y (normalised: "12.1" -> "cu121")
    python: str | None = None           # "3.11"; None = let the resolver choose
    with_: tuple[str, ...] = ()         # companions: torchvision, torchaudio
    policy: str = "compat"              # compat (NVIDIA minor-version floors) | strict (toolkit driver)
    allow_experimental: bool = False    # allow experimental tiers even when a stable one fits


@dataclass(frozen=True)
class EnvIntent:
    path: str = ".venv"
    backend: str = "venv"               # venv | conda | auto
    installer: str = "uv"               # uv | pip
    requirements: tuple[str, ...] = ()  # requirement files of the project; () = autodetect
    extras: tuple[str, ...] = ()        # the project's own optional-dependency groups (`pip install -e ".[extra]"`)
    jupyter: bool | None = None         # a Jupyter kernel (ipykernel + kernelspec); None = when the project has notebooks


@dataclass(frozen=True)
class MirrorIntent:
    use: str | None = None              # preset name or "auto"
    pypi: str | tuple[str, ...] | None = None     # a list: the first is the index, the rest extra indexes
    torch: str | tuple[str, ...] | None = None    # base(s): <base>/<tier>/ is the tier's index; a list shares chunks
    torch_layout: str | None = None     # index | flat
    conda: dict[str, str] = field(default_factory=dict)
    fallback: tuple[str, ...] = ()      # preset names tried after the chosen one


@dataclass(frozen=True)
class CondaIntent:
    channels: tuple[str, ...] = ("conda-forge",)
    packages: tuple[str, ...] = ()
    torch_source: str = "wheels"        # wheels | conda


@dataclass(frozen=True)
class Intent:
    torch: TorchIntent = field(default_factory=TorchIntent)
    env: EnvIntent = field(default_factory=EnvIntent)
    mirror: MirrorIntent = field(default_factory=MirrorIntent)
    conda: CondaIntent = field(default_factory=CondaIntent)
    file: Path | None = None            # the torchenv.toml it came from, if any
    project: Path | None = None         # the project directory (-C DIR) even when it has no torchenv.toml
    # who set a key when it was not the file: ("torch.cuda", "the user (--cuda)"), ("torch.version", "torchenv
    # (fallback: ...)"); keys written in the file need no entry. Not part of the meaning (to_json, hash).
    origins: tuple[tuple[str, str], ...] = ()

    @property
    def project_dir(self) -> Path:
        if self.file:
            return self.file.parent
        return self.project if self.project else Path.cwd()

    def set_by(self, who: str, *keys: str) -> Intent:
        """This intent with ``keys`` ("torch.cuda") recorded as set by ``who`` (a flag, a followed lock, a rule)."""
        from dataclasses import replace

        kept = tuple((k, w) for k, w in self.origins if k not in keys)
        return replace(self, origins=kept + tuple((k, who) for k in keys))

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["file"] = str(self.file) if self.file else None
        data["project"] = str(self.project) if self.project else None
        data.pop("origins", None)
        data["torch"]["with"] = list(data["torch"].pop("with_"))
        return data

    def hash(self) -> str:
        """Hash of the *meaning* (not the bytes): comments or key order do not force a re-resolve.

        ``[mirror]`` is left out: mirrors change where bytes come from, never which bytes (the
        lock records canonical URLs and sha256), so a lock made in Beijing stays valid in Zurich.
        ``[env] jupyter`` too: the ipykernel it adds is one of the requirements, hashed with them.
        """
        data = self.to_json()
        data.pop("file", None)
        data.pop("project", None)
        data.pop("mirror", None)
        # what [env] jupyter changes (ipykernel among the requirements) is in the lock's requirements-hash
        data["env"].pop("jupyter", None)
        blob = json.dumps(data, sort_keys=True, separators=(",", ":"), default=list)
        return "sha256:" + hashlib.sha256(blob.encode()).hexdigest()
