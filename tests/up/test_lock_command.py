"""``torchenv lock``: this machine's target, and targets for other machines, without installing."""
from __future__ import annotations

import pytest

from torchenv.errors import IntentError
from torchenv.flows.lockcmd import assumed_machine, parse_target


def _run_lock(world, *extra):
    from torchenv.commands._options import lock_options
    from torchenv.flows.lockcmd import run_lock
    from torchenv.ui import Ui

    return run_lock(world.project, lock_options(world.args(*extra, verb="lock")), Ui(quiet=True),
                    planner=world.fake_plan)


@pytest.fixture
def cross(world):
    """The planner handed to ``lock``, which for an assumed machine answers the same fake plan, for the
    target's platform and tier (nothing patched: ``--target`` must ask the planner it is handed)."""
    from torchenv.machine import Machine

    seen = []

    def planner(request):
        machine = request.machine
        if not (isinstance(machine, Machine) and machine.assumed):
            return world.plan(request.intent, torch_url=world.torch_source_url or None)
        seen.append((request.intent.torch.cuda, machine))
        tier = request.intent.torch.cuda
        return world.plan(request.intent, tier=tier, platform=f"{machine.os}-{machine.arch}", version=f"2.4.1+{tier}")

    world.planner = planner
    world.seen = seen
    return world


def test_lock_writes_this_machines_target_without_installing(world):
    assert _run_lock(world) == ["linux-x86_64-cpu"]
    assert world.read_lock().target("linux-x86_64-cpu").wheel("torch").version == "2.4.1+cpu"
    assert not world.env.exists()


def test_lock_target_adds_another_platform_and_keeps_the_first(cross):
    _run_lock(cross)
    _run_lock(cross, "--target", "windows-x86_64-cpu")
    lock = cross.read_lock()
    assert [t.name for t in lock.targets] == ["linux-x86_64-cpu", "windows-x86_64-cpu"]
    win = lock.target("windows-x86_64-cpu")
    assert win.wheel("torch").filename == "torch-2.4.1+cpu-cp311-cp311-win_amd64.whl"
    assert win.wheel("filelock") is not None
    assert lock.machine.get("assumed") is None, "the real machine's facts stay in [machine]"
    tier, machine = cross.seen[-1]
    assert tier == "cpu" and machine.os == "windows" and machine.assumed and not machine.gpus


def test_lock_target_asks_the_planner_it_is_handed(cross):
    """``lock --target`` and ``torchenv plan --assume-*`` give one answer: both ask the one planner (before,
    ``--target`` called the bare resolver, and the index check and any planner handed in were left out)."""
    _run_lock(cross, "--target", "windows-x86_64-cpu")
    assert len(cross.seen) == 1 and len(cross.plan_calls) == 1, cross.plan_calls
    tier, machine = cross.seen[0]
    assert (tier, machine.os, machine.arch, machine.assumed) == ("cpu", "windows", "x86_64", True)
    assert cross.read_lock().target("windows-x86_64-cpu") is not None


def test_lock_target_for_a_cuda_tier_assumes_a_gpu_and_driver_that_run_it(cross):
    _run_lock(cross, "--target", "linux-x86_64-cu121")
    tier, machine = cross.seen[-1]
    assert tier == "cu121"
    assert machine.driver and machine.gpus[0].compute_capability == "9.0"
    assert cross.read_lock().target("linux-x86_64-cu121").wheel("torch").version == "2.4.1+cu121"


@pytest.mark.parametrize("bad, words", [
    ("linux-x86_64", "not a lock target name"),
    ("beos-x86_64-cpu", "unknown OS"),
    ("linux-ppc64-cpu", "unknown architecture"),
    ("linux-x86_64-cuda", "does not say which CUDA version"),
])
def test_bad_target_names_are_explained(bad, words):
    with pytest.raises(IntentError) as exc:
        parse_target(bad)
    assert words in exc.value.message and exc.value.hint


def test_target_names_accept_the_usual_spellings():
    assert parse_target("linux-x86_64-12.1").name == "linux-x86_64-cu121"
    assert parse_target("macos-arm64-cpu").name == "macos-arm64-cpu"
    assert assumed_machine(parse_target("macos-arm64-cpu"), ["3.11"]).python_versions() == ["3.11"]
