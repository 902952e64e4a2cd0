"""The ``.pyc`` one env's verify wrote are lent (hardlinked) to the next env built from the same wheels.

Why: the first ``import torch`` of a fresh env compiles what it imports (~2.4 s instead of ~1.1 s);
a second env from the same lock holds the very same source files (hardlinks into uv's cache).
"""
from __future__ import annotations

import os
import shutil
import subprocess

import pytest


def _fake_verify(seen: list[dict]):
    """A verify that notes which ``.pyc`` the env had before it ran, then imports (and so compiles) its packages."""
    def verify(python, target, plan, project_dir, ui, *, meanwhile=lambda: None):
        site = next((python.parent.parent / "lib").glob("python3*/site-packages"))
        seen.append({p.relative_to(site).as_posix(): p.stat().st_ino for p in site.glob("torch/__pycache__/*.pyc")})
        meanwhile()
        subprocess.run([str(python), "-c", "import torch, filelock"], check=True,
                       env={k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"})
        return True
    return verify


def _second_project(world):
    other = world.root / "second"
    other.mkdir()
    for name in ("torchenv.toml", "torchenv.lock"):
        shutil.copy(world.project / name, other / name)
    return other


@pytest.mark.parametrize("installer", ["uv"], indirect=True)
def test_a_second_env_from_the_same_lock_gets_the_first_envs_bytecode(world, monkeypatch):
    from torchenv.commands._options import up_options
    from torchenv.flows.up import run_up
    from torchenv.ui import Ui

    seen: list[dict] = []
    monkeypatch.setattr("torchenv.flows.verify_step._verify", _fake_verify(seen))
    first = world.run_up("--verify")
    assert first.verify_ok is True and seen == [{}]           # nothing to lend yet: it compiles
    other = _second_project(world)
    second = run_up(other, up_options(world.args("--frozen", "--verify")), Ui(quiet=True),
                    planner=world.fake_plan)
    assert second.verify_ok is True
    lent = seen[1]
    assert "torch/__pycache__/__init__.cpython-311.pyc" in lent, lent      # there before the import ran
    site = next((other / ".venv/lib").glob("python3*/site-packages"))
    pyc = site / "torch/__pycache__/__init__.cpython-311.pyc"
    assert pyc.stat().st_ino == lent["torch/__pycache__/__init__.cpython-311.pyc"], \
        "Python recompiled the lent file: it did not fit the sources"
    assert pyc.stat().st_nlink >= 2             # one file on disk for every env (and the cache)


@pytest.mark.parametrize("installer", ["uv"], indirect=True)
def test_a_failed_verify_keeps_no_bytecode(world, monkeypatch):
    from torchenv.paths import cache_dir

    def failing(python, target, plan, project_dir, ui, *, meanwhile=lambda: None):
        meanwhile()
        subprocess.run([str(python), "-c", "import torch"], check=True,
                       env={k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"})
        return False

    monkeypatch.setattr("torchenv.flows.verify_step._verify", failing)
    assert world.run_up("--verify").verify_ok is False
    assert not (cache_dir() / "bytecode").exists()


def _site_with_package(root, *, compiled: bool):
    """A site-packages with ``pkg`` (``__init__``, ``mod``) as a wheel installs it, compiled or not."""
    import py_compile

    site = root / "site-packages"
    (site / "pkg").mkdir(parents=True)
    (site / "pkg/__init__.py").write_text("")
    (site / "pkg/mod.py").write_text("X = 1\n")
    info = site / "pkg-1.0.dist-info"
    info.mkdir()
    (info / "RECORD").write_text("pkg/__init__.py,,\npkg/mod.py,,\npkg-1.0.dist-info/RECORD,,\n")
    if compiled:
        for name in ("__init__", "mod"):
            py_compile.compile(str(site / f"pkg/{name}.py"), cfile=str(site / f"pkg/__pycache__/{name}.cpython-311.pyc"))
    return site


def _target(sha: str = "ab" * 32):
    from torchenv.lockfile.model import LockedWheel, LockTarget

    wheel = LockedWheel(name="pkg", version="1.0", filename="pkg-1.0-py3-none-any.whl", url="file:///x", sha256=sha,
                        index="https://pypi.org/simple")
    return LockTarget(name="linux-x86_64-cpu", os="linux", arch="x86_64", tier="cpu", python="3.11",
                      backend="venv", torch="2.4.1", wheels=(wheel,))


def test_lend_never_replaces_a_file_the_env_has(tmp_path):
    from torchenv.verification import bytecode

    assert bytecode.keep(_site_with_package(tmp_path / "a", compiled=True), _target(), "3.11") == 2
    site = _site_with_package(tmp_path / "b", compiled=False)
    (site / "pkg/__pycache__").mkdir()
    own = site / "pkg/__pycache__/mod.cpython-311.pyc"
    own.write_bytes(b"the env's own")
    assert bytecode.lend(site, _target(), "3.11") == 1                 # __init__ only
    assert own.read_bytes() == b"the env's own"


def test_lend_adds_no_folder_where_the_sources_are_not(tmp_path):
    from torchenv.verification import bytecode

    bytecode.keep(_site_with_package(tmp_path / "a", compiled=True), _target(), "3.11")
    site = _site_with_package(tmp_path / "b", compiled=False)
    shutil.rmtree(site / "pkg")
    assert bytecode.lend(site, _target(), "3.11") == 0
    assert not (site / "pkg").exists()


def test_a_wheel_is_kept_once_and_other_wheels_are_not_lent_its_files(tmp_path):
    from torchenv.verification import bytecode

    assert bytecode.keep(_site_with_package(tmp_path / "a", compiled=False), _target(), "3.11") == 0
    assert bytecode.keep(_site_with_package(tmp_path / "b", compiled=True), _target(), "3.11") == 0   # kept (empty)
    other = _site_with_package(tmp_path / "c", compiled=False)
    assert bytecode.keep(_site_with_package(tmp_path / "d", compiled=True), _target("cd" * 32), "3.11") == 2
    assert bytecode.lend(other, _target(), "3.11") == 0       # another sha256: the other wheel's files stay out


def test_bytecode_for_another_copy_of_the_wheel_is_not_lent_and_is_replaced(tmp_path):
    """Another uv cache (or the same wheel found at another path) unpacks it with other mtimes: Python would
    recompile every lent file, so none is lent; that env's own ``.pyc`` replace the kept ones."""
    import py_compile

    from torchenv.verification import bytecode

    def site_at(name: str, mtime: int, compiled: bool):
        site = _site_with_package(tmp_path / name, compiled=False)
        for py in (site / "pkg").glob("*.py"):
            os.utime(py, (mtime, mtime))
        if compiled:
            for py in (site / "pkg").glob("*.py"):
                py_compile.compile(str(py), cfile=str(site / f"pkg/__pycache__/{py.stem}.cpython-311.pyc"))
        return site

    assert bytecode.keep(site_at("a", 1_700_000_000, True), _target(), "3.11") == 2
    assert bytecode.lend(site_at("b", 1_700_000_500, False), _target(), "3.11") == 0
    assert bytecode.keep(site_at("c", 1_700_000_500, True), _target(), "3.11") == 2    # replaced
    fresh = site_at("d", 1_700_000_500, False)
    assert bytecode.lend(fresh, _target(), "3.11") == 2
    assert bytecode.keep(fresh, _target(), "3.11") == 0                                # fits: left alone
