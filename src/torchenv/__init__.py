"""torchenv: the PyTorch stack that really runs on this machine, in a verified, locked env.

The command line is a thin layer over this API::

    import torchenv
    machine = torchenv.probe()                     # facts: driver, GPUs + compute capability, Pythons...
    plan = torchenv.plan(machine=machine)          # a Plan (or PlanRefused with alternatives)

Imports are lazy so that ``import torchenv`` stays cheap for other tools.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from .intent.model import Intent
    from .machine import Machine
    from .resolve.plan import Plan


def probe(**kwargs: Any) -> "Machine":
    """Probe this machine (never raises for a missing/broken driver: that is a finding)."""
    from .probe import probe_machine

    return probe_machine(**kwargs)


def plan(intent: "Intent | None" = None, machine: "Machine | None" = None, *,
         project_dir: str | None = None, **options: Any) -> "Plan":
    """Resolve an intent (default: ./torchenv.toml or defaults) for a machine (default: probed)."""
    from pathlib import Path

    from .intent.load import load_project_intent
    from .resolve.resolver import resolve

    if intent is None:
        intent = load_project_intent(Path(project_dir) if project_dir else Path.cwd())
    if machine is None:
        machine = probe()
    return resolve(intent, machine, **options)


__all__ = ["__version__", "plan", "probe"]
