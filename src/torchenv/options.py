"""What a caller asks of ``up``, ``lock`` and ``bundle``: frozen requests, built once at the edge.

Why dataclasses and not the argparse namespace: the core (``install``, ``offline``, ``resolve``,
``probe``, ``intent``) can then be called from Python with exactly the options it understands, a
typo is an error instead of a silently missing attribute, and the command line is one caller among
others (``torchenv.up()`` is another). The field names are the argparse ``dest`` names, so the CLI
builds them with one loop (``commands._options``). Standard library only: the no-op ``up`` imports it.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path


def _any_given(request: object) -> bool:
    """True when any field of ``request`` differs from "not given" (None, False, empty)."""
    return any(getattr(request, f.name) for f in fields(request))  # type: ignore[arg-type]


@dataclass(frozen=True)
class IntentOverrides:
    """``--torch``, ``--cuda``, ... : values that win over torchenv.toml (validated like the file's)."""

    torch: str | None = None
    cuda: str | None = None
    python: str | None = None
    with_: tuple[str, ...] = ()          # companions added to the file's ``with`` list
    policy: str | None = None
    experimental: bool = False           # can only turn experimental tiers on
    backend: str | None = None
    installer: str | None = None


@dataclass(frozen=True)
class MachineSpec:
    """The machine to plan for: a saved probe (``machine``), ``assume_*`` facts, or nothing (probe this one)."""

    machine: str | None = None           # a file written by `torchenv probe --save`
    assume_os: str | None = None
    assume_arch: str | None = None
    assume_driver: str | None = None
    assume_gpu: tuple[str, ...] = ()     # one compute capability per GPU
    assume_gfx: tuple[str, ...] = ()     # one AMD gfx target per GPU (ROCm)
    assume_no_gpu: bool = False
    assume_python: tuple[str, ...] = ()
    assume_glibc: str | None = None

    @property
    def given(self) -> bool:
        """Describes another machine than this one (the no-op check cannot answer for it)."""
        return _any_given(self)

    @property
    def has_assumptions(self) -> bool:
        return any(getattr(self, f.name) for f in fields(self) if f.name.startswith("assume_"))


@dataclass(frozen=True)
class SourceOverrides:
    """``--mirror`` and friends: the top layer of the source configuration (see ``sources.mirrors``)."""

    mirror: str | None = None            # preset name, 'auto' or 'official'
    pypi_mirror: str | None = None
    torch_mirror: str | None = None
    torch_layout: str | None = None

    @property
    def given(self) -> bool:
        return _any_given(self)


@dataclass(frozen=True)
class UpOptions:
    """Everything ``up`` may be told besides the project folder."""

    intent: IntentOverrides = field(default_factory=IntentOverrides)
    machine: MachineSpec = field(default_factory=MachineSpec)
    sources: SourceOverrides = field(default_factory=SourceOverrides)
    no_verify: bool = False
    force: bool = False                  # replace a foreign Python env at the env path
    frozen: bool = False                 # install the lock as it is; never resolve
    offline: bool = False
    from_: Path | None = None            # a bundle or a folder of files; implies offline
    save: bool = False                   # write the intent flags into torchenv.toml (comments kept)
    reset_overrides: bool = False        # drop the flags torchenv.lock remembers from the last up
    exact: bool = False                  # remove packages added by hand (a plain up keeps them)

    @property
    def is_offline(self) -> bool:
        return bool(self.offline or self.from_)

    @property
    def needs_full_path(self) -> bool:
        """Options the no-op check cannot answer for: another machine, other sources, ``force``."""
        return self.force or self.exact or self.machine.given or self.sources.given


@dataclass(frozen=True)
class LockOptions:
    """``lock``: this machine's target, or ``targets`` (``linux-x86_64-cu126`` ...) for others."""

    intent: IntentOverrides = field(default_factory=IntentOverrides)
    machine: MachineSpec = field(default_factory=MachineSpec)
    sources: SourceOverrides = field(default_factory=SourceOverrides)
    targets: tuple[str, ...] = ()
    reset_overrides: bool = False        # plan from torchenv.toml alone, not with the flags the last up kept


@dataclass(frozen=True)
class BundleOptions:
    """``bundle``: which lock targets to pack, where, and from which sources."""

    sources: SourceOverrides = field(default_factory=SourceOverrides)
    targets: tuple[str, ...] = ()        # empty: every target of torchenv.lock
    output: Path | None = None
    tool: bool = True                    # include torchenv's own wheels
