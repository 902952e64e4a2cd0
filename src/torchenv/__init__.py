"""torchenv: the PyTorch stack that really runs on this machine, in a verified, locked env.

The command line is a thin layer over this API (see ``docs/api.md``)::

    import torchenv
    machine = torchenv.probe()                     # facts: driver, GPUs + compute capability, Pythons...
    plan = torchenv.plan(machine=machine)          # a Plan (or PlanRefused with alternatives)
    result = torchenv.up("path/to/project")        # UpResult: status, env_path, target, verify_ok
    torchenv.lock("path/to/project", torchenv.LockOptions(targets=("linux-x86_64-cu126",)))
    report = torchenv.verify("path/to/project")    # VerifyReport: .ok, .checks

Requests are frozen dataclasses (``UpOptions``, ``LockOptions``, ``BundleOptions``, ``MachineSpec``,
``IntentOverrides``, ``SourceOverrides``); each call returns a result object and raises a
``torchenv.errors.TorchenvError`` subclass for bad input. Imports are lazy so that ``import torchenv``
stays cheap for other tools. Every verb is a plain function: no subpackage shares a verb's name
(``lockfile``, ``probing``, ``verification`` and ``diagnosis`` hold their code), so importing one
never replaces a verb in this namespace.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from .version import __version__

_REQUESTS = ("BundleOptions", "IntentOverrides", "LockOptions", "MachineSpec", "SourceOverrides", "UpOptions")

if TYPE_CHECKING:
    from .diagnosis.model import Diagnosis
    from .flows.lockcmd import LockResult
    from .flows.up import UpResult
    from .intent.model import Intent
    from .machine import Machine
    from .offline.build import BundleResult
    from .options import BundleOptions, IntentOverrides, LockOptions, MachineSpec, SourceOverrides, UpOptions
    from .resolve.plan import Plan
    from .ui import Ui
    from .verification.report import VerifyReport


def __getattr__(name: str) -> Any:
    """The request classes (``torchenv.UpOptions`` ...) load on first use: ``import torchenv`` stays ~2 ms."""
    if name in _REQUESTS:
        from . import options

        return getattr(options, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def probe(machine: MachineSpec | None = None) -> Machine:
    """Probe this machine, or describe the one ``machine`` names (a saved probe, ``assume_*`` facts).

    Never raises for a missing or broken driver: that is a finding of the probe.
    """
    from .options import MachineSpec
    from .probing.assume import machine_for

    return machine_for(machine or MachineSpec())


def plan(intent: Intent | None = None, machine: Machine | MachineSpec | None = None, *,
         project_dir: str | Path | None = None, sources: SourceOverrides | None = None) -> Plan:
    """What ``up`` would install: the build that runs on ``machine`` and can be fetched from here.

    ``intent``: default ./torchenv.toml (or ``project_dir``'s), else defaults. ``machine``: a probed
    ``Machine``, or a ``MachineSpec`` to probe or assume (default: this machine). Asks the planner
    ``up``, ``lock`` and ``torchenv plan`` ask, so the answers agree; raises ``PlanRefused`` (with
    alternatives) when nothing fits.
    """
    from .flows.planning import PlanRequest, plan_reachable
    from .intent.load import load_project_intent
    from .options import MachineSpec, SourceOverrides

    if intent is None:
        intent = load_project_intent(Path(project_dir) if project_dir else Path.cwd())
    return plan_reachable(PlanRequest(intent, machine or MachineSpec(), sources or SourceOverrides()))


def _quiet_ui(ui: Ui | None) -> Ui:
    from .ui import Ui

    return ui if ui is not None else Ui(quiet=True)


def up(project: str | Path = ".", options: UpOptions | None = None, *, ui: Ui | None = None) -> UpResult:
    """Make the project's env exactly what torchenv.lock says (locking first when needed), then verify it.

    ``project``: the folder holding torchenv.toml (or any folder: defaults apply). Returns an ``UpResult``
    (``status``: up-to-date | installed | synced | repaired | rebuilt | verified; ``verify_ok``; ``exit_code``).
    ``ui``: where progress goes; default: errors only.
    """
    from .flows.up import run_up
    from .options import UpOptions

    return run_up(Path(project), options or UpOptions(), _quiet_ui(ui))


def lock(project: str | Path = ".", options: LockOptions | None = None, *, ui: Ui | None = None) -> LockResult:
    """Write torchenv.lock without installing: this machine's target, or ``options.targets`` for others."""
    from .flows.lockcmd import LockResult, run_lock
    from .options import LockOptions

    project_dir = Path(project).resolve()
    written = run_lock(project_dir, options or LockOptions(), _quiet_ui(ui))
    return LockResult.read(project_dir, tuple(written))


def bundle(project: str | Path = ".", options: BundleOptions | None = None, *,
           ui: Ui | None = None) -> BundleResult:
    """Pack every file of torchenv.lock's targets into one tar for a machine without network."""
    from .flows.stages import bundle_current
    from .options import BundleOptions

    return bundle_current(Path(project), options or BundleOptions(), _quiet_ui(ui))


def verify(project: str | Path = ".", *, env: str | Path | None = None, deep: bool = False,
           timeout: float = 600) -> VerifyReport:
    """Prove the project's env (or ``env``) works: import, versions against the lock, devices, computation.

    Never raises for a broken env: the report says what failed (``report.ok``); it is also saved to
    ``<project>/.torchenv/verify.json``.
    """
    from .flows.verifyenv import verify_project

    report, _path = verify_project(Path(project), env=env, deep=deep, timeout=timeout)
    return report


def doctor(project: str | Path = ".", *, env: str | Path | None = None, machine: MachineSpec | None = None,
           import_check: bool = True) -> Diagnosis:
    """Diagnose an env (default: the active one, the project's, or this Python) against the machine.

    Returns a ``Diagnosis`` whose ``findings`` each carry a severity and the command that fixes it.
    """
    import os

    from .diagnosis import envscan
    from .diagnosis.diagnose import diagnose
    from .diagnosis.model import Context
    from .options import MachineSpec
    from .probing.assume import machine_for

    prefix, _how = envscan.find_prefix(str(env) if env is not None else None, Path(project))
    return diagnose(machine_for(machine or MachineSpec()), prefix, Context(environ=dict(os.environ)),
                    import_check=import_check)


__all__ = ["BundleOptions", "IntentOverrides", "LockOptions", "MachineSpec", "SourceOverrides", "UpOptions",
           "__version__", "bundle", "doctor", "lock", "plan", "probe", "up", "verify"]
