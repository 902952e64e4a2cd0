"""The only module that runs Slurm's tools: ``sinfo`` (node types), ``srun``/``salloc`` (jobs), ``squeue``
(why a job waits), ``scancel`` (give up on it), ``sbcast`` (inside ``salloc``, see ``build``).

Why jobs are watched with ``squeue`` rather than left to ``srun``: ``srun`` waits silently for as long as the
job pends (a drained partition, a GRES nobody has), so each job gets a unique name, ``squeue`` is asked every
0.2 s what state it is in, and a job still pending after the timeout is cancelled and reported with the
reason Slurm gives (``Resources``, ``PartitionDown``, ``ReqNodeNotAvail``...). Output comes back through
``srun`` itself, so nothing here needs a shared filesystem.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from ..errors import ClusterError

TOOLS = ("sinfo", "srun", "squeue", "scancel")
POLL_S = 0.2
QUERY_TIMEOUT_S = 30


@dataclass(frozen=True)
class Job:
    """One job for one node type: ``srun`` runs ``argv`` on its nodes, or with ``allocate`` ``salloc`` runs
    ``argv`` here holding an allocation of those nodes (for ``sbcast`` and a following ``srun``)."""
    label: str                       # node type name, used in every message about the job
    partition: str
    argv: tuple[str, ...]
    gres: str | None = None
    nodes: int = 1
    allocate: bool = False


@dataclass(frozen=True)
class JobResult:
    job: Job
    returncode: int
    stdout: str
    stderr: str

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    def tail(self, lines: int = 6) -> str:
        text = (self.stderr.strip() or self.stdout.strip() or "no output").splitlines()
        return " | ".join(text[-lines:])


def require_slurm() -> None:
    """Raise a ClusterError naming the missing tool when Slurm's client commands are not on PATH."""
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        raise ClusterError(f"no Slurm on PATH: {', '.join(missing)} not found",
                           hint="run this on a login node of the cluster (or `module load slurm` first); "
                                "torchenv drives the cluster only through Slurm's own commands")


def query(argv: list[str]) -> str:
    """Run a Slurm client command here; its stdout, or a ClusterError with what it printed."""
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=QUERY_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        raise ClusterError(f"`{' '.join(argv)}` did not answer within {QUERY_TIMEOUT_S} s",
                           hint="is slurmctld reachable from here? try `scontrol ping`") from None
    if proc.returncode != 0:
        said = (proc.stderr.strip() or proc.stdout.strip() or "no output").splitlines()[-1]
        raise ClusterError(f"`{' '.join(argv)}` failed (exit {proc.returncode}): {said}",
                           hint="check that slurmctld is up (`scontrol ping`) and SLURM_CONF names its config")
    return proc.stdout


def partitions() -> list[str]:
    """Partition names as ``sinfo`` lists them (the default one without its ``*``)."""
    return sorted({line.strip().rstrip("*") for line in query(["sinfo", "-h", "-o", "%R"]).splitlines()
                   if line.strip()})


def check_partitions(wanted: list[str]) -> None:
    known = partitions()
    unknown = [p for p in wanted if p not in known]
    if unknown:
        raise ClusterError(f"no partition {', '.join(repr(p) for p in unknown)} in this cluster",
                           hint=f"partitions here: {', '.join(known) or 'none'} (from `sinfo`)")


def node_rows(wanted: list[str] | None = None) -> list[tuple[str, str, str]]:
    """``(node, partition, gres)`` for every node (of the wanted partitions), in ``sinfo`` order."""
    argv = ["sinfo", "-h", "-N", "-o", "%N|%P|%G"]
    if wanted:
        argv += ["-p", ",".join(wanted)]
    rows = []
    for line in query(argv).splitlines():
        parts = line.strip().split("|")
        if len(parts) == 3:
            rows.append((parts[0], parts[1].rstrip("*"), parts[2]))
    return rows


def _argv(job: Job, name: str) -> list[str]:
    tool = "salloc" if job.allocate else "srun"
    argv = [tool, "--quiet", f"--job-name={name}", f"--partition={job.partition}", f"--nodes={job.nodes}"]
    if not job.allocate:
        argv.append(f"--ntasks={job.nodes}")
    if job.gres:
        argv.append(f"--gres={job.gres}")
    return [*argv, *job.argv]


@dataclass
class _Running:
    job: Job
    name: str
    proc: subprocess.Popen[bytes]
    out: Path
    err: Path
    started: float
    job_id: str = ""
    running: bool = False


def run_jobs(jobs: list[Job], *, pending_timeout: float, timeout: float = 3600) -> list[JobResult]:
    """Run every job at once (one per node type) and wait for all; results in the order given.

    Raises ClusterError when a job is still pending after ``pending_timeout`` seconds (it is cancelled, and
    the others too), naming the node type and Slurm's reason.
    """
    with tempfile.TemporaryDirectory(prefix="torchenv-slurm-") as tmp:
        running = [_start(job, Path(tmp), i) for i, job in enumerate(jobs)]
        try:
            _wait(running, pending_timeout, timeout)
        except BaseException:
            _cancel(running)
            raise
        return [JobResult(r.job, r.proc.returncode, r.out.read_text(errors="replace"),
                          r.err.read_text(errors="replace")) for r in running]


def _start(job: Job, tmp: Path, index: int) -> _Running:
    name = f"torchenv-{job.label}-{uuid.uuid4().hex[:8]}"
    out, err = tmp / f"{index}.out", tmp / f"{index}.err"
    with open(out, "wb") as fo, open(err, "wb") as fe:
        proc = subprocess.Popen(_argv(job, name), stdout=fo, stderr=fe, stdin=subprocess.DEVNULL,
                                env={**os.environ, "SLURM_EXPORT_ENV": "ALL"})
    return _Running(job, name, proc, out, err, time.monotonic())


def _states(names: set[str]) -> dict[str, tuple[str, str, str]]:
    """job name -> (job id, state, reason) for the jobs of ours that Slurm still lists."""
    try:
        text = query(["squeue", "-h", "-o", "%j|%i|%T|%r"])
    except ClusterError:
        return {}
    found = {}
    for line in text.splitlines():
        parts = line.strip().split("|")
        if len(parts) == 4 and parts[0] in names:
            found[parts[0]] = (parts[1], parts[2], parts[3])
    return found


def _wait(running: list[_Running], pending_timeout: float, timeout: float) -> None:
    while any(r.proc.poll() is None for r in running):
        waiting = {r.name: r for r in running if r.proc.poll() is None and not r.running}
        for name, (job_id, state, reason) in _states(set(waiting)).items():
            r = waiting[name]
            r.job_id = job_id
            if state != "PENDING":
                r.running = True
            elif time.monotonic() - r.started > pending_timeout:
                raise ClusterError(
                    f"node type {r.job.label}: job {job_id} still pending after {pending_timeout:g} s "
                    f"(partition {r.job.partition}{', ' + r.job.gres if r.job.gres else ''}; "
                    f"Slurm's reason: {reason})",
                    hint="see `squeue -j " + job_id + " -o %r` and `sinfo -p " + r.job.partition + "`; "
                         "raise --pending-timeout to wait longer, or leave this partition out with --partition")
        late = [r for r in running if r.proc.poll() is None and time.monotonic() - r.started > timeout]
        if late:
            raise ClusterError(f"node type {late[0].job.label}: job did not finish within {timeout:g} s",
                               hint="raise --timeout, or look at the job with `squeue`")
        time.sleep(POLL_S)


def _cancel(running: list[_Running]) -> None:
    """Cancel our jobs (by name: an id may not be known yet) and stop the local srun/salloc processes."""
    names = [r.name for r in running if r.proc.poll() is None]
    if names:
        subprocess.run(["scancel", "--name", ",".join(names)], capture_output=True, timeout=QUERY_TIMEOUT_S)
    for r in running:
        if r.proc.poll() is None:
            r.proc.terminate()
            try:
                r.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                r.proc.kill()
                r.proc.wait()
