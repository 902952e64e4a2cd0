"""``torchenv cluster verify``: one job per node type (one GPU of that type where it has GPUs) running
``torchenv verify --json`` in the env that node uses; one table back, and a failure when any type fails.

Why per node type and not per node: nodes of one type share the target and the hardware, and a job per
node would queue for every GPU of the cluster. The arch column compares the GPU code the verified torch
reports (``torch.cuda.get_arch_list()``) or, without a device, the planned build's, with the type's GPUs.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import slurm
from .build import Layout, marked, node_of

if TYPE_CHECKING:
    from .model import Cluster, NodeType
    from .plan import ClusterPlan


@dataclass(frozen=True)
class TypeResult:
    node_type: str
    node: str
    target: str
    torch: str
    cuda: str
    archs: str
    checks: str
    ok: bool

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


def verify_jobs(cluster: Cluster, layout: Layout) -> list[slurm.Job]:
    import shlex

    words = " ".join(shlex.quote(w) for w in layout.torchenv)
    command = f"exec {words} verify --json -C {layout.node_dir_shell()}"
    return [slurm.Job(label=t.name, partition=t.partition, gres=t.gres_request, argv=marked(command))
            for t in cluster.node_types]


def arch_coverage(node_type: NodeType, archs: list[str]) -> str:
    """``sm_70 in build`` / ``sm_100 MISSING (build: sm_50..sm_90)`` / ``no GPU``."""
    from .. import kb

    ccs = sorted({g.compute_capability for g in node_type.probe().gpus if g.compute_capability}, key=kb.vtuple)
    if not ccs:
        return "no GPU"
    if not archs:
        return "cpu build (GPU unused)"
    from ..kb.model import ArchSet

    sass = tuple(_cc(a) for a in archs if a.startswith("sm_"))
    ptx = [_cc(a) for a in archs if a.startswith("compute_")]
    built = ArchSet(sm=sass, ptx=max(ptx, key=kb.vtuple) if ptx else None)
    words = [f"sm_{cc.replace('.', '')} " + ("ok" if kb.arch_match(cc, built) else "MISSING") for cc in ccs]
    return ", ".join(words)


def _cc(label: str) -> str:
    """``sm_70`` -> ``7.0``; ``compute_120`` -> ``12.0``."""
    digits = label.split("_", 1)[1]
    return f"{digits[:-1]}.{digits[-1]}"


def _checks(report: dict[str, Any]) -> str:
    checks = report.get("checks") or []
    failed = [c.get("name", "?") for c in checks if not c.get("ok") and not c.get("skipped")]
    passed = sum(1 for c in checks if c.get("ok"))
    return f"{passed}/{len(checks)} passed" + (f"; failed: {', '.join(failed)}" if failed else "")


def read_result(node_type: NodeType, target: str, planned_archs: tuple[str, ...],
                result: slurm.JobResult) -> TypeResult:
    node, rest = node_of(result.stdout)
    try:
        report = json.loads(rest)
    except ValueError:
        report = None
    if not isinstance(report, dict) or "checks" not in report:
        return TypeResult(node_type.name, node or "?", target, "-", "-", "-",
                          f"no report (exit {result.returncode}): {result.tail(3)}", False)
    facts = report.get("facts") or {}
    archs = list(facts.get("arch_list") or planned_archs)
    cuda = facts.get("cuda") or "none"
    return TypeResult(node_type.name, node or "?", target, str(facts.get("torch") or "-"), str(cuda),
                      arch_coverage(node_type, archs if cuda != "none" else []), _checks(report),
                      bool(report.get("ok")) and result.ok)


def cluster_verify(cluster: Cluster, found: ClusterPlan, layout: Layout, *,
                   pending_timeout: float) -> list[TypeResult]:
    slurm.require_slurm()
    results = slurm.run_jobs(verify_jobs(cluster, layout), pending_timeout=pending_timeout)
    out = []
    for node_type, result in zip(cluster.node_types, results):
        target = found.target_for(node_type.name)
        out.append(read_result(node_type, target.plan.target_name, target.plan.compiled_archs, result))
    return out
