"""`torchenv completion bash|zsh|fish`: a completion script on stdout, generated from the parser."""
from __future__ import annotations

import argparse
import sys

from ..i18n import _

SHELLS = ("bash", "zsh", "fish")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("completion", help=_("print a shell completion script (bash, zsh, fish)"),
                       description=_("Print a completion script for SHELL, e.g. `source <(torchenv completion bash)`."))
    p.add_argument("shell", choices=SHELLS, help=_("the shell to complete in"))
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..export.completion import SHELLS as WRITERS
    from . import build_parser

    sys.stdout.write(WRITERS[args.shell](build_parser()))
    return 0
