"""Run the torchenv CLI in a subprocess, optionally with extra mirror presets.

Why: ``[mirror] fallback`` accepts preset names only (``sources.mirrors.check_name``), and the
shipped presets point at real hosts. To test fallback end to end on loopback servers, this
runner adds the presets of the mirrors.toml-shaped file named by ``TORCHENV_E2E_PRESETS``
before handing over to ``torchenv.cli.main``. With ``TEST_CONNECTS_LOG`` naming a file, every
TCP connect the process starts is logged there with the timeout torchenv asked for, and
``TEST_CONNECT_CAP_S`` shortens a hanging one (tests count the attempts a dead mirror costs instead
of waiting them out; tests/support/connects.py). Everything else is the real CLI.
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
    if os.environ.get("TORCHENV_E2E_PRESETS"):
        _add_presets(os.environ["TORCHENV_E2E_PRESETS"])
    from torchenv.cli import main

    sys.exit(main(sys.argv[1:]))
