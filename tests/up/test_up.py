"""``torchenv up`` with the venv backend, for both engines, on fake wheels (fast)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.support import sha256_of

from torchenv import safety
from torchenv.backends import state as st
from torchenv.backends.venv import VenvBackend
from torchenv.errors import EnvError, IntentError, LockError


def test_up_creates_env_and_lock_with_torch_from_torch_index(world):
    result = world.run_up()
    assert result.status == "installed"
    assert "torch-2.4.1+cpu.dist-info" in world.dists()
    assert any(d.startswith("filelock-3.1.0") for d in world.dists())
    lock = world.read_lock()
    target = lock.target("linux-x86_64-cpu")
    torch = target.wheel("torch")
    assert torch.version == "2.4.1+cpu"
    assert torch.url == "https://download.pytorch.org/whl/cpu/torch-2.4.1%2Bcpu-cp311-cp311-linux_x86_64.whl"
    assert torch.sha256 == sha256_of(world.root / "torchidx" / "files" / torch.filename)
    assert torch.source == "torch-index"
    assert target.wheel("filelock").source == "pypi"
    assert (world.env / ".torchenv" / "state.json").is_file()
    assert not (world.env / ".torchenv" / "in-progress").exists()


def test_second_up_is_a_noop_without_planning(world):
    world.run_up()
    calls = len(world.plan_calls)
    result = world.run_up()
    assert result.status == "up-to-date"
    assert len(world.plan_calls) == calls, "the no-op path must not probe or resolve"


def test_up_rebuilds_identical_env_from_lock_after_env_deleted(world):
    import shutil

    world.run_up()
    before = (world.project / "torchenv.lock").read_text()
    dists = world.dists()
    shutil.rmtree(world.env)
    result = world.run_up("--frozen")
    assert result.status == "installed"
    assert world.dists() == dists
    assert (world.project / "torchenv.lock").read_text() == before


def test_existing_env_not_made_by_torchenv_is_left_alone(world):
    _foreign_venv(world.env)
    keep = world.env / "my-notes.txt"
    with pytest.raises(EnvError) as exc:
        world.run_up()
    assert str(world.env) in exc.value.message and "--force" in exc.value.hint
    assert keep.read_text() == "mine"
    assert not (world.project / "torchenv.lock").exists(), "no lock before a successful install"


def _foreign_venv(env):
    """A Python environment torchenv did not make (``python -m venv`` by hand, say)."""
    env.mkdir()
    (env / "pyvenv.cfg").write_text("home = /usr/bin\nversion = 3.11.9\n")
    (env / "my-notes.txt").write_text("mine")


def test_force_replaces_a_python_env_torchenv_did_not_make(world):
    _foreign_venv(world.env)
    result = world.run_up("--force")
    assert result.status == "rebuilt"
    assert not (world.env / "my-notes.txt").exists()
    assert safety.claim(world.env, world.project).kind == safety.OURS


def test_force_never_replaces_a_folder_that_is_not_an_env(world):
    world.env.mkdir()
    (world.env / "my-notes.txt").write_text("mine")
    with pytest.raises(safety.EnvRefused) as exc:
        world.run_up("--force")
    assert "not a Python environment" in exc.value.message
    assert (world.env / "my-notes.txt").read_text() == "mine"


def test_failed_rebuild_puts_the_old_folder_back(world, monkeypatch):
    _foreign_venv(world.env)

    def broken_create(self):
        raise EnvError("simulated: interpreter missing")

    monkeypatch.setattr("torchenv.backends.venv.VenvBackend.create", broken_create)
    with pytest.raises(EnvError):
        world.run_up("--force")
    assert (world.env / "my-notes.txt").read_text() == "mine"
    assert not list(world.project.glob(".venv.torchenv-old-*"))


def test_failed_first_create_leaves_nothing_the_next_up_would_refuse(world, monkeypatch):
    real_create = VenvBackend.create

    def half_create(self):
        self.env_path.mkdir(exist_ok=True)   # torchenv made it (with its marker) first
        (self.env_path / "pyvenv.cfg").write_text("version = 3.11.0\n")   # uv writes this first
        raise KeyboardInterrupt

    monkeypatch.setattr(VenvBackend, "create", half_create)
    with pytest.raises(KeyboardInterrupt):
        world.run_up()
    assert not world.env.exists() and not list(world.project.glob(".venv*"))
    monkeypatch.setattr(VenvBackend, "create", real_create)
    assert world.run_up().status == "installed"


def test_interrupted_install_is_repaired(world):
    world.run_up()
    # simulate a crash mid-install: marker present, a package half gone
    st.begin_install(world.env, "linux-x86_64-cpu")
    filelock_pkg = world.site() / "filelock" / "__init__.py"
    filelock_pkg.unlink()
    result = world.run_up()
    assert result.status == "repaired"
    assert filelock_pkg.is_file()
    assert not st.in_progress(world.env)
    assert world.run_up().status == "up-to-date"


def test_package_changed_by_hand_is_restored(world):
    from torchenv.engines.uv import uv_bin, uv_environ

    world.run_up()
    by_hand = world.root / "pypi" / "files" / "filelock-3.0.0-py3-none-any.whl"
    subprocess.run([uv_bin(), "pip", "install", "-q", "--no-deps", "--python", str(world.env / "bin" / "python"),
                    str(by_hand)], check=True, env=uv_environ())
    assert any(d.startswith("filelock-3.0.0") for d in world.dists())
    result = world.run_up()
    assert result.status == "repaired"
    assert any(d.startswith("filelock-3.1.0") for d in world.dists())
    assert not any(d.startswith("filelock-3.0.0") for d in world.dists())
    assert world.run_up().status == "up-to-date"


def test_requirement_contradicting_the_plan_names_both_files(world):
    (world.project / "requirements.txt").write_text("six\ntorch==1.13\n")
    with pytest.raises(IntentError) as exc:
        world.run_up()
    text = str(exc.value)
    assert "requirements.txt:2" in text and "torchenv.toml" in text and "2.4.1+cpu" in text


def test_project_requirements_are_installed_and_locked(world):
    (world.project / "requirements.txt").write_text("six==1.16.0  # ok\ntorch>=2\n")
    world.run_up()
    assert world.read_lock().target("linux-x86_64-cpu").wheel("six").version == "1.16.0"
    assert any(d.startswith("six-1.16.0") for d in world.dists())


def test_lock_without_this_machines_target_is_refused(world):
    world.run_up()
    from dataclasses import replace

    from torchenv.lockfile.io import write_lock

    lock = world.read_lock()
    only_other = replace(lock, targets=tuple(replace(t, name="windows-x86_64-cpu", os="windows")
                                             for t in lock.targets))
    write_lock(world.project / "torchenv.lock", only_other)
    import shutil

    shutil.rmtree(world.env)
    with pytest.raises(LockError) as exc:
        world.run_up()
    assert str(exc.value.message).endswith("has targets windows-x86_64-cpu; none matches this machine "
                                           "(linux-x86_64-cpu)")
    assert exc.value.hint == "add it with `torchenv lock --target linux-x86_64-cpu`"


def test_intent_change_relocks_and_reports_the_difference(world):
    world.run_up()
    (world.project / "requirements.txt").write_text("filelock==3.0.0\nsix\n")
    result = world.run_up()
    assert result.status == "synced"
    assert "  filelock 3.1.0 -> 3.0.0" in result.changes
    assert "+ six 1.16.0" in result.changes
    assert any(d.startswith("filelock-3.0.0") for d in world.dists())


def test_frozen_refuses_a_stale_lock(world):
    world.run_up()
    (world.project / "requirements.txt").write_text("six\n")
    with pytest.raises(LockError) as exc:
        world.run_up("--frozen")
    assert "out of date" in exc.value.message


def test_lock_made_with_one_mirror_installs_from_another(world, tmp_path):
    """The lock records canonical URLs; the files come from whichever source this plan has."""
    import shutil

    from tests.support import serve_dir

    world.run_up()
    lock_text = (world.project / "torchenv.lock").read_text()
    shutil.rmtree(world.env)
    mirror = tmp_path / "mirror"
    shutil.copytree(world.root / "torchidx", mirror)
    shutil.rmtree(world.root / "torchidx")          # the first source is gone
    with serve_dir(mirror) as base:
        world.torch_source_url = base + "/simple"
        result = world.run_up("--frozen")
        assert any("torch-2.4.1" in h for h in base.hits)
    assert result.status == "installed"
    assert (world.project / "torchenv.lock").read_text() == lock_text


def test_two_up_runs_end_with_one_good_env(world):
    """A second `up` started while the first holds the project lock waits, then finds nothing to do."""
    script = (
        "import tests.support.world as c;"
        "from torchenv.flows import up; from torchenv.commands import build_parser; from torchenv.ui import Ui;"
        "from pathlib import Path; from torchenv.machine import Machine;"
        f"w = c.World(root=Path({str(world.root)!r}), project=Path({str(world.project)!r}), installer={world.installer!r}, "
        f"torch_index={world.torch_index!r}, pypi_index={world.pypi_index!r});"
        "from torchenv.commands._options import up_options;"
        "r = up.run_up(w.project, up_options(w.args()), Ui(quiet=True), planner=lambda request: w.plan(request.intent));"
        "print(r.status)"
    )
    repo = Path(__file__).parents[2]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(repo), str(repo / "src")])}
    procs = [subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env=env) for _ in range(2)]
    outs = [p.communicate(timeout=300) for p in procs]
    statuses = sorted(o[0].strip().splitlines()[-1] for o in outs)
    assert statuses == ["installed", "up-to-date"], outs
    assert world.run_up().status == "up-to-date"


def test_lock_keeps_the_intent_and_requirements_hashes_apart(world):
    from torchenv.intent.load import load_project_intent
    from torchenv.intent.project_requirements import gather, requirements_digest

    (world.project / "requirements.txt").write_text("six\n")
    world.run_up()
    intent = load_project_intent(world.project)
    first = world.read_lock()
    assert first.intent_hash == intent.hash()
    assert first.requirements_hash == requirements_digest(gather(intent, world.project)[0])
    (world.project / "requirements.txt").write_text("six\nfilelock\n")
    world.run_up()      # filelock is already locked (torch needs it): same files, new requirements-hash
    second = world.read_lock()
    assert second.intent_hash == first.intent_hash and second.requirements_hash != first.requirements_hash
    assert world.run_up().status == "up-to-date"
