"""`torchenv lock`: resolve and write torchenv.lock (this machine, or --target NAME for others) without installing."""
from __future__ import annotations

import argparse

from ..i18n import _


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from ._options import add_intent_overrides, add_machine_assumptions, add_mirror_flags, add_project, add_quiet

    p = sub.add_parser("lock", help=_("write torchenv.lock without installing (add targets for other machines)"),
                       description=_("Resolve the plan to exact files with sha256 and write torchenv.lock. "
                                     "Without --target: this machine's target. Other targets are kept."))
    add_project(p)
    add_quiet(p)
    add_intent_overrides(p)
    add_machine_assumptions(p)
    add_mirror_flags(p)
    p.add_argument("--target", action="append", metavar="NAME",
                   help=_("lock for another machine: OS-ARCH-TIER, e.g. linux-x86_64-cu126, windows-x86_64-cpu, "
                          "macos-arm64-cpu (repeatable)"))
    p.add_argument("--reset-overrides", action="store_true",
                   help=_("plan from torchenv.toml alone, dropping the flags torchenv.lock remembers from the last up"))
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..flows.lockcmd import run_lock
    from ..ui import Ui
    from ._options import lock_options

    run_lock(Path(args.project or "."), lock_options(args), Ui(quiet=getattr(args, "quiet", False)))
    return 0
