"""What the conda request says for a plan: specs, CUDA matching, legacy channel, virtual packages."""
from __future__ import annotations

import pytest
from tests.conda.helpers import cpu_machine, gpu_machine, make_plan

from torchenv.conda.channels import canonical_url, channel_url, conda_subdir
from torchenv.conda.specs import conda_request
from torchenv.conda.virtual import virtual_packages
from torchenv.errors import IntentError


def test_hybrid_default_puts_only_python_and_listed_packages_in_conda():
    req = conda_request(make_plan(gpu_machine(), channels=("conda-forge",)))
    assert req.specs == ("python 3.12.*",)
    assert req.channels == ("https://conda.anaconda.org/conda-forge",)
    assert not req.torch_from_conda
    assert any("wheel index" in r for r in req.reasons)


def test_nvcc_follows_the_torch_tier_and_says_so():
    req = conda_request(make_plan(gpu_machine(), channels=("conda-forge",), tier="cu126",
                                  packages=("cuda-nvcc", "mkl")))
    assert req.specs == ("python 3.12.*", "cuda-version 12.6.*", "cuda-nvcc 12.6.*", "mkl")
    assert any("cuda-nvcc pinned to 12.6.* to match torch tier cu126" in r for r in req.reasons)


def test_a_version_the_user_wrote_is_kept():
    req = conda_request(make_plan(gpu_machine(), channels=("conda-forge",), tier="cu128",
                                  packages=("cuda-nvcc 12.8.93",)))
    assert "cuda-nvcc 12.8.93" in req.specs and "cuda-version 12.8.*" in req.specs


def test_conda_torch_source_cuda_and_cpu():
    cuda = conda_request(make_plan(gpu_machine(), channels=("conda-forge",), torch_source="conda",
                                   with_=("torchvision",)))
    assert cuda.specs == ("python 3.12.*", "pytorch ==2.5.1 cuda*", "torchvision", "cuda-version 12.6.*")
    cpu = conda_request(make_plan(cpu_machine(), channels=("conda-forge",), torch_source="conda", tier="cpu"))
    assert cpu.specs == ("python 3.12.*", "pytorch ==2.5.1 cpu*")


def test_legacy_pytorch_channel_uses_pytorch_cuda_or_cpuonly():
    cuda = conda_request(make_plan(gpu_machine(), channels=("pytorch", "nvidia"), tier="cu124",
                                   torch_source="conda"))
    assert cuda.specs == ("python 3.12.*", "pytorch ==2.5.1", "pytorch-cuda 12.4.*")
    cpu = conda_request(make_plan(cpu_machine(), channels=("pytorch",), tier="cpu", torch_source="conda"))
    assert "cpuonly" in cpu.specs


def test_legacy_channel_refuses_torch_after_2_5():
    with pytest.raises(IntentError, match="stopped at torch 2.5") as err:
        conda_request(make_plan(gpu_machine(), channels=("pytorch", "nvidia"), torch="2.7.1",
                                torch_source="conda"))
    assert "conda-forge" in err.value.hint


def test_rocm_torch_from_conda_is_refused_with_the_way_out():
    with pytest.raises(IntentError, match="ROCm") as err:
        conda_request(make_plan(cpu_machine(), channels=("conda-forge",), tier="rocm6.2", torch_source="conda"))
    assert 'torch-source = "wheels"' in err.value.hint


def test_virtual_packages_come_from_the_machine_not_this_host():
    assert virtual_packages(gpu_machine("12.9")) == (
        "__unix=0=0", "__linux=5.10=0", "__glibc=2.36=0", "__cuda=12.9=0", "__archspec=1=x86_64")
    assert not any(v.startswith("__cuda") for v in virtual_packages(cpu_machine()))


def test_channels_subdirs_and_mirror_urls():
    assert conda_subdir("linux-x86_64") == "linux-64" and conda_subdir("macos-arm64") == "osx-arm64"
    assert channel_url("conda-forge") == "https://conda.anaconda.org/conda-forge"
    mirrors = {"conda-forge": ["https://mirrors.tuna.tsinghua.edu.cn/anaconda/cloud/conda-forge"]}
    served = "https://mirrors.tuna.tsinghua.edu.cn/anaconda/cloud/conda-forge/noarch/x-1-0.conda"
    assert canonical_url(served, mirrors) == "https://conda.anaconda.org/conda-forge/noarch/x-1-0.conda"
