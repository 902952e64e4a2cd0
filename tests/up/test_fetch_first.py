"""Every file of the target is fetched and hash-checked before ``up`` creates or changes the env.

Why users care: a dead mirror halfway through must not leave a half-made ``.venv`` with an
in-progress marker, nor a working env broken.
"""
from __future__ import annotations

import shutil

import pytest

from torchenv.errors import SourceError


def _snapshot(root):
    return {str(p.relative_to(root)): (p.stat().st_size, p.read_bytes()) for p in sorted(root.rglob("*"))
            if p.is_file()}


def _clear_artifact_cache():
    from torchenv import paths

    shutil.rmtree(paths.wheel_cache(), ignore_errors=True)


def test_failing_source_on_a_fresh_up_leaves_no_env_and_no_lock(world):
    world.run_up()
    lock = (world.project / "torchenv.lock").read_bytes()
    shutil.rmtree(world.env)
    _clear_artifact_cache()
    (world.root / "pypi" / "files" / "filelock-3.1.0-py3-none-any.whl").unlink()   # the source lost a file
    with pytest.raises(SourceError) as exc:
        world.run_up("--frozen")
    assert "filelock-3.1.0-py3-none-any.whl" in exc.value.message
    assert not world.env.exists(), "no env (and so no in-progress marker) may be left behind"
    assert not list(world.project.glob(".venv*"))
    assert (world.project / "torchenv.lock").read_bytes() == lock


def test_failing_source_while_syncing_leaves_the_existing_env_byte_identical(world, monkeypatch):
    world.run_up()
    before = _snapshot(world.env)
    lock = (world.project / "torchenv.lock").read_bytes()
    (world.project / "requirements.txt").write_text("six\n")     # re-lock, then sync: a new file to fetch

    from torchenv.sources import getfile

    real = getfile.wheel_file

    def six_is_unreachable(sources, wheel, **kw):
        if wheel.name == "six":
            raise SourceError("could not get six-1.16.0-py3-none-any.whl from any source (mirror: timed out)")
        return real(sources, wheel, **kw)

    monkeypatch.setattr(getfile, "wheel_file", six_is_unreachable)
    with pytest.raises(SourceError, match="six"):
        world.run_up()
    assert _snapshot(world.env) == before
    assert not (world.env / ".torchenv" / "in-progress").exists()
    assert (world.project / "torchenv.lock").read_bytes() == lock, "the lock is written only after a good install"


def test_the_files_of_a_target_are_fetched_at_the_same_time(world, monkeypatch):
    import threading

    world.run_up()
    lock = world.project / "torchenv.lock"
    shutil.rmtree(world.env)
    _clear_artifact_cache()
    from torchenv.sources import getfile

    real, inside, peak, lock_ = getfile.wheel_file, [0], [0], threading.Lock()
    both_in = threading.Event()

    def counting(sources, wheel, **kw):
        with lock_:
            inside[0] += 1
            peak[0] = max(peak[0], inside[0])
            if inside[0] > 1:
                both_in.set()
        both_in.wait(timeout=5)          # a sequential fetch never gets company
        try:
            return real(sources, wheel, **kw)
        finally:
            with lock_:
                inside[0] -= 1

    monkeypatch.setattr(getfile, "wheel_file", counting)
    world.run_up("--frozen")
    assert peak[0] >= 2 and lock.exists()


def test_a_new_venv_is_created_while_the_files_are_fetched(world, monkeypatch):
    import threading

    from torchenv.backends.venv import VenvBackend
    from torchenv.sources import getfile

    creating = threading.Event()
    real_create, real_file = VenvBackend.create, getfile.wheel_file
    overlapped: list[bool] = []

    def create(self):
        creating.set()
        return real_create(self)

    def wheel_file(sources, wheel, **kw):
        overlapped.append(creating.wait(timeout=10))    # one after the other, no create has begun yet
        return real_file(sources, wheel, **kw)

    monkeypatch.setattr(VenvBackend, "create", create)
    monkeypatch.setattr(getfile, "wheel_file", wheel_file)
    world.run_up()
    assert overlapped and all(overlapped)
    assert world.read_lock().targets[0].wheel("torch") is not None and world.env.exists()
