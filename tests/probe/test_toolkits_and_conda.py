"""System CUDA toolkits and conda executables."""
from __future__ import annotations

import json

import pytest
from probe_fakes import Recorded

NVCC_12_4 = ("nvcc: NVIDIA (R) Cuda compiler driver\nCopyright (c) 2005-2024 NVIDIA Corporation\n"
             "Built on Tue_Feb_27_16:19:38_PST_2024\nCuda compilation tools, release 12.4, V12.4.99\n"
             "Build cuda_12.4.r12.4/compiler.33961263_0\n")


def test_toolkits_from_nvcc_cuda_home_and_usr_local(probe, tree):
    tree.exe("/usr/local/cuda-12.4/bin/nvcc")
    tree.write("/usr/local/cuda-12.4/version.json", json.dumps({"cuda": {"name": "CUDA SDK", "version": "12.4.1"}}))
    tree.symlink("/usr/local/cuda", "cuda-12.4")
    tree.exe("/usr/local/cuda-11.8/bin/nvcc")
    tree.write("/usr/local/cuda-11.8/version.txt", "CUDA Version 11.8.89\n")
    tree.exe("/opt/cuda-12.1/bin/nvcc")
    tree.mkdir("/opt/cuda-12.1/nvvm")
    run = Recorded({"nvcc --version": (0, NVCC_12_4.replace("12.4", "12.1"))})
    m = probe(run=run, env={"PATH": "/usr/local/cuda/bin:/usr/bin", "CUDA_HOME": "/opt/cuda-12.1"})
    got = [(t.version, t.source, t.path.rsplit("/", 1)[-1]) for t in m.cuda_toolkits]
    assert got == [("12.4", "nvcc", "cuda-12.4"), ("12.1", "CUDA_HOME", "cuda-12.1"),
                   ("11.8", "/usr/local", "cuda-11.8")]


def test_nvcc_wrapper_script_is_recorded_by_its_own_path(probe, tree):
    tree.exe("/usr/local/bin/nvcc", "#!/bin/sh\nexec /somewhere/nvcc \"$@\"\n")
    m = probe(run=Recorded({"nvcc --version": (0, NVCC_12_4)}))
    assert [(t.version, t.source) for t in m.cuda_toolkits] == [("12.4", "nvcc")]
    assert m.cuda_toolkits[0].path.endswith("/usr/local/bin/nvcc")


def test_cuda_home_pointing_nowhere_is_a_finding(probe):
    m = probe(env={"CUDA_HOME": "/usr/local/cuda-99.9"})
    assert m.cuda_toolkits == []
    assert any("CUDA_HOME=/usr/local/cuda-99.9 holds no CUDA toolkit" in f for f in m.findings)


def test_conda_mamba_micromamba_deduplicated_with_versions_from_conda_meta(probe, tree):
    tree.exe("/opt/miniforge3/bin/conda")
    tree.exe("/opt/miniforge3/condabin/conda")
    tree.exe("/opt/miniforge3/bin/mamba")
    tree.write("/opt/miniforge3/conda-meta/conda-24.9.2-py312h7900ff3_0.json", "{}")
    tree.write("/opt/miniforge3/conda-meta/mamba-1.5.10-py312h9460a1c_0.json", "{}")
    tree.exe("/home/user/.local/bin/micromamba")
    m = probe(env={"PATH": "/opt/miniforge3/condabin:/opt/miniforge3/bin:/home/user/.local/bin",
                   "CONDA_EXE": "/opt/miniforge3/bin/conda"})
    assert [(c.kind, c.version) for c in m.conda] == [("conda", "24.9.2"), ("mamba", "1.5.10"),
                                                      ("micromamba", None)]


def test_planning_for_up_and_lock_runs_no_nvcc(monkeypatch):
    """``nvcc --version`` (a subprocess per toolkit) is no input to a plan: ``up``/``lock`` probe without it;
    ``torchenv probe`` still lists the toolkits."""
    import torchenv.probing.cuda_toolkits as toolkits
    from torchenv.flows.planning import PlanRequest, plan_reachable
    from torchenv.intent.model import Intent
    from torchenv.options import UpOptions
    from torchenv.probing.assume import machine_for

    class Stop(Exception):
        pass

    asked: list[str] = []
    monkeypatch.setattr(toolkits, "probe_cuda_toolkits", lambda ctx: asked.append("nvcc") or [])
    monkeypatch.setattr("torchenv.resolve.reachable.reachable_plan", lambda *a, **k: (_ for _ in ()).throw(Stop()))
    with pytest.raises(Stop):
        plan_reachable(PlanRequest(Intent()))
    assert asked == []
    machine_for(UpOptions().machine)
    assert asked == ["nvcc"]
