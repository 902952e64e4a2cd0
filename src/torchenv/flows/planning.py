"""The one planner: the Plan ``up``, ``lock``, ``torchenv plan`` and ``torchenv.plan()`` act on.

Why one function, handed to each caller rather than looked up: ``plan`` exists to show what ``up``
will do, which holds by construction only when both ask the same function the same question. A
caller (or a test) that wants another planner passes it in (``run_up(..., planner=...)``); nothing
is patched, and everything a plan depends on travels in the ``PlanRequest``, the lock in use and
the packages a resolve pulled in included.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..options import MachineSpec, SourceOverrides

if TYPE_CHECKING:
    from ..errors import PulledInFamily
    from ..intent.model import Intent
    from ..lockfile.model import Lockfile, LockTarget
    from ..machine import Machine
    from ..resolve.plan import Plan


@dataclass(frozen=True)
class PlanRequest:
    """Everything a plan depends on besides the knowledge base and what the sources serve."""

    intent: Intent
    machine: MachineSpec | Machine = field(default_factory=MachineSpec)   # a spec is probed (or assumed) here
    sources: SourceOverrides = field(default_factory=SourceOverrides)
    offline: bool = False                    # files come from the cache or a bundle: nothing is looked up
    lock_in_use: Lockfile | None = None      # a current torchenv.lock whose target may need no fetching
    also_needed: frozenset[str] = frozenset()   # torch-family names a resolve pulled in, served by the same source


Planner = Callable[[PlanRequest], "Plan"]


def plan_reachable(request: PlanRequest) -> Plan:
    """The build that runs here and can be fetched from here (``resolve.reachable``); the default planner.

    A ``--machine cluster.json`` spec plans this node's type; a current lock whose torch files are
    all on this machine is planned from the recipes alone (``locked_files_at_hand`` says why).
    """
    from ..resolve.reachable import reachable_plan

    machine = request.machine
    if isinstance(machine, MachineSpec):
        from ..cluster.hooks import plan_on_node

        on_node = plan_on_node(request.intent, machine, request.sources)   # --machine cluster.json
        if on_node is not None:
            return on_node
        machine = _probed(machine)
    if request.lock_in_use is not None and not request.also_needed:
        from ..resolve.resolver import resolve

        recipes_only = resolve(request.intent, machine, sources_overrides=request.sources)
        if locked_files_at_hand(recipes_only, request.lock_in_use):
            return recipes_only
    return reachable_plan(request.intent, machine, request.sources, offline=request.offline,
                          also_needed=request.also_needed)


def _probed(spec: MachineSpec) -> Machine:
    from ..probing.assume import machine_for

    return machine_for(spec, toolkits=False)   # `nvcc --version` is no input to a plan


def replan_pulled_in(planner: Planner, request: PlanRequest, plan: Plan, pulled: PulledInFamily) -> Plan:
    """The plan to lock instead of ``plan`` once ``pulled.name`` must come from the plan's sources too.

    Asked of the same ``planner`` with the name added to ``also_needed``, so the fallback passes
    every check a first plan passes. Raises ``pulled`` as it is when no other build serves it
    (an assumed machine and ``--offline`` look nothing up, so they never find one).
    """
    from ..errors import PlanRefused
    from ..resolve.reachable import with_pulled_in_note

    if plan.machine is None or plan.machine.assumed or request.offline:
        raise pulled
    again = dataclasses.replace(request, machine=plan.machine, lock_in_use=None,
                                also_needed=request.also_needed | {pulled.name})
    try:
        found = planner(again)
    except PlanRefused:
        raise pulled from None
    if (found.torch_version, found.tier, found.python) == (plan.torch_version, plan.tier, plan.python):
        raise pulled
    return with_pulled_in_note(found, plan, pulled)


def locked_files_at_hand(plan: Plan, lock: Lockfile) -> bool:
    """Does ``lock`` hold the target ``plan`` names, with every torch-family file on this machine already?

    Why that is enough to plan from the recipes alone: the index check and the reachability
    check (``resolve.index_check``, ``resolve.reachable``) choose a build that can be fetched,
    for a new lock; this target's files need no fetching (``materialise`` still checks each
    hash, and the engine again). Skipping them saves the tier-index reads (a network round trip
    once their cache is 6 h old, a TCP probe per dead host) and ~50 ms of imports and work on
    every warm ``up``.

    The plan must also name the lock's build (torch release and Python): the lock may hold a
    build the reachability check chose over the recipes' newest (one whose files are on this
    machine), and a recipes-only plan of another Python would install the project into a
    site-packages that is not there.
    """
    target = lock.target(plan.target_name)
    if target is None or plan.sources is None or not plan_names_target(plan, target):
        return False
    from ..sources.locate import on_this_machine, torch_family

    family = torch_family()
    locked = [w for w in target.wheels if w.name in family]
    return bool(locked) and all(on_this_machine(plan.sources, w) for w in locked)


def plan_names_target(plan: Plan, target: LockTarget) -> bool:
    """Is ``target`` the build ``plan`` chose: the same Python and torch release (local tag aside)?"""
    return target.python == plan.python and target.torch.split("+")[0] == plan.torch_version
