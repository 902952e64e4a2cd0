"""`torchenv doctor` (placeholder until implemented)."""
from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("doctor", help="(not implemented yet)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..errors import TorchenvError

    raise TorchenvError("torchenv doctor is not implemented yet")
