"""``plan_for_cluster(intent, cluster) -> ClusterPlan``: which lock target(s) serve every node type.

Why one tier first: one env (one build on a shared filesystem, one bundle) that runs on every node is what a
cluster user wants, so every CUDA tier the release has is tried on every node type (``resolve`` with that
tier, against that type's probe: the driver floor and the GPU code both have to hold), and the newest torch,
then the newest tier, that every type accepts wins. GPU-less types accept any build (a CUDA build runs on
the CPU there). Only when no tier fits every type does each type get its own target (types landing on the
same build share it), each with the sentence saying why it could not share; a second platform (aarch64
next to x86_64) always splits. ``up`` on a node then matches its own probe to a node type (``node_plan``).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import ClusterError, PlanRefused

if TYPE_CHECKING:
    from ..intent.model import Intent
    from ..machine import Machine
    from ..resolve.plan import Plan
    from .model import Cluster, NodeType


@dataclass(frozen=True)
class ClusterTarget:
    plan: Plan
    node_types: tuple[str, ...]
    reasons: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"target": self.plan.target_name, "node_types": list(self.node_types), "reasons": list(self.reasons),
                "plan": self.plan.to_json()}


@dataclass(frozen=True)
class ClusterPlan:
    targets: tuple[ClusterTarget, ...]
    reasons: tuple[str, ...]

    @property
    def single(self) -> bool:
        return len(self.targets) == 1

    def target_for(self, node_type: str) -> ClusterTarget:
        return next(t for t in self.targets if node_type in t.node_types)

    def to_json(self) -> dict[str, Any]:
        return {"cluster": True, "single_target": self.single, "reasons": list(self.reasons),
                "targets": [t.to_json() for t in self.targets]}


@dataclass(frozen=True)
class _Try:
    """One tier tried on every node type of a platform: the plans, or the first type that refused and why."""
    tier: str
    plans: dict[str, Plan]
    refused_by: str = ""
    why: str = ""

    @property
    def ok(self) -> bool:
        return not self.refused_by


def with_tier(intent: Intent, tier: str) -> Intent:
    return dataclasses.replace(intent, torch=dataclasses.replace(intent.torch, cuda=tier))


def refusal_words(exc: PlanRefused, tier: str) -> str:
    """The resolver's sentence about ``tier`` (``cu130 skipped: needs ...``), else its message."""
    import re

    for reason in exc.reasons:
        if tier in reason:
            return re.sub(r"^(torch [^:]+: )?\S+ skipped: ", "", reason)
    return exc.message


def _resolve(intent: Intent, machine: Machine, overrides: Any) -> Plan:
    from ..resolve.resolver import resolve

    return resolve(intent, machine, sources_overrides=overrides)


def _own_plan(intent: Intent, node_type: NodeType, machine: Machine, overrides: Any) -> Plan:
    try:
        return _resolve(intent, machine, overrides)
    except PlanRefused as exc:
        raise ClusterError(f"node type {node_type.name} (partition {node_type.partition}): {exc.message}",
                           hint="; ".join(exc.reasons[:2]) or exc.hint) from None


def describe_type(node_type: NodeType, machine: Machine) -> str:
    """``v100 (2x Tesla V100-SXM2-16GB, sm_70, driver 535.183.01)`` / ``cpu (no GPU)``."""
    if not machine.gpus:
        return f"{node_type.name} (no GPU)"
    ccs = sorted({g.compute_capability or "?" for g in machine.gpus})
    names = sorted({g.name for g in machine.gpus})
    count = node_type.gpus_per_node or len(machine.gpus)
    sms = ", ".join(f"sm_{cc.replace('.', '')}" for cc in ccs)
    return f"{node_type.name} ({count}x {'/'.join(names)}, {sms}, driver {machine.driver or 'unknown'})"


def _candidate_tiers(own: dict[str, Plan], platform: str, allow_experimental: bool) -> list[str]:
    from .. import kb

    tiers: list[str] = []
    for plan in own.values():
        rel = kb.release(plan.torch_version)
        for tier, status in (kb.tiers_for(rel, platform) if rel else []):
            if tier.startswith("cu") and tier not in tiers and (status == "stable" or allow_experimental):
                tiers.append(tier)
    return tiers


def _try_tier(intent: Intent, tier: str, names: list[str], machines: dict[str, Machine], overrides: Any) -> _Try:
    plans = {}
    for name in names:
        try:
            plans[name] = _resolve(with_tier(intent, tier), machines[name], overrides)
        except PlanRefused as exc:
            return _Try(tier, plans, refused_by=name, why=refusal_words(exc, tier).replace("this machine", name))
    builds = {(p.torch_version, p.python, p.target_name) for p in plans.values()}
    if len(builds) > 1:
        versions = ", ".join(sorted(f"torch {b[0]} / Python {b[1]}" for b in builds))
        return _Try(tier, plans, refused_by=names[0], why=f"the node types would need different builds ({versions})")
    return _Try(tier, plans)


def _cuda_key(tier: str) -> tuple[int, ...]:
    from .. import kb

    return kb.vtuple(kb.cuda_version(tier) or "0")


def _best(tries: list[_Try]) -> _Try | None:
    from .. import kb

    good = [t for t in tries if t.ok]
    if not good:
        return None
    return max(good, key=lambda t: (kb.vtuple(next(iter(t.plans.values())).torch_version), _cuda_key(t.tier)))


def _lowest_driver(names: list[str], machines: dict[str, Machine]) -> tuple[str, str] | None:
    from .. import kb

    drivers = [(m.driver, n) for n in names if (m := machines[n]).gpus and m.driver]
    return min(drivers, key=lambda d: kb.vtuple(d[0])) if drivers else None


def _arch_reason(plan: Plan, names: list[str], machines: dict[str, Machine]) -> list[str]:
    """That the build's GPU code covers every compute capability in the cluster."""
    from .. import kb

    ccs = sorted({g.compute_capability for n in names for g in machines[n].gpus if g.compute_capability},
                 key=kb.vtuple)
    if not (ccs and plan.compiled_archs):
        return []
    sms = ", ".join("sm_" + c.replace(".", "") for c in ccs)
    return [f"GPU code covers every GPU architecture in the cluster ({sms}): "
            f"the build carries {' '.join(plan.compiled_archs)}"]


def _single_reasons(chosen: _Try, tries: list[_Try], names: list[str], types: dict[str, NodeType], machines: dict[str, Machine]) -> list[str]:
    from .. import kb

    plan = next(iter(chosen.plans.values()))
    cuda_build = chosen.tier.startswith("cu")
    everyone = ", ".join(describe_type(types[n], machines[n]) for n in names)
    out = [f"{chosen.tier} (torch {plan.torch_version}) is one build for the whole cluster: the newest that every "
           f"node type runs -- {everyone}"]
    low = _lowest_driver(names, machines)
    floor = kb.driver_floor(chosen.tier, plan.machine.os) if cuda_build else None
    if low and floor:
        out.append(f"lowest driver in the cluster: {low[0]} on {low[1]}; {chosen.tier} needs >= {floor}")
    out += _arch_reason(plan, names, machines)
    out += [f"{t.tier} not chosen: it does not run on {t.refused_by}: {t.why}" for t in tries
            if not t.ok and _cuda_key(t.tier) > _cuda_key(chosen.tier)]
    if cuda_build:
        out += [f"{n} has no GPU: the {chosen.tier} build runs there on the CPU" for n in names if not machines[n].gpus]
    return out


def _split(intent: Intent, names: list[str], own: dict[str, Plan], types: dict[str, NodeType], machines: dict[str, Machine],
           overrides: Any) -> list[ClusterTarget]:
    by_target: dict[str, list[str]] = {}
    for n in names:
        by_target.setdefault(own[n].target_name, []).append(n)
    targets = []
    for target, members in by_target.items():
        first = members[0]
        reasons = [f"{target} for {', '.join(describe_type(types[m], machines[m]) for m in members)}: "
                   + ("its own best build" if machines[first].gpus else "no GPU, so the CPU build")]
        for other, others in by_target.items():
            if other != target and machines[first].gpus and machines[others[0]].gpus:
                reasons.append(f"not shared with {', '.join(others)} ({other}): "
                               f"{_why_not(intent, own[others[0]].tier, machines[first], overrides)}")
        targets.append(ClusterTarget(own[first], tuple(members), tuple(reasons)))
    return targets


def _why_not(intent: Intent, tier: str, machine: Machine, overrides: Any) -> str:
    try:
        _resolve(with_tier(intent, tier), machine, overrides)
    except PlanRefused as exc:
        return f"{tier} does not run here: {refusal_words(exc, tier)}"
    return f"{tier} would run here too, but no single tier runs on every node type"


def _plan_platform(intent: Intent, names: list[str], types: dict[str, NodeType], machines: dict[str, Machine],
                   overrides: Any) -> tuple[list[ClusterTarget], list[str]]:
    from ..resolve.resolver import constraints

    own = {n: _own_plan(intent, types[n], machines[n], overrides) for n in names}
    gpu_types = [n for n in names if machines[n].gpus]
    cons = constraints(intent)
    if cons.tier != "auto" or not gpu_types:
        tries = [_try_tier(intent, own[names[0]].tier, names, machines, overrides)]
    else:
        platform = machines[names[0]].platform_key
        tries = [_try_tier(intent, tier, names, machines, overrides)
                 for tier in _candidate_tiers(own, platform, cons.allow_experimental)]
    chosen = _best(tries)
    if chosen is not None:
        plan = chosen.plans[(gpu_types or names)[0]]     # a GPU type's plan: its warnings are the cluster's
        reasons = _single_reasons(chosen, tries, names, types, machines)
        return [ClusterTarget(plan, tuple(names), tuple(reasons))], []
    refused = "; ".join(f"{t.tier}: not on {t.refused_by} ({t.why})" for t in tries)
    return (_split(intent, names, own, types, machines, overrides),
            [f"no single tier runs on every node type ({refused}): one target per node type"])


def plan_for_cluster(intent: Intent, cluster: Cluster, *, sources_overrides: Any = None) -> ClusterPlan:
    """One target for the whole cluster when a tier fits every node type; else one per node type (see module)."""
    types = {t.name: t for t in cluster.node_types}
    machines = {t.name: t.probe() for t in cluster.node_types}
    platforms: dict[str, list[str]] = {}
    for name, machine in machines.items():
        platforms.setdefault(machine.platform_key, []).append(name)
    targets: list[ClusterTarget] = []
    reasons: list[str] = []
    if len(platforms) > 1:
        reasons.append("the node types run on " + ", ".join(f"{p} ({', '.join(n)})" for p, n in platforms.items())
                       + ": one target per platform at least")
    for names in platforms.values():
        found, why = _plan_platform(intent, names, types, machines, sources_overrides)
        targets.extend(found)
        reasons.extend(why)
    if len(targets) == 1:
        reasons = [*targets[0].reasons, *reasons]
    return ClusterPlan(tuple(targets), tuple(reasons))


# -- up on one node --------------------------------------------------------------------------------------
def _signature(machine: Machine) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    return (machine.platform_key, tuple(sorted({g.compute_capability or "?" for g in machine.gpus})),
            tuple(sorted({g.name for g in machine.gpus})))


def match_node_type(cluster: Cluster, machine: Machine, node_name: str = "") -> NodeType:
    """The node type whose probe looks like this machine (platform, GPU model and compute capability); the
    Slurm node name decides between look-alikes. ClusterError when nothing matches."""
    mine = _signature(machine)
    alike = [t for t in cluster.node_types if _signature(t.probe()) == mine]
    named = [t for t in alike if node_name and node_name in t.nodes]
    if named or alike:
        return (named or alike)[0]
    gpus = ", ".join(sorted({f"{g.name} (sm_{(g.compute_capability or '?').replace('.', '')})"
                             for g in machine.gpus})) or "no GPU"
    known = "; ".join(describe_type(t, t.probe()) for t in cluster.node_types)
    raise ClusterError(f"this machine ({machine.platform_key}, {gpus}) matches no node type of {cluster.source}: "
                       f"{known}",
                       hint="run `torchenv cluster probe` again if the cluster changed, or run `up` on a node of "
                            "one of these types")


def node_plan(intent: Intent, cluster: Cluster, machine: Machine, *, node_name: str = "",
              sources_overrides: Any = None) -> Plan:
    """The plan for this node: its node type's target of the cluster plan, resolved against this machine."""
    node_type = match_node_type(cluster, machine, node_name)
    target = plan_for_cluster(intent, cluster, sources_overrides=sources_overrides).target_for(node_type.name)
    try:
        plan = _resolve(with_tier(intent, target.plan.tier), machine, sources_overrides)
    except PlanRefused as exc:
        raise ClusterError(f"this node (type {node_type.name}) cannot run its cluster target "
                           f"{target.plan.target_name}: {refusal_words(exc, target.plan.tier)}",
                           hint="its driver or GPUs differ from the probe; run `torchenv cluster probe` again"
                           ) from None
    why = (f"cluster {cluster.source}: node type {node_type.name} (matched by probing this node) "
           f"-> target {plan.target_name}")
    return dataclasses.replace(plan, reasons=(why, *target.reasons, *plan.reasons))
