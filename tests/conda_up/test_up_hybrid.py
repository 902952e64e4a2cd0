"""`torchenv up` in hybrid mode (default ``torch-source = "wheels"``): conda Python + ``cuda-nvcc``,
torch wheels from the tier's (mirrored) index installed into the prefix's Python."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from tests.conda_up.conftest import GPU
from tests.support.console import unwrapped


def _py(env: Path, code: str) -> str:
    return subprocess.run([str(env / "bin" / "python"), "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip()


def _hybrid(project, forge, wheel_world) -> None:
    project.write(channel=forge, torch="2.8", cuda="12.6", torch_source="wheels", packages=("cuda-nvcc",),
                  wheels=wheel_world)


def test_hybrid_env_gets_conda_nvcc_matching_the_tier_and_the_torch_wheel(project, forge, wheel_world, calls):
    _hybrid(project, forge, wheel_world)
    result = project.up(*GPU)
    said = project.uis[-1].text

    assert result.status == "installed" and result.target == "linux-x86_64-cu126"
    # conda half: the planned Python, cuda-nvcc pinned to the tier's CUDA, no conda pytorch
    assert calls.solve == [["python 3.11.*", "cuda-version 12.6.*", "cuda-nvcc 12.6.*"]]
    meta = project.conda_meta()
    assert "cuda-nvcc-12.6.85-h0_0.json" in meta and "cuda-version-12.6-h0_3.json" in meta
    assert not any(m.startswith("pytorch") for m in meta)
    assert "cuda-nvcc pinned to 12.6.* to match torch tier cu126" in said
    assert "Cuda compilation tools, release 12.6" in subprocess.run(
        [str(project.env / "bin" / "nvcc")], capture_output=True, text=True).stdout
    # wheel half: torch from the (mirrored) cu126 index, its dependency from the PyPI side, in the prefix
    assert _py(project.env, "import sys, torch; print(sys.prefix, torch.__version__)") == \
        f"{project.env} 2.8.0+cu126"
    target = project.lock().target("linux-x86_64-cu126")
    torch = target.wheel("torch")
    assert torch.version == "2.8.0+cu126" and torch.source == "torch-index"
    assert torch.url.startswith("https://download.pytorch.org/whl/cu126/")   # canonical, not the mirror
    assert target.wheel("fakedep") is not None and target.torch == "2.8.0+cu126"
    assert {p.name for p in target.conda} == {"python", "python_abi", "cuda-nvcc", "cuda-version"}
    assert "index-url = " + wheel_world.pypi.as_uri() in (project.env / "pip.conf").read_text()

    assert project.up(*GPU).status == "up-to-date"
    assert len(calls.solve) == 1


def test_hybrid_frozen_rebuild_uses_the_mirror_for_the_canonical_wheel_url(project, forge, wheel_world, calls,
                                                                           monkeypatch, tmp_path):
    """The lock says download.pytorch.org; with the wheel cache gone, the mirror must serve the bytes."""
    _hybrid(project, forge, wheel_world)
    project.up(*GPU)
    shutil.rmtree(project.env)
    from torchenv import paths

    shutil.rmtree(paths.wheel_cache(), ignore_errors=True)
    from torchenv.engines.rattler import RattlerEngine

    monkeypatch.setattr(RattlerEngine, "solve", lambda self, **kw: (_ for _ in ()).throw(
        AssertionError("--frozen must not solve")))
    assert project.up("--frozen", *GPU).status == "installed"
    assert _py(project.env, "import torch; print(torch.__version__)") == "2.8.0+cu126"
    assert "cuda-nvcc-12.6.85-h0_0.json" in project.conda_meta()


def test_plan_says_why_cuda_nvcc_is_pinned(project, forge, wheel_world, capsys):
    """`torchenv plan` should show the conda specs and their reasons before anything is solved."""
    from torchenv.cli import main

    _hybrid(project, forge, wheel_world)
    capsys.readouterr()
    assert main(["plan", "-C", str(project.dir), *GPU]) == 0
    out = unwrapped(capsys.readouterr().out)
    assert "environment: conda: set by the project" in out
    assert "cuda-nvcc pinned to 12.6.* to match torch tier cu126" in out


def test_a_wheel_that_cannot_be_fetched_leaves_no_half_built_prefix(project, forge, wheel_world, tmp_path):
    """The wheel half is fetched before the prefix is created, so a dead mirror changes nothing on disk."""
    from tests.conda_up.conftest import WheelWorld

    from torchenv import paths
    from torchenv.errors import SourceError

    mirror = tmp_path / "torch-mirror"
    shutil.copytree(wheel_world.torch_mirror, mirror)
    project.write(channel=forge, torch="2.8", cuda="12.6", torch_source="wheels", packages=("cuda-nvcc",),
                  wheels=WheelWorld(torch_mirror=mirror, pypi=wheel_world.pypi))
    project.up(*GPU)
    shutil.rmtree(project.env)
    shutil.rmtree(paths.wheel_cache(), ignore_errors=True)
    shutil.rmtree(mirror)
    with pytest.raises(SourceError, match="torch-2.8.0"):
        project.up("--frozen", *GPU)
    assert not project.env.exists()


def test_a_hybrid_up_in_chinese_says_each_step_and_spec_reason_in_chinese(project, forge, wheel_world):
    """What ``up`` prints for a conda prefix (the solve, each spec's reason, both installs) reads in Chinese."""
    from tests.support.english import english_left

    from torchenv import i18n

    _hybrid(project, forge, wheel_world)
    i18n.activate({"TORCHENV_LANG": "zh_CN"})
    try:
        result = project.up(*GPU)
    finally:
        i18n.deactivate()
    said = project.uis[-1].text
    assert result.status == "installed"
    for words in ("正在用 rattler 求解 conda 包：", "cuda-nvcc 固定为 12.6.*", "个 conda 包安装到", "个 wheel 安装到该前缀的 Python 中"):
        assert words in said, said
    assert not english_left(said), said
    english = project.up(*GPU, "--force")
    assert english.status == "rebuilt" and "wheels into the prefix's Python" in project.uis[-1].text
