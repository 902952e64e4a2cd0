"""``torchenv cluster probe``: the node types of a Slurm cluster, each probed on one of its nodes.

A node type is a partition x GPU type (``sinfo``'s GRES column): the V100 nodes and the A100 nodes of one
partition plan differently, while nodes of one type are assumed alike. One job per type runs
``torchenv probe --json`` there (``--gres`` for one GPU of that type, so the probe sees the device and the
driver the job will get); all jobs run at once. Where a type appears in several partitions (an ``all``
partition over everything) it is probed once, under the first partition ``sinfo`` lists it in.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass

from ..errors import ClusterError
from . import slurm
from .model import Cluster, NodeType

NODE_MARK = "torchenv-node "
_GPU = re.compile(r"^gpu(?::([A-Za-z0-9_.-]+))?:(\d+)")


@dataclass(frozen=True)
class Gres:
    gpu_type: str | None
    count: int


def parse_gres(text: str) -> Gres:
    """``gpu:a100:4(S:0-1),shard:8`` -> Gres("a100", 4); ``gpu:2`` -> Gres(None, 2); ``(null)`` -> Gres(None, 0)."""
    for item in text.split(","):
        match = _GPU.match(item.strip())
        if match:
            return Gres(match.group(1), int(match.group(2)))
    return Gres(None, 0)


def node_types(rows: list[tuple[str, str, str]]) -> list[NodeType]:
    """Group ``(node, partition, gres)`` rows into node types, in ``sinfo`` order, without repeats."""
    groups: dict[tuple[str, str | None], list[str]] = {}
    counts: dict[tuple[str, str | None], int] = {}
    for node, partition, gres_text in rows:
        gres = parse_gres(gres_text)
        key = (partition, gres.gpu_type if gres.count else None)
        groups.setdefault(key, [])
        if node not in groups[key]:
            groups[key].append(node)
        counts[key] = min(counts.get(key, gres.count), gres.count)
    per_partition: dict[str, int] = {}
    for partition, _ in groups:
        per_partition[partition] = per_partition.get(partition, 0) + 1
    seen: set[str] = set()
    out = []
    for (partition, gpu_type), nodes in groups.items():
        if set(nodes) <= seen:
            continue
        seen.update(nodes)
        name = partition if per_partition[partition] == 1 else f"{partition}-{gpu_type or 'cpu'}"
        out.append(NodeType(name=name, partition=partition, nodes=tuple(nodes),
                            gpus_per_node=counts[(partition, gpu_type)], gres_type=gpu_type))
    return out


def probe_job(node_type: NodeType, torchenv: list[str]) -> slurm.Job:
    script = f'echo "{NODE_MARK}$SLURMD_NODENAME"; exec "$@"'
    return slurm.Job(label=node_type.name, partition=node_type.partition, gres=node_type.gres_request,
                     argv=("sh", "-c", script, "sh", *torchenv, "probe", "--json"))


def read_probe(node_type: NodeType, result: slurm.JobResult) -> NodeType:
    """The node type with the probe its job printed; ClusterError when the job failed or printed no probe."""
    import dataclasses

    first, _, rest = result.stdout.partition("\n")
    node = first[len(NODE_MARK):].strip() if first.startswith(NODE_MARK) else ""
    where = f"node type {node_type.name} (partition {node_type.partition}{', on ' + node if node else ''})"
    if not result.ok:
        raise ClusterError(f"{where}: the probe job failed (exit {result.returncode}): {result.tail()}",
                           hint="is torchenv installed where the nodes can run it? (--torchenv CMD names it)")
    try:
        machine = json.loads(rest)
    except ValueError:
        raise ClusterError(f"{where}: the probe printed no machine JSON: {result.tail()}",
                           hint="run `srun -p " + node_type.partition + " torchenv probe --json` to see it") from None
    return dataclasses.replace(node_type, probed_on=node, machine=machine)


def probe_cluster(partitions: list[str] | None, torchenv: list[str], *, pending_timeout: float) -> Cluster:
    slurm.require_slurm()
    if partitions:
        slurm.check_partitions(partitions)
    types = node_types(slurm.node_rows(partitions))
    if not types:
        raise ClusterError("sinfo lists no nodes" + (f" in {', '.join(partitions)}" if partitions else ""),
                           hint="check `sinfo -N`; nodes that are down still count, so the partition may be empty")
    results = slurm.run_jobs([probe_job(t, torchenv) for t in types], pending_timeout=pending_timeout)
    failures, probed = [], []
    for node_type, result in zip(types, results):
        try:
            probed.append(read_probe(node_type, result))
        except ClusterError as exc:
            failures.append(exc)
    if failures:
        raise ClusterError("; ".join(f.message for f in failures), hint=failures[0].hint)
    return Cluster(node_types=tuple(probed))
