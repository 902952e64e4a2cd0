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


def _conflicted(text: str) -> str:
    lines = text.splitlines(keepends=True)
    return "".join(lines[:2] + ["<<<<<<< HEAD\n", *lines[2:4], "=======\n", *lines[2:4], ">>>>>>> feature\n",
                                *lines[4:]])


def _deep(text: str) -> str:
    return text + "deep = " + "[" * 5000 + "]" * 5000 + "\n"


HOSTILE = [pytest.param("torchenv.lock", _conflicted, ["torchenv.lock:3", "merge conflict", "torchenv lock"],
                        id="lock-conflict"),
           pytest.param("torchenv.toml", _conflicted, ["torchenv.toml:3", "merge conflict", "markers"],
                        id="toml-conflict"),
           pytest.param("torchenv.lock", _deep, ["torchenv.lock", "nested too deeply", "recursion limit"],
                        id="lock-deep"),
           pytest.param("torchenv.toml", _deep, ["torchenv.toml", "nested too deeply", "recursion limit"],
                        id="toml-deep"),
           pytest.param("torchenv.lock", None, ["torchenv.lock", "larger than 16 MiB"], id="lock-huge-sparse"),
           pytest.param("torchenv.toml", None, ["torchenv.toml", "larger than 16 MiB"], id="toml-huge-sparse")]


@pytest.mark.parametrize("name,damage,expect", HOSTILE)
@pytest.mark.fault("{name}: merge conflict / 5000 nested [ / a 17 MiB sparse file", where="`export requirements` "
                   "(reads the lock) and `up` (reads both)",
                   expect="exit non-zero naming the file (line), the limit or the conflict, and how to fix it")
def test_hostile_toml_and_lock_are_named_bad_input(guard, name, damage, expect, observed):
    world = guard.world
    target = world.project / name
    if damage is None:
        with open(target, "r+b") as fh:
            fh.truncate(17 * 2**20)        # sparse: nothing is allocated, the size is what matters
    else:
        target.write_text(damage(target.read_text()))
    guard.accept_user_edits()
    r = (world.cli("export", "requirements", "-C", str(world.project)) if name == "torchenv.lock"
         else world.up())
    assert r.rc != 0, r.text
    flat = " ".join(r.err.split())
    assert "Traceback" not in r.text and "unexpected" not in flat, flat
    for fragment in expect:
        assert fragment in flat, f"{fragment!r} missing from: {flat}"
    guard.check(observed)
    observed(flat[:180])
