"""One module per verb: ``register(subparsers)`` and ``run(args) -> int``; here, the parser they make together.

Why the parser here and not in ``cli``: ``cli`` runs a verb (and turns its errors into messages) and so
sits above the verbs; ``completion`` is a verb that needs the whole parser, so the parser sits with them.
"""
from __future__ import annotations

import argparse
import importlib

from ..i18n import N_, _
from ..version import __version__

COMMANDS = ("init", "probe", "plan", "up", "lock", "verify", "run", "shell",
            "mirror", "bundle", "doctor", "export", "completion", "recipes", "cluster", "kernel")
# argparse's own words (it asks ``argparse._`` for them; ``main`` points that at the catalogue)
ARGPARSE_TEXTS = (N_("usage: "), N_("options"), N_("positional arguments"), N_("show this help message and exit"),
                  N_("show program's version number and exit"), N_("%(prog)s: error: %(message)s\n"),
                  N_("the following arguments are required: %s"), N_("unrecognized arguments: %s"),
                  N_("invalid choice: %(value)r (choose from %(choices)s)"), N_("argument %(argument_name)s: %(message)s"),
                  N_("expected one argument"), N_("invalid %(type)s value: %(value)r"),
                  N_("not allowed with argument %s"), N_("ambiguous option: %(option)s could match %(matches)s"))


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; ``only``: just that verb's sub-parser (what ``main`` needs to run it).

    Why ``only``: each verb's module and its flags cost a few ms to import and register, and a run
    of one verb parses only its own flags; ``torchenv --help``, an unknown verb and ``completion``
    get every verb.
    """
    parser = argparse.ArgumentParser(
        prog="torchenv",
        description=_("A verified, reproducible PyTorch + CUDA environment for this project, in one command."))
    parser.add_argument("--version", action="version", version=f"torchenv {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in (only,) if only in COMMANDS else COMMANDS:
        module = importlib.import_module(f"torchenv.commands.{name}")
        module.register(sub)
    return parser
