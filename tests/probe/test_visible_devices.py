"""CUDA_VISIBLE_DEVICES decides which GPUs the plan must serve."""
from __future__ import annotations

import pytest
from probe_fakes import Recorded, smi_key, smi_out


@pytest.fixture
def four_a100(tree):
    tree.exe("/usr/bin/nvidia-smi")
    return Recorded({smi_key(): (0, smi_out("535-a100x4.out"))})


@pytest.fixture
def mixed(tree):
    tree.exe("/usr/bin/nvidia-smi")
    return Recorded({smi_key(): (0, smi_out("535-mixed-1080ti-3090.out"))})


@pytest.mark.parametrize("value, indices, hidden", [
    ("1", [1], 3),
    ("3,1", [3, 1], 2),                       # CUDA's order is the list's order
    ("0,7,1", [0], 3),                        # an invalid entry ends the list
    ("", [], 4),
    ("-1", [], 4),
    ("GPU-a2b7", [1], 3),                     # unique UUID prefix
    ("GPU-0f1e2d3c-4b5a-4968-8776-655443322110", [3], 3),
])
def test_visible_devices_variants(probe, four_a100, value, indices, hidden):
    m = probe(run=four_a100, env={"CUDA_VISIBLE_DEVICES": value})
    assert [g.index for g in m.gpus] == indices
    assert m.nvidia.hidden_by_cuda_visible_devices == hidden
    assert m.cuda_visible_devices == value


def test_unset_shows_all(probe, four_a100):
    m = probe(run=four_a100)
    assert len(m.gpus) == 4 and m.nvidia.hidden_by_cuda_visible_devices == 0 and m.cuda_visible_devices is None


def test_hiding_all_gpus_is_explained(probe, four_a100):
    m = probe(run=four_a100, env={"CUDA_VISIBLE_DEVICES": ""})
    assert any("hides all 4 GPU(s)" in f for f in m.findings)


def test_hiding_the_old_gpu_means_only_the_new_one_is_planned_for(probe, mixed):
    m = probe(run=mixed, env={"CUDA_VISIBLE_DEVICES": "1"})
    assert [g.compute_capability for g in m.gpus] == ["8.6"]
    assert any("hides 1 of 2 GPUs (0: NVIDIA GeForce GTX 1080 Ti)" in f for f in m.findings)


def test_mig_instances_keep_the_gpus_and_say_why(probe, four_a100):
    m = probe(run=four_a100, env={"CUDA_VISIBLE_DEVICES": "MIG-5c3f1e6a-0b9d-5e55-9a8e-1c2d3e4f5a6b"})
    assert len(m.gpus) == 4 and m.nvidia.hidden_by_cuda_visible_devices == 0
    assert any("MIG instances" in f for f in m.findings)


def test_invalid_entry_is_named(probe, four_a100):
    m = probe(run=four_a100, env={"CUDA_VISIBLE_DEVICES": "0,7,1"})
    assert any("entry '7' names no GPU" in f for f in m.findings)
