"""Run the torchenv CLI in a subprocess, optionally with extra mirror presets.

Why: ``[mirror] fallback`` accepts preset names only (``sources.mirrors.check_name``), and the
shipped presets point at real hosts. To test fallback end to end on loopback servers, this
runner adds the presets of the mirrors.toml-shaped file named by ``TORCHENV_E2E_PRESETS``
before handing over to ``torchenv.cli.main``. With ``TORCHENV_E2E_CONNECTS`` naming a file, every
TCP connect the process starts is logged there as ``host:port`` lines (tests count the attempts a
dead mirror costs instead of timing them). Everything else is the real CLI.
"""
from __future__ import annotations

import os
import sys


def _add_presets(path: str) -> None:
    from torchenv.sources import mirrors

    shipped = mirrors.presets()
    extra = mirrors.load_candidates(path)
    merged = {**shipped, **extra}
    mirrors.presets = lambda: merged   # select.py and check_name look it up at call time


def _log_connects(path: str) -> None:
    import socket

    real = socket.create_connection

    def create_connection(address, *args, **kwargs):
        with open(path, "a", encoding="utf-8") as log:
            log.write(f"{address[0]}:{address[1]}\n")
        return real(address, *args, **kwargs)

    socket.create_connection = create_connection


if __name__ == "__main__":
    if os.environ.get("TORCHENV_E2E_CONNECTS"):
        _log_connects(os.environ["TORCHENV_E2E_CONNECTS"])
    if os.environ.get("TORCHENV_E2E_PRESETS"):
        _add_presets(os.environ["TORCHENV_E2E_PRESETS"])
    from torchenv.cli import main

    sys.exit(main(sys.argv[1:]))
