"""Companion pins, local tags / sources, Python choice and the backend it implies."""
from __future__ import annotations

import pytest
from resolve_machines import A100, GTX1080TI, RTX3090, T4, intent, machine

from torchenv import kb
from torchenv.errors import PlanRefused
from torchenv.resolve.resolver import resolve


def pins(plan):
    return {p.name: (p.version, p.source) for p in plan.packages}


def test_2_4_1_pypi_default_has_no_local_tag():
    plan = resolve(intent(version="2.4.1", with_=("torchvision", "torchaudio")),
                   machine(driver="550.54.14", gpus=[A100]))
    assert plan.tier == "cu121" and plan.pypi_default_build
    assert pins(plan) == {"torch": ("2.4.1", "pypi"), "torchvision": ("0.19.1", "pypi"),
                          "torchaudio": ("2.4.1", "pypi")}


def test_2_4_1_non_default_tier_is_tagged_from_torch_index():
    plan = resolve(intent(version="2.4.1", cuda="cu118", with_=("torchvision", "torchaudio")),
                   machine(driver="550.54.14", gpus=[A100]))
    assert not plan.pypi_default_build
    assert pins(plan) == {"torch": ("2.4.1+cu118", "torch-index"), "torchvision": ("0.19.1+cu118", "torch-index"),
                          "torchaudio": ("2.4.1+cu118", "torch-index")}


def test_2_13_pairs_torchvision_0_28_and_stable_abi_torchaudio():
    rel = kb.release("2.13.0")
    assert kb.companions(rel)["torchvision"] == "0.28.0"
    assert kb.companions(rel, "cu130", "linux-x86_64")["torchaudio"].startswith("2.11.")
    # PyPI default (cu130): torchaudio 2.11.0 is PyPI's cu130 build, no tag
    plan = resolve(intent(version="2.13", with_=("torchvision", "torchaudio")),
                   machine(driver="580.65.06", gpus=[A100]))
    assert plan.tier == "cu130"
    assert pins(plan)["torchaudio"] == ("2.11.0", "pypi")
    assert pins(plan)["torchvision"] == ("0.28.0", "pypi")
    # a non-default tier takes torchaudio 2.11.x from the tier's index, tagged
    plan = resolve(intent(version="2.13", cuda="cu126", with_=("torchaudio",)), machine(driver="580.65.06",
                                                                                       gpus=[A100]))
    assert pins(plan)["torchaudio"] == ("2.11.0+cu126", "torch-index")


def test_2_15_prefers_torchaudio_2_11_1():
    plan = resolve(intent(version="2.15", with_=("torchvision", "torchaudio")), machine(driver="590.44.01",
                                                                                       gpus=[A100]))
    assert pins(plan) == {"torch": ("2.15.0", "pypi"), "torchvision": ("0.29.2", "pypi"),
                          "torchaudio": ("2.11.1", "pypi")}


def test_never_torchaudio_equal_to_torch_from_2_12():
    for rel in kb.releases():
        if kb.vtuple(rel.version) >= (2, 12):
            assert kb.companions(rel, "cu126")["torchaudio"] in ("2.11.0", "2.11.1")
        elif kb.vtuple(rel.version) >= (2, 1):
            assert kb.companions(rel)["torchaudio"] == rel.version


@pytest.mark.parametrize("torch,vision,audio", [("1.10.0", "0.11.1", "0.10.0"), ("2.0.0", "0.15.1", "2.0.1"),
                                                 ("2.0.1", "0.15.2", "2.0.2"), ("2.9.1", "0.24.1", "2.9.1"),
                                                 ("2.14.1", "0.29.1", "2.11.1")])
def test_exact_companion_pins(torch, vision, audio):
    comp = kb.companions(kb.release(torch), "cu132")
    assert comp["torchvision"] == vision
    assert comp["torchaudio"] == audio


def test_python_newest_on_machine_that_has_wheels():
    m = machine(driver="550.54.14", gpus=[T4], pythons=("3.8.10", "3.12.3", "3.13.1"))
    plan = resolve(intent(version="2.4"), m)
    assert plan.python == "3.12"                        # 2.4 has no cp313
    assert plan.python_path == "/usr/bin/python3.12"
    assert plan.backend == "venv"


def test_python_missing_goes_to_conda_with_auto_backend():
    m = machine(driver="550.54.14", gpus=[T4], pythons=("3.8.10",))
    plan = resolve(intent(version="2.8", backend="auto"), m)
    assert plan.python == "3.13" and plan.python_path is None
    assert plan.backend == "conda" and "not on this machine" in plan.backend_reason
    assert any("3.13" in w and "install" in w for w in plan.warnings)


def test_python_experimental_only_when_it_is_what_the_machine_has():
    rel_has = machine(pythons=("3.13.0",))
    assert resolve(intent(version="2.5"), rel_has).python == "3.13"       # 3.13 is experimental for 2.5, but present
    assert resolve(intent(version="2.5"), machine(pythons=())).python == "3.12"


def test_python_support_is_per_platform():
    """torch 2.5's only cp313 file is manylinux1_x86_64; 1.10.2's only cp310 file is aarch64 (compat.md §8c)."""
    assert resolve(intent(version="2.5"), machine(os="windows", pythons=("3.13.0",))).python == "3.12"
    with pytest.raises(PlanRefused) as info:
        resolve(intent(version="2.5", python="3.13"), machine(os="windows"))
    assert "no Python 3.13 wheels for windows-x86_64 (only for linux-x86_64)" in " ".join(info.value.reasons)
    assert resolve(intent(version="==1.10.2", python="3.10"), machine(arch="aarch64")).torch_version == "1.10.2"
    with pytest.raises(PlanRefused):
        resolve(intent(version="==1.10.2", python="3.10"), machine())


@pytest.mark.parametrize("python,version,expect", [("3.14t", None, "2.15.0"), ("3.13t", None, "2.12.0"),
                                                   ("3.13t", "2.7", "2.7.1"), ("3.15t", None, "2.15.0")])
def test_free_threaded_python_is_accepted(python, version, expect):
    """PyPI ships cp313t from 2.7 and cp314t from 2.9; 2.12.1 dropped cp313t (compat.md §1a, §8c)."""
    plan = resolve(intent(version=version, python=python), machine(os="macos", arch="arm64"))
    assert (plan.torch_version, plan.python) == (expect, python)
    assert any("free-threaded" in w for w in plan.warnings)


def test_free_threaded_python_refused_where_torch_has_none():
    with pytest.raises(PlanRefused) as info:
        resolve(intent(version="2.6", python="3.13t"), machine())
    assert "no free-threaded Python 3.13t wheels" in " ".join(info.value.reasons)


def test_python_pin_without_wheels_refused_with_python_alternative():
    with pytest.raises(PlanRefused) as info:
        resolve(intent(version="2.4", python="3.13"), machine(driver="550.54.14", gpus=[T4]))
    alts = info.value.alternatives
    assert {"kind": "python", "python": "3.12"}.items() <= next(a for a in alts if a["kind"] == "python").items()
    assert "Python 3.13" in " ".join(info.value.reasons)


def test_explicit_tier_honoured_even_when_newer_fits():
    plan = resolve(intent(cuda="12.6", version="2.8"), machine(driver="575.57.08", gpus=[RTX3090]))
    assert plan.tier == "cu126" and plan.packages[0].version == "2.8.0+cu126"
    assert any("set by the caller (cuda = \"cu126\")" in r for r in plan.reasons)


def test_explicit_tier_missing_in_release_is_refused_not_changed():
    with pytest.raises(PlanRefused) as info:
        resolve(intent(cuda="cu118", version="2.9"), machine(driver="575.57.08", gpus=[RTX3090]))
    assert "cu118" in info.value.message
    assert any(a["kind"] == "tier" and a["torch"].startswith("2.9") for a in info.value.alternatives)
    assert any(a["kind"] == "torch" and a["tier"] == "cu118" for a in info.value.alternatives) or \
        any(a["kind"] == "torch" for a in info.value.alternatives)


def test_strict_vs_compat():
    m = machine(driver="555.42.02", gpus=[RTX3090])
    assert resolve(intent(version="2.8"), m).tier == "cu128"                       # 12.x compat floor 525.60.13
    with pytest.raises(PlanRefused) as info:                                         # 12.6 GA 560.28.03 > 555
        resolve(intent(version="2.8", policy="strict"), m)
    alt = next(a for a in info.value.alternatives if a["kind"] == "driver")
    assert alt["min_driver"] in ("560.28.03", "570.26")
    assert any(a["kind"] == "policy" for a in info.value.alternatives)


def test_gtx1080ti_reasons_explain_cu126_over_cu128():
    plan = resolve(intent(version="2.8"), machine(driver="575.57.08", gpus=[GTX1080TI]))
    text = "\n".join(plan.reasons)
    assert "cu128 skipped" in text and "sm_61" in text and "Pascal" in text and "no kernel image" in text
    assert "cu126 chosen: carries sm_60, which runs on 6.1 (same major, minor 0 <= 1)" in text


def test_plan_fields_filled():
    plan = resolve(intent(version="2.8"), machine(driver="575.57.08", gpus=[RTX3090]))
    assert plan.cuda_version == "12.8" and plan.expects_gpu and plan.platform == "linux-x86_64"
    assert "sm_86" in plan.compiled_archs and plan.sources is not None and plan.installer == "uv"
    assert plan.pypi_default_build and plan.packages[0].source == "pypi"


def test_macos_arm64_expects_mps():
    plan = resolve(intent(), machine(os="macos", arch="aarch64", pythons=("3.12.1",)))
    assert plan.platform == "macos-arm64" and plan.tier == "cpu" and plan.expects_gpu
    assert plan.pypi_default_build and plan.packages[0].version == plan.torch_version


def test_hidden_gpus_warn_and_plan_cpu():
    plan = resolve(intent(), machine(driver="575.57.08", gpus=[RTX3090], nvidia_hidden=True))
    assert plan.tier == "cpu" and not plan.expects_gpu
    assert any("CUDA_VISIBLE_DEVICES" in w for w in plan.warnings)


def test_explicit_cuda_without_gpu_honoured_with_warning():
    plan = resolve(intent(version="2.4", cuda="cu121"), machine())
    assert plan.tier == "cu121" and not plan.expects_gpu
    assert any("CPU only" in w for w in plan.warnings)


def test_ptx_only_match_is_warned():
    # RTX 5090 on 2.9 cu130 index build: SASS sm_120 exists; GB10 (12.1) runs sm_120 -> SASS, no warning
    plan = resolve(intent(version="2.9", cuda="cu129"), machine(driver="575.57.08", gpus=[("NVIDIA GB10", "12.1")]))
    assert plan.tier == "cu129" and not any("PTX JIT" in w for w in plan.warnings)


def test_free_threaded_plan_looks_for_cp314t_wheels():
    from torchenv.sources.locate import target_tags

    tags = [str(t) for t in target_tags("3.14t", "linux-x86_64")]
    assert tags[0] == "cp314-cp314t-manylinux_2_28_x86_64"
    assert not any(t.startswith("cp314-cp314-") for t in tags)


@pytest.mark.parametrize("version,tier,pins", [
    ("2.5", "cu124", {"torch": "2.5.1", "torchvision": "0.20.1"}),
    ("2.7", "cu128", {"torch": "2.7.1+cu128", "torchvision": "0.22.1"}),
    ("2.8", "cu129", {"torch": "2.8.0+cu129", "torchvision": "0.23.0", "torchaudio": "2.8.0"}),
])
def test_aarch64_cuda_companions_carry_no_local_tag(version, tier, pins):
    """whl/cu128/torchvision-0.22.0-cp312-cp312-manylinux_2_28_aarch64.whl, whl/cu124/torch-2.5.1-...-linux_aarch64.whl:
    the aarch64 files of these tiers have no +tier tag, so a `==0.22.1+cu128` pin would find nothing."""
    plan = resolve(intent(version=version, with_=("torchvision", "torchaudio")),
                   machine(arch="aarch64", driver="570.124.06", gpus=[("NVIDIA GH200 480GB", "9.0")]))
    got = {p.name: p.version for p in plan.packages}
    assert plan.tier == tier and pins.items() <= got.items()
    assert all(p.source == "torch-index" for p in plan.packages)
