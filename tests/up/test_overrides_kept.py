"""Flags are not forgotten: after ``up --torch X`` worked, a plain ``up`` keeps X (and says so).

The real ``up`` runs (uv and pip) on fake wheels; the plan is fixed by the ``world`` fixture,
which records the intent each plan was made for.
"""
from __future__ import annotations

import shutil

from tests.support.console import unwrapped

from torchenv.flows import noop


def test_a_plain_up_after_flags_is_a_no_op_that_says_it_kept_them(world):
    world.run_up("--torch", "2.4.1")
    assert world.read_lock().overrides["torch"] == "2.4.1"
    fast = noop.check(world.project, world.options())
    assert fast is not None, "a plain up right after a successful up is a no-op"
    result = world.run_up()
    assert result.status == "up-to-date"
    assert result.notes and "kept --torch 2.4.1" in result.notes[0] and "--save" in result.notes[0]


def test_a_plain_up_rebuilding_the_env_keeps_the_flags(world):
    world.run_up("--torch", "2.4.1")
    shutil.rmtree(world.env)
    world.run_up()
    assert world.plan_calls[-1].torch.version == world.plan_calls[0].torch.version != "==2.4.*"
    assert len(world.plan_calls) == 2


def test_editing_torchenv_toml_drops_the_remembered_flags(world):
    world.run_up("--torch", "2.4.1")
    toml = world.project / "torchenv.toml"
    toml.write_text(toml.read_text().replace('python = "3.11"', 'python = "3.11"\npolicy = "strict"'))
    assert noop.check(world.project, world.options()) is None
    world.run_up()
    assert world.plan_calls[-1].torch.version == "==2.4.*", "torchenv.toml changed: the user's edit wins"
    assert world.read_lock().overrides == {}


def test_reset_overrides_plans_from_torchenv_toml_alone(world):
    world.run_up("--torch", "2.4.1")
    world.run_up("--reset-overrides")
    assert world.plan_calls[-1].torch.version == "==2.4.*"
    assert world.read_lock().overrides == {}


def test_save_writes_the_flags_into_torchenv_toml_keeping_comments(world):
    toml = world.project / "torchenv.toml"
    toml.write_text("# our team's settings\n" + toml.read_text().replace('cuda = "cpu"', 'cuda = "cpu"  # no GPU in CI'))
    world.run_up("--torch", "2.4.1", "--save")
    text = toml.read_text()
    assert "# our team's settings" in text and "# no GPU in CI" in text
    assert 'version = "2.4.1"' in text
    assert world.read_lock().overrides == {}, "torchenv.toml holds them now"
    assert noop.check(world.project, world.options()) is not None


def _lock(world, *extra):
    from torchenv.commands._options import lock_options
    from torchenv.flows.lockcmd import run_lock
    from torchenv.ui import Ui

    return run_lock(world.project, lock_options(world.args(*extra, verb="lock")), Ui(quiet=False),
                    planner=world.fake_plan)


def test_a_plain_lock_after_flags_plans_what_a_plain_up_would_and_says_so(world, capsys):
    world.run_up("--torch", "2.4.1")
    capsys.readouterr()
    _lock(world)
    assert world.plan_calls[-1].torch.version == world.plan_calls[0].torch.version != "==2.4.*"
    assert "kept --torch 2.4.1" in unwrapped(capsys.readouterr().out)
    assert world.read_lock().overrides["torch"] == "2.4.1", "the lock still remembers them for the next up"
    assert world.run_up().status == "up-to-date"


def test_lock_reset_overrides_plans_from_torchenv_toml_alone(world):
    world.run_up("--torch", "2.4.1")
    _lock(world, "--reset-overrides")
    assert world.plan_calls[-1].torch.version == "==2.4.*"
    assert world.read_lock().overrides == {}
