"""Where ``plan``, ``lock`` and ``up`` meet ``--machine cluster.json``: each asks one function here and goes on
as before when it answers None (the file is one machine's probe, or there is no ``--machine``)."""
from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..intent.model import Intent
    from ..options import MachineSpec, SourceOverrides
    from ..resolve.plan import Plan
    from .model import Cluster
    from .plan import ClusterPlan


def cluster_arg(spec: MachineSpec) -> Cluster | None:
    path = spec.machine
    if not path:          # the usual run: no --machine file, and no cluster model to import
        return None
    from .model import is_cluster_file, load_cluster

    return load_cluster(path) if is_cluster_file(path) else None


def cluster_plan(intent: Intent, spec: MachineSpec, sources: SourceOverrides | None = None) -> ClusterPlan | None:
    cluster = cluster_arg(spec)
    if cluster is None:
        return None
    from .plan import plan_for_cluster

    return plan_for_cluster(intent, cluster, sources_overrides=sources)


def cluster_plans(intent: Intent, spec: MachineSpec, sources: SourceOverrides | None = None) -> list[Plan] | None:
    """``lock --machine cluster.json``: the plan of every target the cluster needs."""
    found = cluster_plan(intent, spec, sources)
    return None if found is None else [t.plan for t in found.targets]


def plan_on_node(intent: Intent, spec: MachineSpec, sources: SourceOverrides | None = None) -> Plan | None:
    """``up --machine cluster.json`` on a node: probe it, find its node type, plan that type's target."""
    cluster = cluster_arg(spec)
    if cluster is None:
        return None
    import socket

    from ..probing import probe_machine
    from .plan import node_plan

    node = os.environ.get("SLURMD_NODENAME") or socket.gethostname()
    return node_plan(intent, cluster, probe_machine(), node_name=node, sources_overrides=sources)

