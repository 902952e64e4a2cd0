"""``torchenv cluster`` against a real Slurm: three node types on one host (a V100-like 7.0 node with an older
driver, an H100-like 9.0 node, a GPU-less node) with fake GPU GRES and a stand-in nvidia-smi per node."""
from __future__ import annotations

import json
import os
import subprocess
import time

import pytest
from tests.support.skips import unavailable

from .conftest import cpu_wheel_folder, torchenv

pytestmark = pytest.mark.integration


@pytest.fixture
def project(tmp_path):
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "torchenv.toml").write_text('[torch]\nversion = "2.13"\ncuda = "cpu"\npython = "3.11"\n')
    return proj


def test_probe_lock_up_verify_end_to_end(cluster_env, project):
    if cpu_wheel_folder() is None:
        unavailable("needs the real torch 2.13.0+cpu wheel in a find-links folder of `pip config list`")
    probe = torchenv(cluster_env, project, "cluster", "probe", "-o", "cluster.json")
    assert probe.returncode == 0, probe.stderr
    types = {t["name"]: t for t in json.loads((project / "cluster.json").read_text())["node_types"]}
    assert {n: (t["nodes"], t["probed_on"], t["gpus_per_node"]) for n, t in types.items()} == {
        "cpu": (["c1"], "c1", 0), "v100": (["v1"], "v1", 2), "h100": (["h1"], "h1", 1)}
    v100, h100 = types["v100"]["machine"]["nvidia"], types["h100"]["machine"]["nvidia"]
    assert (v100["driver"], v100["gpus"][0]["compute_capability"]) == ("535.183.01", "7.0")
    assert (h100["driver"], h100["gpus"][0]["compute_capability"]) == ("580.95.05", "9.0")
    assert not (types["cpu"]["machine"]["nvidia"] or {}).get("gpus")

    # the GPU parts, through the planned tier: one build for the whole cluster, and why
    plan = torchenv(cluster_env, project, "plan", "--machine", "cluster.json", "--cuda", "auto", "--json")
    assert plan.returncode == 0, plan.stderr
    found = json.loads(plan.stdout)
    assert [(t["target"], sorted(t["node_types"])) for t in found["targets"]] == [
        ("linux-x86_64-cu126", ["cpu", "h100", "v100"])]
    why = "\n".join(found["reasons"])
    assert "cu126 (torch 2.13.0) is one build for the whole cluster" in why
    assert "lowest driver in the cluster: 535.183.01 on v100" in why
    assert "cu130 not chosen: it does not run on v100" in why
    assert "(sm_70, sm_90)" in why

    # the real install (torch 2.13.0+cpu) on every node type, from the lock, through Slurm
    lock = torchenv(cluster_env, project, "lock", "--machine", "cluster.json")
    assert lock.returncode == 0, lock.stderr
    up = torchenv(cluster_env, project, "cluster", "up", "--json")
    assert up.returncode == 0, up.stdout + up.stderr
    assert json.loads(up.stdout)["ok"] is True
    verify = torchenv(cluster_env, project, "cluster", "verify", "--json")
    assert verify.returncode == 0, verify.stdout + verify.stderr
    rows = {r["node_type"]: r for r in json.loads(verify.stdout)["node_types"]}
    assert {n: (r["node"], r["torch"], r["ok"]) for n, r in rows.items()} == {
        "cpu": ("c1", "2.13.0+cpu", True), "v100": ("v1", "2.13.0+cpu", True), "h100": ("h1", "2.13.0+cpu", True)}
    assert rows["v100"]["archs"] == "cpu build (GPU unused)" and rows["cpu"]["archs"] == "no GPU"
    assert rows["cpu"]["checks"] == "8/8 passed"

    # node-local disks: the bundle sbcast to every node, installed there by srun (%n = the node's name)
    nodes = project.parent / "nodes"
    local = torchenv(cluster_env, project, "cluster", "up", "--local-dir", f"{nodes}/%n", "--json")
    assert local.returncode == 0, local.stdout + local.stderr
    assert sorted(p.name for p in nodes.iterdir()) == ["c1", "h1", "v1"]
    assert all((nodes / n / ".venv" / "bin" / "python").exists() for n in ("c1", "h1", "v1"))
    local_verify = torchenv(cluster_env, project, "cluster", "verify", "--local-dir", f"{nodes}/%n", "--json")
    assert local_verify.returncode == 0, local_verify.stdout + local_verify.stderr

    # a node type whose env is broken fails the whole verify, with a table row saying so
    table = torchenv(cluster_env, project, "cluster", "verify", "--torchenv", "sh -c 'exit 3'")
    assert table.returncode == 1
    assert "verify failed on node type(s) cpu, h100, v100" in table.stderr.replace("\n", " ")


def test_unknown_partition_is_named_with_the_ones_that_exist(cluster_env, project):
    result = torchenv(cluster_env, project, "cluster", "probe", "--partition", "a100")
    assert result.returncode == 2
    assert "no partition 'a100' in this cluster" in result.stderr
    assert "partitions here: cpu, h100, v100" in result.stderr


def test_failing_probe_names_the_node_type(cluster_env, project):
    result = torchenv(cluster_env, project, "cluster", "probe", "--partition", "cpu", "--torchenv", "sh -c 'exit 3'")
    assert result.returncode == 2
    assert "node type cpu (partition cpu, on c1): the probe job failed (exit 3)" in result.stderr
    assert not (project / "cluster.json").exists()


def test_job_pending_past_the_timeout_says_why(cluster_env, project):
    holder = subprocess.Popen(["srun", "-p", "h100", "--exclusive", "--job-name=test-holder", "sleep", "120"],
                              env=cluster_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            state = subprocess.run(["squeue", "-h", "-n", "test-holder", "-o", "%T"], env=cluster_env,
                                   capture_output=True, text=True).stdout.strip()
            if state == "RUNNING":
                break
            time.sleep(0.1)
        started = time.monotonic()
        result = torchenv(cluster_env, project, "cluster", "probe", "--partition", "h100", "--pending-timeout", "1")
        took = time.monotonic() - started
    finally:
        subprocess.run(["scancel", "--name", "test-holder"], env=cluster_env)
        holder.wait(timeout=30)
    assert result.returncode == 2
    assert "node type h100: job" in result.stderr and "still pending after 1 s" in result.stderr
    assert "Slurm's reason: Resources" in result.stderr
    assert took < 15
    left = subprocess.run(["squeue", "-h", "-o", "%j"], env=cluster_env, capture_output=True, text=True).stdout
    assert "torchenv-h100" not in left      # the pending job was cancelled, not left queued


def test_no_slurm_on_path(tmp_path, project):
    env = {**os.environ, "PATH": str(tmp_path), "TORCHENV_HOME": str(tmp_path / "home")}
    result = torchenv(env, project, "cluster", "probe")
    assert result.returncode == 2
    assert "no Slurm on PATH: sinfo, srun, squeue, scancel not found" in result.stderr
