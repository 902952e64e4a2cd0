"""Exports of a real lock (torch 2.13.0+cpu from this machine's wheels) installed by uv and pip.

The torch wheel is found where the user's pip finds it (the pip config's find-links and file:// indexes);
without one these tests fail in CI and skip elsewhere, saying so.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tests.export.conftest import export, records, uv
from tests.export.test_requirements import pip_install
from tests.support.assets import cpu_torch_wheel, shared_uv_cache

pytestmark = pytest.mark.integration


TORCH_DIR: Path = Path()     # the folder holding the real torch wheel; set by ``real_project``


@pytest.fixture(autouse=True)
def _shared_uv_cache(monkeypatch):
    """The exports' installs link from the real-torch tests' one uv cache (tests/support/assets.py)."""
    monkeypatch.setenv("UV_CACHE_DIR", str(shared_uv_cache()))


@pytest.fixture(scope="session")
def real_project(tmp_path_factory) -> Path:
    """A project after a real ``up`` of torch 2.13.0+cpu: made once per run, however many workers ask
    (``build_once``); the tests only read it and its env."""
    global TORCH_DIR
    TORCH_DIR = cpu_torch_wheel().parent      # fails in CI, skips elsewhere, when the pip config lacks it
    from tests.support.installed import build_once

    return build_once(tmp_path_factory, "export-real", _up_real_project) / "proj"


def _up_real_project(root: Path) -> None:
    from torchenv.commands import build_parser
    from torchenv.commands._options import up_options
    from torchenv.flows.up import run_up
    from torchenv.ui import Ui

    project = root / "proj"
    project.mkdir(parents=True)
    (project / "torchenv.toml").write_text('[torch]\nversion = "2.13"\ncuda = "cpu"\npython = "3.11"\n')
    args = build_parser().parse_args(["up", "-C", str(project), "--no-verify"])
    with pytest.MonkeyPatch.context() as mp:   # set up before any test's own home: give it one of its own
        mp.setenv("TORCHENV_HOME", str(root / "torchenv-home"))
        mp.setenv("UV_CACHE_DIR", str(shared_uv_cache()))
        assert run_up(project, up_options(args), Ui(quiet=True)).status == "installed"
    _wheelhouse(project, root / "house")


@pytest.fixture(scope="session")
def house(real_project) -> Path:
    """The lock's files as one wheelhouse, shared read-only by both installs (pip and uv only read it)."""
    return real_project.parent / "house"


def _site(env: Path) -> Path:
    return env / "lib" / "python3.11" / "site-packages"


def _import_torch(env: Path) -> str:
    done = subprocess.run([str(env / "bin" / "python"), "-c", "import torch; print(torch.__version__)"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _wheelhouse(project: Path, house: Path) -> Path:
    """Every file the lock names, hash-checked, in one folder: the local torch wheel, the rest from their URLs.

    Why fetch rather than copy from the pip config's folders: the PyPI side resolves to whatever PyPI
    serves today, which a local folder need not hold; the lock's URL and sha256 always find it. Fetched
    through the home ``up`` filled (``real_project``), so the PyPI files come from its cache, not the network;
    hard-linked, not copied (the torch wheel is hundreds of MB; nothing writes to the house).
    """
    from torchenv.lockfile.io import read_lock
    from torchenv.sources.fetch import fetch

    house.mkdir()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TORCHENV_HOME", str(project.parent / "torchenv-home"))
        for wheel in read_lock(project / "torchenv.lock").targets[0].wheels:
            local = TORCH_DIR / wheel.filename
            found = fetch(wheel.filename, wheel.sha256, [str(local)] if local.is_file() else [wheel.url])
            _link_or_copy(found, house / wheel.filename)
    return house


def _link_or_copy(found: Path, dest: Path) -> None:
    try:
        os.link(found, dest)
    except OSError:      # another filesystem (the pip config's folder elsewhere)
        shutil.copy(found, dest)


def test_uv_installs_the_real_pylock_byte_identical_to_up(real_project, house, tmp_path):
    out = tmp_path / "pylock.toml"
    assert export(real_project, "pylock", "-o", str(out), "--wheels", str(house)) == 0
    env = tmp_path / "fresh"
    assert uv("venv", "--no-config", "--quiet", "--python", sys.executable, str(env)).returncode == 0
    done = uv("pip", "install", "--no-config", "--offline", "--python", str(env / "bin" / "python"),
              "-r", str(out))
    assert done.returncode == 0, done.stderr
    assert records(_site(env)) == records(_site(real_project / ".venv"))
    assert _import_torch(env) == "2.13.0+cpu"


def test_pip_installs_the_real_requirements_with_hashes(real_project, house, tmp_path):
    req = tmp_path / "requirements.txt"
    assert export(real_project, "requirements", "-o", str(req)) == 0
    env = tmp_path / "fresh"
    # --no-compile: what is under test is the export pip reads, not pip's byte-code (``records`` leaves it out)
    done = pip_install(env, "--no-compile", "--require-hashes", "--no-index", "--find-links", str(house),
                       "-r", str(req))
    assert done.returncode == 0, done.stderr
    assert records(_site(env)) == records(_site(real_project / ".venv"))
    assert _import_torch(env) == "2.13.0+cpu"
