"""A small fake world for ``up``/``lock`` tests: a torch index, a PyPI-side index, a project (tests/support/world.py).

Fake wheels keep these tests fast: the real torch runs only in ``test_integration.py``. The resolver is
handed the world's planner (``World.fake_plan``), so the tests pin down what ``up`` does with a plan, not what the resolver decides.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.world import TORCH_TAG, World, file_world

from torchenv.intent.load import load_project_intent

__all__ = ["TORCH_TAG", "World", "installer", "intent_of", "world"]


@pytest.fixture(params=["uv", "pip"])
def installer(request) -> str:
    return request.param


@pytest.fixture
def world(tmp_path, installer, monkeypatch) -> World:
    import functools

    import torchenv.flows.lockcmd as lockcmd
    import torchenv.flows.up as up

    w = file_world(tmp_path, installer)
    # the CLI (``main([...])`` in-process) calls these two; they are handed the world's planner
    monkeypatch.setattr(up, "run_up", functools.partial(up.run_up, planner=w.fake_plan))
    monkeypatch.setattr(lockcmd, "run_lock", functools.partial(lockcmd.run_lock, planner=w.fake_plan))
    monkeypatch.setenv("UV_CACHE_DIR", str(tmp_path / "uv-cache"))
    return w


def intent_of(project: Path):
    return load_project_intent(project)
