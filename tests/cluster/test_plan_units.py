"""Planning for a cluster without Slurm: one tier for every node type when one exists, else one target per
type with the reason for each split; ``up`` on a node finds its node type by probing."""
from __future__ import annotations

import json

import pytest

from torchenv.cluster.discover import node_types, parse_gres
from torchenv.cluster.model import Cluster, NodeType, is_cluster_file, load_cluster
from torchenv.cluster.plan import match_node_type, node_plan, plan_for_cluster
from torchenv.errors import ClusterError, MachineFileError
from torchenv.intent.load import load_project_intent
from torchenv.machine import Gpu, Machine, NvidiaInfo, PythonInstall


def machine(driver: str | None = None, ccs: tuple[str, ...] = (), name: str = "GPU", arch: str = "x86_64") -> Machine:
    gpus = [Gpu(name=name, compute_capability=cc, index=i) for i, cc in enumerate(ccs)]
    nvidia = NvidiaInfo(driver=driver, cuda_driver_version=None, source="nvidia-smi", gpus=gpus) if driver else None
    return Machine(os="linux", arch=arch, glibc="2.36", nvidia=nvidia,
                   pythons=[PythonInstall("3.11.2", "/usr/bin/python3.11", "path")])


def node(name: str, m: Machine, gpus: int = 0) -> NodeType:
    return NodeType(name=name, partition=name, nodes=(f"{name}1",), gpus_per_node=gpus,
                    gres_type=name if gpus else None, probed_on=f"{name}1", machine=m.to_json())


V100 = machine("535.183.01", ("7.0", "7.0"), "Tesla V100-SXM2-16GB")
H100 = machine("580.95.05", ("9.0",), "NVIDIA H100 80GB HBM3")
B200 = machine("580.95.05", ("10.0",), "NVIDIA B200")
CPU = machine()


@pytest.fixture
def intent(tmp_path):
    (tmp_path / "torchenv.toml").write_text('[torch]\nversion = "2.13"\npython = "3.11"\n')
    return load_project_intent(tmp_path)


def test_one_tier_for_the_whole_cluster_with_the_reasons(intent):
    cluster = Cluster((node("v100", V100, 2), node("h100", H100, 1), node("cpu", CPU)), source="cluster.json")
    found = plan_for_cluster(intent, cluster)
    assert found.single and found.targets[0].plan.target_name == "linux-x86_64-cu126"
    assert found.targets[0].node_types == ("v100", "h100", "cpu")
    why = "\n".join(found.reasons)
    assert "cu126 (torch 2.13.0) is one build for the whole cluster" in why
    assert "lowest driver in the cluster: 535.183.01 on v100; cu126 needs >= 525.60.13" in why
    assert "(sm_70, sm_90)" in why and "sm_70" in found.targets[0].plan.compiled_archs
    assert "cu130 not chosen: it does not run on v100: needs NVIDIA driver >= 580" in why
    assert "cpu has no GPU: the cu126 build runs there on the CPU" in why


def test_newest_tier_when_every_type_runs_it(intent):
    found = plan_for_cluster(intent, Cluster((node("h100", H100, 1), node("b200", B200, 8), node("cpu", CPU))))
    assert [t.plan.tier for t in found.targets] == ["cu130"]


def test_no_common_tier_splits_per_node_type_with_reasons(intent):
    v100_new_driver = machine("580.95.05", ("7.0",), "Tesla V100-SXM2-16GB")
    found = plan_for_cluster(intent, Cluster((node("v100", v100_new_driver, 2), node("b200", B200, 8),
                                              node("cpu", CPU))))
    assert not found.single
    assert {t.plan.target_name: t.node_types for t in found.targets} == {
        "linux-x86_64-cu126": ("v100",), "linux-x86_64-cu130": ("b200",), "linux-x86_64-cpu": ("cpu",)}
    assert "no single tier runs on every node type" in found.reasons[0]
    v100 = found.target_for("v100")
    assert any("not shared with b200 (linux-x86_64-cu130): cu130 does not run here" in r and "sm_70" in r
               for r in v100.reasons)
    b200 = found.target_for("b200")
    assert any("cu126 does not run here" in r and "sm_100" in r for r in b200.reasons)
    assert found.target_for("cpu").reasons == ("linux-x86_64-cpu for cpu (no GPU): no GPU, so the CPU build",)


def test_another_platform_always_splits(intent):
    gh200 = machine("580.95.05", ("9.0",), "NVIDIA GH200", arch="aarch64")
    found = plan_for_cluster(intent, Cluster((node("h100", H100, 1), node("gh200", gh200, 1))))
    assert sorted(t.plan.target_name for t in found.targets) == ["linux-aarch64-cu130", "linux-x86_64-cu130"]
    assert "one target per platform" in found.reasons[0]


def test_gpuless_cluster_gets_the_cpu_build(intent):
    found = plan_for_cluster(intent, Cluster((node("login", CPU), node("cpu", CPU))))
    assert [t.plan.target_name for t in found.targets] == ["linux-x86_64-cpu"]


def test_a_node_type_nothing_runs_on_is_named(intent):
    old = machine("470.82.01", ("7.0",), "Tesla V100-SXM2-16GB")
    with pytest.raises(ClusterError, match=r"node type v100 \(partition v100\): no torch build"):
        plan_for_cluster(intent, Cluster((node("v100", old, 2), node("h100", H100, 1))))


def test_up_on_a_node_picks_its_types_target_by_probing(intent):
    v100_new_driver = machine("580.95.05", ("7.0",), "Tesla V100-SXM2-16GB")
    cluster = Cluster((node("v100", v100_new_driver, 2), node("b200", B200, 8), node("cpu", CPU)), source="c.json")
    assert match_node_type(cluster, B200).name == "b200"
    plan = node_plan(intent, cluster, machine("580.95.05", ("7.0", "7.0"), "Tesla V100-SXM2-16GB"))
    assert plan.target_name == "linux-x86_64-cu126"
    assert plan.reasons[0].startswith("cluster c.json: node type v100 (matched by probing this node)")
    with pytest.raises(ClusterError, match="matches no node type of c.json"):
        match_node_type(cluster, H100)


def test_sinfo_rows_become_node_types_without_repeats():
    assert parse_gres("gpu:a100:4(S:0-1),shard:8") == parse_gres("gpu:a100:4")
    assert parse_gres("(null)").count == 0 and parse_gres("gpu:2").gpu_type is None
    rows = [("a1", "gpu", "gpu:a100:4"), ("a2", "gpu", "gpu:a100:4"), ("v1", "gpu", "gpu:v100:2"),
            ("c1", "cpu", "(null)"), ("a1", "all", "gpu:a100:4"), ("c1", "all", "(null)")]
    types = node_types(rows)
    assert [(t.name, t.nodes, t.gpus_per_node, t.gres_request) for t in types] == [
        ("gpu-a100", ("a1", "a2"), 4, "gpu:a100:1"), ("gpu-v100", ("v1",), 2, "gpu:v100:1"),
        ("cpu", ("c1",), 0, None)]


def test_cluster_file_round_trip_and_errors(tmp_path):
    cluster = Cluster((node("h100", H100, 1),), name="lab")
    path = tmp_path / "cluster.json"
    path.write_text(cluster.dumps())
    assert is_cluster_file(path) and not is_cluster_file(tmp_path / "absent.json")
    assert load_cluster(path).node_types[0].probe().gpus[0].compute_capability == "9.0"
    (tmp_path / "machine.json").write_text(H100.dumps())
    assert not is_cluster_file(tmp_path / "machine.json")
    with pytest.raises(MachineFileError, match="not a cluster file"):
        load_cluster(tmp_path / "machine.json")
    path.write_text(json.dumps({"kind": "torchenv-cluster", "node_types": [{"name": "x"}]}))
    with pytest.raises(MachineFileError, match="not a torchenv cluster file"):
        load_cluster(path)


def test_plan_json_for_a_cluster_file(tmp_path, capsys):
    from torchenv.cli import main

    (tmp_path / "torchenv.toml").write_text('[torch]\nversion = "2.13"\npython = "3.11"\n')
    (tmp_path / "cluster.json").write_text(Cluster((node("v100", V100, 2), node("h100", H100, 1))).dumps())
    rc = main(["plan", "-C", str(tmp_path), "--machine", str(tmp_path / "cluster.json"), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and out["single_target"] is True
    assert [t["target"] for t in out["targets"]] == ["linux-x86_64-cu126"]
    assert out["targets"][0]["node_types"] == ["v100", "h100"]


def test_arch_coverage_column():
    from torchenv.cluster.check import arch_coverage

    assert arch_coverage(node("v100", V100, 2), ["sm_50", "sm_70", "sm_90"]) == "sm_70 ok"
    assert arch_coverage(node("b200", B200, 8), ["sm_75", "sm_90"]) == "sm_100 MISSING"
    assert arch_coverage(node("b200", B200, 8), ["sm_90", "compute_90"]) == "sm_100 ok"
    assert arch_coverage(node("cpu", CPU), ["sm_90"]) == "no GPU"


def test_one_shared_env_cannot_hold_a_split_lock(intent, tmp_path):
    from torchenv.cluster.build import Layout, shared_jobs

    v100_new_driver = machine("580.95.05", ("7.0",), "Tesla V100-SXM2-16GB")
    cluster = Cluster((node("v100", v100_new_driver, 2), node("b200", B200, 8)))
    layout = Layout(project=tmp_path, cluster_file=tmp_path / "c.json", torchenv=("torchenv",))
    with pytest.raises(ClusterError, match="needs 2 targets .* one shared env holds one") as err:
        shared_jobs(cluster, plan_for_cluster(intent, cluster), layout)
    assert "--local-dir" in err.value.hint
    single = Cluster((node("h100", H100, 1), node("cpu", CPU)))
    job, = shared_jobs(single, plan_for_cluster(intent, single), layout)
    assert (job.partition, job.gres) == ("h100", "gpu:h100:1")
    assert "up --frozen --machine" in job.argv[-1]
