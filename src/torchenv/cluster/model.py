"""The cluster file (``torchenv cluster probe -o cluster.json``): each node type's probe, node list and counts.

Why a file of its own rather than many machine files: ``plan``/``lock``/``up --machine cluster.json`` must see
every node type at once to choose one tier valid on all of them, and ``up`` on a node must find which type it
is. The file names where each probe ran, so a wrong answer can be traced to a node.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import MachineFileError

if TYPE_CHECKING:
    from ..machine import Machine

KIND = "torchenv-cluster"
VERSION = 1


@dataclass(frozen=True)
class NodeType:
    name: str                    # "v100" (partition) or "gpu-a100" (partition-GRES type when a partition mixes)
    partition: str
    nodes: tuple[str, ...]       # every node of this type in the partition
    gpus_per_node: int = 0       # from the GRES count Slurm reports
    gres_type: str | None = None  # "a100" in gpu:a100:4; None for no GPU or an untyped gpu:4
    probed_on: str = ""          # the node the probe ran on
    machine: dict[str, Any] | None = None   # ``torchenv probe --json`` of that node

    @property
    def gres_request(self) -> str | None:
        """What ``--gres`` asks for one GPU of this type (None: the type has no GPU)."""
        if not self.gpus_per_node:
            return None
        return f"gpu:{self.gres_type}:1" if self.gres_type else "gpu:1"

    def probe(self) -> Machine:
        from ..machine import Machine

        if self.machine is None:
            raise MachineFileError(f"node type {self.name} has no probe", hint="run `torchenv cluster probe` again")
        return Machine.from_json(self.machine)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "partition": self.partition, "nodes": list(self.nodes), "count": len(self.nodes),
                "gpus_per_node": self.gpus_per_node, "gres_type": self.gres_type, "probed_on": self.probed_on,
                "machine": self.machine}


@dataclass(frozen=True)
class Cluster:
    node_types: tuple[NodeType, ...]
    name: str = ""
    source: str = ""             # the file it was read from (for messages)

    def node_type(self, name: str) -> NodeType | None:
        return next((t for t in self.node_types if t.name == name), None)

    def to_json(self) -> dict[str, Any]:
        return {"kind": KIND, "version": VERSION, "cluster": self.name,
                "node_types": [t.to_json() for t in self.node_types]}

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=2, sort_keys=True) + "\n"

    @classmethod
    def from_json(cls, data: dict[str, Any], source: str = "") -> Cluster:
        types = tuple(NodeType(name=t["name"], partition=t["partition"], nodes=tuple(t["nodes"]),
                               gpus_per_node=int(t.get("gpus_per_node") or 0), gres_type=t.get("gres_type"),
                               probed_on=t.get("probed_on", ""), machine=t.get("machine"))
                      for t in data["node_types"])
        return cls(node_types=types, name=data.get("cluster", ""), source=source)


def read_json(path: Path) -> Any:
    try:
        return json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise MachineFileError(f"{path}: no such machine file",
                               hint="save one with `torchenv probe --save FILE` or `torchenv cluster probe -o FILE`"
                               ) from None
    except json.JSONDecodeError as exc:
        raise MachineFileError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg})",
                               hint="regenerate it with `torchenv cluster probe -o FILE`") from None


def is_cluster_file(path: str | Path | None) -> bool:
    """Does ``--machine FILE`` name a cluster file (rather than one machine's probe)? False when unreadable:
    the machine-file reader then says what is wrong with it."""
    if not path:
        return False
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("kind") == KIND


def load_cluster(path: str | Path) -> Cluster:
    data = read_json(Path(path))
    if not isinstance(data, dict) or data.get("kind") != KIND:
        raise MachineFileError(f"{path}: not a cluster file", hint="write one with `torchenv cluster probe -o FILE`")
    try:
        cluster = Cluster.from_json(data, source=str(path))
    except (KeyError, TypeError, ValueError) as exc:
        raise MachineFileError(f"{path}: not a torchenv cluster file (missing or bad {exc})",
                               hint="regenerate it with `torchenv cluster probe -o FILE`") from None
    if not cluster.node_types:
        raise MachineFileError(f"{path}: the cluster file lists no node types",
                               hint="run `torchenv cluster probe` where `sinfo` lists the partitions")
    return cluster
