"""``torchenv`` command line: parse, dispatch, turn TorchenvError into a clear message + exit code.

Why so thin: every verb lives in ``commands/<verb>.py`` as ``register(subparsers)`` and
``run(args) -> int`` over the Python API. Command modules import nothing heavy at module
level, so building the parser stays cheap.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from . import __version__

COMMANDS = ("init", "probe", "plan", "up", "lock", "verify", "run", "shell",
            "mirror", "bundle", "doctor", "export", "recipes")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="torchenv",
        description="A verified, reproducible PyTorch + CUDA environment for this project, in one command.")
    parser.add_argument("--version", action="version", version=f"torchenv {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        module = importlib.import_module(f"torchenv.commands.{name}")
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    from .errors import TorchenvError

    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except TorchenvError as exc:
        if getattr(args, "json", False):
            from .ui import Ui

            Ui(json_mode=True).emit_json(exc.to_json())
        else:
            from .errors import PlanRefused
            from .ui import Ui

            if isinstance(exc, PlanRefused):      # up/lock refuse like plan does: why, and what would work
                from .commands.plan import show_refusal

                show_refusal(Ui(), exc)
            else:
                Ui().error(exc.message, exc.hint)
        return exc.exit_code
    except KeyboardInterrupt:
        sys.stderr.write("torchenv: interrupted; nothing half-written was left in place "
                         "(run the same command again to finish)\n")
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
