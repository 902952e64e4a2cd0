"""torchenv.lock in memory: one file, several targets, every artifact with its sha256.

Why one file with targets: a team locks once for the cluster (linux-x86_64-cu126), the
laptops (macos-arm64-cpu) and CI (linux-x86_64-cpu); ``up`` picks the target matching
the machine and installs exactly those files, checking every hash.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

LOCK_FILE = "torchenv.lock"
LOCK_VERSION = 1


@dataclass(frozen=True)
class LockedWheel:
    name: str                  # normalised project name
    version: str               # exact, with local tag when the file has one
    filename: str
    url: str                   # canonical URL (never the mirror that happened to serve it)
    sha256: str
    index: str                 # canonical index/source the file belongs to
    source: str = "pypi"       # torch-index | pypi (routing class, see resolve.plan)
    size: int | None = None


@dataclass(frozen=True)
class LockedCondaPackage:
    name: str
    version: str
    build: str
    subdir: str                # linux-64 / noarch
    url: str                   # canonical channel URL
    sha256: str
    md5: str | None = None
    channel: str = ""
    size: int | None = None
    # Added for the conda backend: what an install without a solve (and conda-meta, and the
    # conda-lock export's `dependencies`) needs from the repodata record.
    build_number: int = 0
    depends: tuple[str, ...] = ()
    constrains: tuple[str, ...] = ()
    noarch: str | None = None           # generic | python
    timestamp: int | None = None        # ms since epoch (repodata)
    license: str | None = None


@dataclass(frozen=True)
class LockTarget:
    name: str                  # linux-x86_64-cu121
    os: str
    arch: str
    tier: str
    python: str                # "3.11"
    backend: str               # venv | conda
    torch: str                 # "2.4.1+cu121"
    wheels: tuple[LockedWheel, ...] = ()
    conda: tuple[LockedCondaPackage, ...] = ()
    virtual_packages: tuple[str, ...] = ()   # conda: "__cuda=12.8", "__glibc=2.36"
    channels: tuple[str, ...] = ()           # conda channels, canonical
    # what a build against torch runs but the env never holds (nvcc of the tier's CUDA: backends/cudatool.py)
    build_tools: tuple[LockedWheel, ...] = ()

    def __post_init__(self) -> None:
        # Canonical order (as written in torchenv.lock): a target equals its own round trip, and
        # what ``up`` installs right after locking is what it would install from the lock.
        object.__setattr__(self, "wheels", tuple(sorted(self.wheels, key=lambda w: (w.name, w.filename))))
        object.__setattr__(self, "conda", tuple(sorted(self.conda, key=lambda c: (c.name, c.subdir, c.build))))
        object.__setattr__(self, "build_tools", tuple(sorted(self.build_tools, key=lambda w: (w.name, w.filename))))

    def wheel(self, name: str) -> LockedWheel | None:
        return next((w for w in self.wheels if w.name == name), None)


@dataclass(frozen=True)
class Lockfile:
    intent_hash: str                              # torchenv.toml's meaning (``Intent.hash()``), [mirror] excluded
    targets: tuple[LockTarget, ...]
    machine: dict[str, Any] = field(default_factory=dict)   # facts the plan used: os, arch, driver, compute_capabilities
    torchenv_version: str = ""
    version: int = LOCK_VERSION
    # the project requirements (``intent.project_requirements.requirements_digest``); None in locks
    # written before the key existed, whose intent-hash folded the requirements in
    requirements_hash: str | None = None
    # the project itself when it is a package (``flows.project_install.lock_entry``): an editable
    # path entry, without a hash because its files are the working tree
    project: dict[str, Any] = field(default_factory=dict)
    # the intent flags of the ``up`` that wrote it (``flows.overrides.record``), kept by a plain ``up``
    overrides: dict[str, Any] = field(default_factory=dict)

    def target(self, name: str) -> LockTarget | None:
        return next((t for t in self.targets if t.name == name), None)

    def with_target(self, target: LockTarget) -> Lockfile:
        """Replace (or add) one target, keeping the others; targets stay sorted by name."""
        others = [t for t in self.targets if t.name != target.name]
        return Lockfile(intent_hash=self.intent_hash, machine=self.machine,
                        torchenv_version=self.torchenv_version, version=self.version,
                        requirements_hash=self.requirements_hash, project=self.project,
                        overrides=self.overrides,
                        targets=tuple(sorted([*others, target], key=lambda t: t.name)))
