"""``python -m torchenv.offline up --offline --from B.tar``: ``up --offline`` until ``torchenv up`` carries the flags.

Why it exists: ``commands/up.py`` belongs to the up/lock work; this entry point parses the
same flags (``commands.up.register`` + ``add_offline_flags``) so the offline path can be
used and tested now. Once ``torchenv up --offline`` is wired it is just an alias.
"""
from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    from ..commands import up as up_cmd
    from ..errors import TorchenvError
    from .install import add_offline_flags, up_offline

    parser = argparse.ArgumentParser(prog="python -m torchenv.offline")
    sub = parser.add_subparsers(dest="command", required=True)
    up_cmd.register(sub)
    p = sub.choices["up"]
    if not any(a.dest == "from_" for a in p._actions):
        add_offline_flags(p)
    args = parser.parse_args(argv)
    from pathlib import Path

    from ..ui import Ui

    ui = Ui(quiet=args.quiet)
    try:
        result = up_offline(Path(args.project or "."), args, ui)
    except TorchenvError as exc:
        ui.error(exc.message, exc.hint)
        return exc.exit_code
    ui.info(f"[bold green]ready:[/] {result.env_path} (target {result.target}, {result.status}, offline)")
    return result.exit_code


if __name__ == "__main__":
    sys.exit(main())
