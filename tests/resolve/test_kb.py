"""The knowledge base: every fact the resolver needs is present, and the arch rule is right."""
from __future__ import annotations

import pytest

from torchenv import kb
from torchenv.kb.archs import match
from torchenv.kb.model import ArchSet


def test_every_release_1_8_to_2_15_known():
    versions = [r.version for r in kb.releases()]
    for v in ("1.8.0", "1.8.1", "1.10.2", "2.0.1", "2.4.0", "2.4.1", "2.7.1", "2.12.1", "2.14.1", "2.15.0"):
        assert v in versions
    assert versions == sorted(versions, key=kb.vtuple, reverse=True)


def test_every_cuda_tier_has_compiled_archs_and_driver_floor():
    for rel in kb.releases():
        for platform in ("linux-x86_64", "linux-aarch64", "windows-x86_64"):
            for tier in rel.tiers(platform):
                if tier.startswith("cu"):
                    assert kb.compiled_archs(rel, tier, platform), (rel.version, tier, platform)
                    assert kb.driver_floor(tier, platform.split("-")[0], "compat")
                    assert kb.driver_floor(tier, platform.split("-")[0], "strict")
                assert kb.tier_info(tier) is not None, tier


def test_pypi_default_is_a_tier_of_the_release():
    for rel in kb.releases():
        for platform, tier in rel.pypi_default.items():
            assert tier in rel.tiers(platform), (rel.version, platform, tier)


@pytest.mark.parametrize("version,tier", [("1.12.1", "cu102"), ("2.0.1", "cu117"), ("2.4.1", "cu121"),
                                          ("2.6.0", "cu124"), ("2.7.1", "cu126"), ("2.10.0", "cu128"),
                                          ("2.11.0", "cu130"), ("2.14.1", "cu130"), ("2.15.0", "cu132")])
def test_pypi_default_linux(version, tier):
    assert kb.pypi_default_tier(kb.release(version), "linux-x86_64") == tier
    assert kb.pypi_default_tier(kb.release(version), "windows-x86_64") == "cpu"


def test_aarch64_pypi_cuda_from_2_11():
    assert kb.pypi_default_tier(kb.release("2.10.0"), "linux-aarch64") == "cpu"
    assert kb.pypi_default_tier(kb.release("2.11.0"), "linux-aarch64") == "cu130"


def test_driver_floors():
    assert kb.driver_floor("cu121", "linux", "compat") == "525.60.13"
    assert kb.driver_floor("cu121", "linux", "strict") == "530.30.02"
    assert kb.driver_floor("cu118", "windows", "compat") == "452.39"
    assert kb.driver_floor("cu130", "linux") == "580.65.06"
    assert kb.driver_ok("580.65.06", "580") and not kb.driver_ok("575.57.08", "580")
    assert kb.driver_ok("450.80.02", "450.80.2")


def test_arch_rules():
    cu128 = ArchSet(sm=("7.0", "7.5", "8.0", "8.6", "9.0", "10.0", "12.0"), ptx=None)
    assert match("6.1", cu128) is None                       # Pascal: no sm_6x
    assert match("8.9", cu128).code == "8.6"                 # Ada runs sm_86
    assert match("10.3", cu128).code == "10.0"
    assert match("12.1", cu128).code == "12.0"
    assert match("8.7", ArchSet(sm=("8.0", "9.0"), ptx=None)).code == "8.0"
    with_ptx = ArchSet(sm=("7.5", "8.0"), ptx="8.0")
    m = match("9.0", with_ptx)
    assert m.kind == "ptx" and m.label == "compute_80"
    assert match("7.0", with_ptx) is None                    # PTX never runs on an older CC
    assert match("6.1", ArchSet(sm=("6.0",), ptx=None)).explain() == \
        "carries sm_60, which runs on 6.1 (same major, minor 0 <= 1)"


def test_compiled_archs_facts():
    assert "6.0" not in kb.compiled_archs(kb.release("2.8.0"), "cu128", "linux-x86_64").sm
    assert "7.0" in kb.compiled_archs(kb.release("2.10.0"), "cu128", "linux-x86_64").sm
    assert "7.0" not in kb.compiled_archs(kb.release("2.11.0"), "cu128", "linux-x86_64").sm
    win = kb.compiled_archs(kb.release("2.4.1"), "cu121", "windows-x86_64")
    assert "6.1" in win.sm and win.verified


@pytest.mark.parametrize("name,cc", [("NVIDIA GeForce GTX 1080 Ti", "6.1"), ("Tesla T4", "7.5"),
                                     ("NVIDIA A100-SXM4-80GB", "8.0"), ("NVIDIA A10", "8.6"),
                                     ("NVIDIA H100 80GB HBM3", "9.0"), ("NVIDIA GeForce RTX 5090", "12.0"),
                                     ("NVIDIA L40S", "8.9"), ("NVIDIA B200", "10.0"), ("Tesla V100-SXM2-16GB", "7.0")])
def test_gpu_cc(name, cc):
    assert kb.gpu_cc(name) == cc


def test_gpu_family_and_jetson():
    assert kb.gpu_family("6.1") == "Pascal" and kb.gpu_family("8.9") == "Ada Lovelace"
    assert kb.is_jetson("8.7") and not kb.is_jetson("8.6", "NVIDIA GeForce RTX 3090")
    assert not kb.is_jetson("11.0", "Jetson T5000")         # Thor runs the CUDA 13 aarch64 wheels


def test_torch_family():
    fam = kb.torch_family()
    for name in ("torch", "torchvision", "torchaudio", "triton", "pytorch-triton", "xformers", "torchao",
                 "torchcodec", "fbgemm-gpu"):
        assert name in fam
    assert "torchdata" not in fam
