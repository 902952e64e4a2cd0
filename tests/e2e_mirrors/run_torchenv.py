"""Run the torchenv CLI in a subprocess, watching its connections.

Loopback mirrors are named in the user's own mirrors file (``E2E.add_presets``), as a user names
theirs, so nothing is patched in-process. With ``TEST_CONNECTS_LOG`` naming a file, every
TCP connect the process starts is logged there with the timeout torchenv asked for, and
``TEST_CONNECT_CAP_S`` shortens a hanging one (tests count the attempts a dead mirror costs instead
of waiting them out; tests/support/connects.py). Everything else is the real CLI.
"""
from __future__ import annotations

import sys


def _watch_connects() -> None:
    """tests/support/connects.py, loaded by its path (this script's folder, not the repo, is on sys.path)."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location("connects", Path(__file__).parents[1] / "support" / "connects.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.watch_from_environ()


if __name__ == "__main__":
    _watch_connects()
    from torchenv.cli import main

    sys.exit(main(sys.argv[1:]))
