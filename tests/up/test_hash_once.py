"""A cold ``up`` reads each local PyPI-side wheel's bytes for its hash once (by the resolver), not twice."""
from __future__ import annotations

import pytest


@pytest.mark.parametrize("installer", ["uv"], indirect=True)
def test_local_files_the_resolver_hashed_are_not_hashed_again(world, monkeypatch):
    from torchenv.sources import fetch

    hashed: list[str] = []
    real = fetch.sha256_file
    monkeypatch.setattr(fetch, "sha256_file", lambda path: (hashed.append(path.name), real(path))[1])
    world.run_up()
    lock = world.read_lock().targets[0]
    assert {w.name for w in lock.wheels} >= {"torch", "filelock"}
    assert not [name for name in hashed if name.startswith("filelock")], hashed
    other = world.project.parent / "again"      # a later run with the same lock and cache: still no re-hash
    other.mkdir()
    for name in ("torchenv.toml", "torchenv.lock"):
        (other / name).write_text((world.project / name).read_text())
    from torchenv.commands._options import up_options
    from torchenv.flows.up import run_up
    from torchenv.ui import Ui

    run_up(other, up_options(world.args("--frozen")), Ui(quiet=True), planner=world.fake_plan)
    assert not [name for name in hashed if name.startswith("filelock")], hashed


@pytest.mark.parametrize("installer", ["uv"], indirect=True)
def test_a_local_file_changed_after_resolving_is_hashed_again(world, monkeypatch):
    from torchenv.backends.venv import VenvBackend

    real = VenvBackend.lock_target

    def touch_after(self, **kw):
        target = real(self, **kw)
        from torchenv.sources.index import local_path

        for w in target.wheels:
            path = local_path(w.url) if w.url.startswith("file:") else None
            if path is not None and w.name == "filelock":
                path.write_bytes(path.read_bytes() + b"\0")   # same name, other bytes
        return target

    monkeypatch.setattr(VenvBackend, "lock_target", touch_after)
    from torchenv.errors import TorchenvError

    with pytest.raises(TorchenvError):
        world.run_up()
    assert not (world.project / ".venv").exists()
