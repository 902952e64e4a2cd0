"""Reasons a user can trust: a gap in the recipes is never blamed on the machine, assumed GPUs are told apart,
Jetson refusals always point at JetPack, and a fact shared by several patch releases is said once."""
from __future__ import annotations

import json

import pytest
from resolve_machines import GTX1080TI, RTX3090, T4, intent, machine

from torchenv.cli import main
from torchenv.errors import PlanRefused
from torchenv.resolve.resolver import resolve

NANO = ("NVIDIA Tegra X1 (Jetson Nano)", "5.3")
XAVIER = ("Xavier", "7.2")


def refusal(intent_kwargs, machine_kwargs) -> PlanRefused:
    with pytest.raises(PlanRefused) as info:
        resolve(intent(**intent_kwargs), machine(**machine_kwargs))
    return info.value


@pytest.mark.parametrize("tier,version", [("cu131", None), ("rocm7.3", None), ("cu130", "2.8")])
def test_unknown_tier_is_a_recipe_gap_not_the_machine(tier, version):
    err = refusal(dict(cuda=tier, version=version), dict(driver="580.65.06", gpus=[RTX3090]))
    assert f"torchenv's recipes do not know tier {tier}" in err.message
    assert "runs on this machine" not in err.message
    assert "recipes/releases.toml" in err.hint
    assert any(r.startswith("tiers the recipes know") for r in err.reasons)


def test_unknown_release_says_the_recipes_do_not_know_it():
    err = refusal(dict(version="2.16"), dict(driver="580.65.06", gpus=[RTX3090]))
    assert "torchenv's recipes do not know a torch release matching '==2.16.*'" in err.message
    assert "2.15.0" in err.message and "nothing about the machine" in err.message


def test_two_assumed_gpus_are_named_apart(capsys, tmp_path):
    code = main(["plan", "-C", str(tmp_path), "--json", "--assume-os", "linux", "--assume-arch", "x86_64",
                 "--assume-python", "3.11", "--assume-driver", "575.57.08", "--assume-gpu", "6.1",
                 "--assume-gpu", "12.0"])
    data = json.loads(capsys.readouterr().out)
    assert code == 2
    text = " ".join(data["reasons"])
    assert "assumed GPU 1 (sm_61" in text and "assumed GPU 2 (sm_120" in text
    assert "the assumed GPU" not in text


def test_one_assumed_gpu_keeps_its_plain_name():
    m = machine(driver="575.57.08", gpus=[("assumed GPU (sm_86, like RTX 3090)", "8.6")])
    plan = resolve(intent(), m)
    assert "the assumed GPU (sm_86" in plan.reasons[0]


@pytest.mark.parametrize("gpu,version", [(NANO, "1.10"), (XAVIER, "2.6"), (XAVIER, None), (NANO, "==2.4.1")])
def test_jetson_refusal_always_has_the_jetpack_hint(gpu, version):
    err = refusal(dict(version=version), dict(arch="aarch64", driver="540.4.0", gpus=[gpu]))
    assert "JetPack" in err.hint
    assert any("Jetson" in r and "JetPack" in r for r in err.reasons)


def test_a_reason_shared_by_patch_releases_is_said_once():
    err = refusal(dict(version="2.14", python="3.9"), dict(driver="580.65.06", gpus=[T4]))
    lines = [r for r in err.reasons if "Python 3.9" in r]
    assert lines == ["torch 2.14.0-2.14.1 has no wheels for Python 3.9 (it has 3.10-3.14)"]


def test_skipped_newer_patch_releases_share_one_line():
    plan = resolve(intent(), machine(driver="575.57.08", gpus=[GTX1080TI]))
    assert plan.torch_version == "2.14.1"
    skipped = [r for r in plan.reasons if r.startswith("torch 2.15.0 not chosen")]
    assert len(skipped) == 1 and "cu132 skipped" in skipped[0] and "cu130 skipped" in skipped[0]


def test_cu129_build_says_it_is_not_in_release_md():
    plan = resolve(intent(), machine(driver="570.133.07", gpus=[("NVIDIA GeForce RTX 5090", "12.0")]))
    assert (plan.torch_version, plan.tier) == ("2.13.0", "cu129")
    assert any("not in RELEASE.md" in w for w in plan.warnings)


def test_rocm_builds_of_an_unmodelled_release_are_a_gap_not_absent():
    err = refusal(dict(version="2.15"), dict(rocm=("gfx1030",)))
    assert err.message.startswith("torchenv's recipes do not know the builds of torch ==2.15.*")
    assert "which ROCm builds torch 2.15.0 has" in " ".join(err.reasons)
    assert err.alternatives[0]["tier"] == "rocm7.14"
