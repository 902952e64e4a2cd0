"""Flag groups shared by several verbs, so ``plan``, ``up`` and ``lock`` accept the same words."""
from __future__ import annotations

import argparse
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from ..i18n import _
from ..options import BundleOptions, IntentOverrides, LockOptions, MachineSpec, SourceOverrides, UpOptions

if TYPE_CHECKING:
    from ..intent.model import Intent
    from ..machine import Machine

R = TypeVar("R")


def add_project(p: argparse.ArgumentParser, *, walks_up: bool = True) -> None:
    found = (_("project directory, or any folder inside it: the nearest torchenv.toml at or above it is used")
             if walks_up else _("directory to write torchenv.toml in"))
    p.add_argument("-C", "--project", default=".", metavar="DIR",
                   help=_("{what} (default: the current directory)").format(what=found))


def add_quiet(p: argparse.ArgumentParser) -> None:
    p.add_argument("-q", "--quiet", action="store_true", help=_("print only errors and the final result"))


def add_json(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help=_("machine-readable output on stdout"))


def add_intent_overrides(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group(_("intent overrides (win over torchenv.toml)"))
    g.add_argument("--torch", metavar="SPEC", help=_('torch version: PEP 440 spec or bare minor, e.g. "2.4"'))
    g.add_argument("--cuda", metavar="TIER", help=_("auto | cpu | 12.1 | cu121 | rocm6.2"))
    g.add_argument("--python", metavar="X.Y", help=_("Python version for the environment"))
    g.add_argument("--with", dest="with_", action="append", metavar="NAME",
                   help=_("companion package (repeatable): torchvision, torchaudio"))
    g.add_argument("--policy", choices=["compat", "strict"],
                   help=_("driver policy: compat = NVIDIA minor-version floors (default), strict = toolkit drivers"))
    g.add_argument("--experimental", action="store_true", help=_("allow experimental CUDA tiers"))
    g.add_argument("--backend", choices=["venv", "conda", "auto"], help=_("environment backend"))
    g.add_argument("--installer", choices=["uv", "pip"], help=_("wheel installer engine"))


def add_machine_assumptions(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group(_("machine (assume instead of probing)"))
    g.add_argument("--machine", metavar="FILE", help=_("a saved probe (torchenv probe --save FILE), or a cluster file "
                     "(torchenv cluster probe -o FILE): one target for every node type"))
    g.add_argument("--assume-os", choices=["linux", "windows", "macos"])
    g.add_argument("--assume-arch", choices=["x86_64", "aarch64", "arm64"])
    g.add_argument("--assume-driver", metavar="VERSION", help=_("NVIDIA driver version, e.g. 550.54.14"))
    g.add_argument("--assume-gpu", action="append", metavar="CC",
                   help=_("a GPU's compute capability, e.g. 8.6 (repeat once per GPU)"))
    g.add_argument("--assume-gfx", action="append", metavar="GFX",
                   help=_("an AMD GPU's gfx target, e.g. gfx90a (MI200) or gfx1100 (RX 7900); repeat once per GPU"))
    g.add_argument("--assume-no-gpu", action="store_true", help=_("plan for a machine with no GPU"))
    g.add_argument("--assume-python", action="append", metavar="X.Y",
                   help=_("a Python version available on the target machine (repeatable)"))
    g.add_argument("--assume-glibc", metavar="X.Y", help=_("glibc version of the target machine"))


def add_mirror_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group(_("mirrors"))
    g.add_argument("--mirror", metavar="NAME", help=_("mirror preset (tuna, aliyun, ...), 'auto' or 'official'"))
    g.add_argument("--pypi-mirror", metavar="URL", help=_("PyPI-side simple index URL"))
    g.add_argument("--torch-mirror", metavar="URL", help=_("torch wheel base URL (<base>/<tier>/)"))
    g.add_argument("--torch-layout", choices=["index", "flat"], help=_("layout of --torch-mirror"))


def add_offline_flags(p: argparse.ArgumentParser) -> None:
    """``--offline`` and ``--from`` for ``torchenv up``."""
    g = p.add_argument_group(_("offline (air-gapped machines)"))
    g.add_argument("--offline", action="store_true",
                   help=_("no network at all: install torchenv.lock's target from --from and/or the local cache"))
    g.add_argument("--from", dest="from_", metavar="BUNDLE.tar|DIR",
                   help=_("a bundle made by `torchenv bundle` (tar or unpacked folder), or a folder of wheels and "
                          "conda packages downloaded by hand; implies --offline"))


def with_project(data: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    """``--json`` output plus which project root and file the command used (``project``, ``project_file``)."""
    located = getattr(args, "located", None)
    return {**data, **located.to_json()} if located is not None else data


# --- the edge: argparse namespaces become the frozen requests of ``torchenv.options`` ------------------------

def _request(cls: type[R], args: argparse.Namespace, **nested: Any) -> R:
    """``cls`` filled from the namespace attributes of the same names (a verb without a flag group: defaults).

    Why one loop: the dataclass fields are the list of options; nothing keeps a second copy of the names.
    """
    values: dict[str, Any] = {}
    for f in fields(cls):  # type: ignore[arg-type]
        value = getattr(args, f.name, None)
        if f.name not in nested and value is not None:
            values[f.name] = tuple(value) if isinstance(value, list) else value
    return cls(**values, **nested)


def intent_overrides(args: argparse.Namespace) -> IntentOverrides:
    return _request(IntentOverrides, args)


def machine_spec(args: argparse.Namespace) -> MachineSpec:
    return _request(MachineSpec, args)


def source_overrides(args: argparse.Namespace) -> SourceOverrides:
    """``--mirror`` & co., checked like ``[mirror]`` of torchenv.toml (an error names the flag)."""
    sources = _request(SourceOverrides, args)
    if sources.given:
        from ..intent.load import apply_overrides
        from ..intent.model import Intent

        apply_overrides(Intent(), IntentOverrides(), mirror=sources)
    return sources


def up_options(args: argparse.Namespace) -> UpOptions:
    from_ = getattr(args, "from_", None)
    return _request(UpOptions, args, intent=intent_overrides(args), machine=machine_spec(args),
                    sources=source_overrides(args), from_=Path(from_).expanduser().resolve() if from_ else None)


def lock_options(args: argparse.Namespace) -> LockOptions:
    return LockOptions(intent=intent_overrides(args), machine=machine_spec(args), sources=source_overrides(args),
                       targets=tuple(getattr(args, "target", None) or ()),
                       reset_overrides=getattr(args, "reset_overrides", False))


def bundle_options(args: argparse.Namespace) -> BundleOptions:
    output = getattr(args, "output", None)
    return BundleOptions(sources=source_overrides(args), targets=tuple(getattr(args, "target", None) or ()),
                         output=Path(output) if output else None, tool=not getattr(args, "no_tool", False))


def intent_from_args(args: argparse.Namespace) -> Intent:
    """torchenv.toml of the project (or, without one, the torch pin of its pylock.toml/uv.lock, as ``up``
    follows it; else defaults), with command-line overrides applied."""
    from ..flows.stages import load_intent

    return load_intent(Path(getattr(args, "project", ".") or "."), intent_overrides(args))


def machine_from_args(args: argparse.Namespace) -> Machine:
    """The probed machine, or the one the --machine/--assume-* flags describe."""
    from ..probing.assume import machine_for

    return machine_for(machine_spec(args))
