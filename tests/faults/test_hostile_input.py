"""Hostile input files: slips and tampering a careless or unlucky user brings, through the real CLI.

Each case exits non-zero with a message naming the file (and line) and what to do, without a
traceback, and leaves the project's lock, intent and env as they were.
"""
from __future__ import annotations

import pytest

OVERWRITES = [pytest.param("requirements", "torchenv.lock", [], id="requirements-over-lock"),
              pytest.param("uv", "torchenv.lock", ["--force"], id="uv-over-lock-force"),
              pytest.param("requirements", "torchenv.toml", ["--force"], id="requirements-over-toml-force"),
              pytest.param("requirements", "pylock.toml", [], id="requirements-over-pylock")]


@pytest.mark.parametrize("kind,target,extra", OVERWRITES)
@pytest.mark.fault("`export {kind} -o {target}` {extra}", where="a project with a lock (and a pylock.toml export)",
                   expect="exit 1 naming the file; the lock, intent and the other export untouched")
def test_export_never_writes_over_the_lock_intent_or_another_kind(guard, kind, target, extra, observed):
    world = guard.world
    made = world.cli("export", "pylock", "-C", str(world.project), "-o", str(world.project / "pylock.toml"))
    assert made.rc == 0, made.text
    guard.accept_user_edits()
    r = world.cli("export", kind, "-C", str(world.project), "-o", str(world.project / target), *extra)
    assert r.rc != 0, r.text
    flat = " ".join(r.err.split())
    assert target in flat and "Traceback" not in r.text, flat
    assert "-o FILE" in flat, flat
    guard.check(observed)
    observed(flat[:160])
