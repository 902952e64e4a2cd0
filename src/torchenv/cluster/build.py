"""``torchenv cluster up``: the locked env on the cluster, through Slurm only (no daemons, no ssh loops).

Two layouts. Shared filesystem (default): the project is visible on every node, so the env is built once,
from the lock (``up --frozen``), by one job on a node of the first node type; every node then uses that
env. Node-local disks (``--local-dir DIR``): a bundle of the lock's files (``torchenv bundle``) and the
cluster file are copied to every node with ``sbcast`` inside one allocation per node type, and one ``srun``
task per node installs from it (``up --offline --from``) into DIR (``%n`` = the node's name), all types at
once. Either way each node's ``up`` matches itself to its node type and installs that type's target.
"""
from __future__ import annotations

import shlex
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ClusterError
from . import slurm

if TYPE_CHECKING:
    from collections.abc import Callable

    from .model import Cluster
    from .plan import ClusterPlan

NODE_MARK = "torchenv-node "


@dataclass(frozen=True)
class Layout:
    """Where the env goes: the shared project, or ``local_dir`` on every node (``%n`` -> node name)."""
    project: Path
    cluster_file: Path
    torchenv: tuple[str, ...]
    local_dir: str | None = None

    def node_dir_shell(self) -> str:
        """Shell words giving this node's project dir (``$SLURMD_NODENAME`` put in for ``%n``)."""
        if self.local_dir is None:
            return shlex.quote(str(self.project))
        parts = [shlex.quote(p) for p in self.local_dir.split("%n")]
        return '"$SLURMD_NODENAME"'.join(parts)


def marked(command: str) -> tuple[str, ...]:
    """``sh -c`` that first prints which node it runs on (Slurm's name for it)."""
    return ("sh", "-c", f'echo "{NODE_MARK}$SLURMD_NODENAME"; {command}')


def node_of(stdout: str) -> tuple[str, str]:
    first, _, rest = stdout.partition("\n")
    return (first[len(NODE_MARK):].strip(), rest) if first.startswith(NODE_MARK) else ("", stdout)


def locked_targets(project: Path, found: ClusterPlan) -> None:
    """Refuse before any job starts when torchenv.lock lacks a target the cluster needs."""
    from ..lockfile.io import read_lock
    from ..lockfile.model import LOCK_FILE

    path = project / LOCK_FILE
    lock = read_lock(path) if path.is_file() else None
    missing = [t.plan.target_name for t in found.targets if lock is None or lock.target(t.plan.target_name) is None]
    if missing:
        raise ClusterError(f"{path} lacks the cluster's target(s) {', '.join(missing)}",
                           hint="run `torchenv lock --machine CLUSTER.json` first (and commit torchenv.lock)")


def _torchenv_words(layout: Layout) -> str:
    return " ".join(shlex.quote(w) for w in layout.torchenv)


def shared_jobs(cluster: Cluster, found: ClusterPlan, layout: Layout) -> list[slurm.Job]:
    if not found.single:
        raise ClusterError(f"the cluster needs {len(found.targets)} targets "
                           f"({', '.join(t.plan.target_name for t in found.targets)}), and one shared env holds one",
                           hint="install on node-local disks instead: `torchenv cluster up --local-dir DIR`")
    node_type = cluster.node_types[0]
    command = (f"exec {_torchenv_words(layout)} up --frozen --machine {shlex.quote(str(layout.cluster_file))} "
               f"-C {layout.node_dir_shell()}")
    return [slurm.Job(label=node_type.name, partition=node_type.partition, gres=node_type.gres_request,
                      argv=marked(command))]


def local_jobs(cluster: Cluster, bundle: Path, layout: Layout) -> list[slurm.Job]:
    """Per node type: ``salloc`` all its nodes, ``sbcast`` bundle + cluster file there, one install task per node."""
    jobs = []
    for node_type in cluster.node_types:
        tar = '"${TMPDIR:-/tmp}/torchenv-bundle-$SLURM_JOB_ID.tar"'
        conf = '"${TMPDIR:-/tmp}/torchenv-cluster-$SLURM_JOB_ID.json"'
        here = layout.node_dir_shell()
        install = (f"mkdir -p {here} && "
                   f"{_torchenv_words(layout)} up --offline --from {tar} --machine {conf} -C {here}; "
                   f"rc=$?; rm -f {tar} {conf}; exit $rc")
        step = " ".join(shlex.quote(w) for w in marked(install))
        script = (f"sbcast --force {shlex.quote(str(bundle))} {tar} && "
                  f"sbcast --force {shlex.quote(str(layout.cluster_file))} {conf} && "
                  f"exec srun --quiet --ntasks-per-node=1 --nodes={len(node_type.nodes)} "
                  + (f"--gres={node_type.gres_request} " if node_type.gres_request else "") + step)
        jobs.append(slurm.Job(label=node_type.name, partition=node_type.partition, gres=node_type.gres_request,
                              nodes=len(node_type.nodes), allocate=True, argv=("sh", "-c", script)))
    return jobs


@dataclass(frozen=True)
class NodeOutcome:
    node_type: str
    node: str
    ok: bool
    detail: str


def outcomes(results: list[slurm.JobResult]) -> list[NodeOutcome]:
    out = []
    for result in results:
        node, _ = node_of(result.stdout)
        detail = "installed" if result.ok else f"exit {result.returncode}: {result.tail()}"
        out.append(NodeOutcome(result.job.label, node or "?", result.ok, detail))
    return out


def cluster_up(cluster: Cluster, found: ClusterPlan, layout: Layout, make_bundle: Callable[[Path], object], *,
               pending_timeout: float) -> list[NodeOutcome]:
    """Shared layout: one ``up --frozen`` job. Node-local: ``make_bundle(path)`` writes the lock's bundle there
    (``torchenv bundle``, called by the command), then one allocation per node type copies and installs it."""
    slurm.require_slurm()
    locked_targets(layout.project, found)
    if layout.local_dir is None:
        return outcomes(slurm.run_jobs(shared_jobs(cluster, found, layout), pending_timeout=pending_timeout))
    with tempfile.TemporaryDirectory(prefix="torchenv-cluster-") as tmp:
        bundle = Path(tmp) / "bundle.tar"
        make_bundle(bundle)
        return outcomes(slurm.run_jobs(local_jobs(cluster, bundle, layout), pending_timeout=pending_timeout))
