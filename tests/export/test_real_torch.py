"""Exports of a real lock (torch 2.13.0+cpu from this machine's wheels) installed by uv and pip.

The torch wheel is found where the user's pip finds it (``find-links`` of the pip config);
without one these tests skip, saying so.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from tests.export.conftest import export, records, uv
from tests.export.test_requirements import pip_install

pytestmark = pytest.mark.integration


def _local_torch_dir() -> Path | None:
    from torchenv.sources.pipconfig import local_dirs, read_pip_config

    for folder in local_dirs(read_pip_config().find_links):
        if any(folder.glob("torch-2.13.0+cpu-cp311-*.whl")):
            return folder
    return None


TORCH_DIR = _local_torch_dir()


@pytest.fixture(scope="module")
def real_project(tmp_path_factory) -> Path:
    if TORCH_DIR is None:
        pytest.skip("no torch-2.13.0+cpu wheel in this machine's pip find-links")
    from torchenv.cli import build_parser
    from torchenv.commands._options import up_options
    from torchenv.install.up import run_up
    from torchenv.ui import Ui

    project = tmp_path_factory.mktemp("real") / "proj"
    project.mkdir()
    (project / "torchenv.toml").write_text('[torch]\nversion = "2.13"\ncuda = "cpu"\npython = "3.11"\n')
    args = build_parser().parse_args(["up", "-C", str(project), "--no-verify"])
    assert run_up(project, up_options(args), Ui(quiet=True)).status == "installed"
    return project


def _site(env: Path) -> Path:
    return env / "lib" / "python3.11" / "site-packages"


def _import_torch(env: Path) -> str:
    done = subprocess.run([str(env / "bin" / "python"), "-c", "import torch; print(torch.__version__)"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_uv_installs_the_real_pylock_byte_identical_to_up(real_project, tmp_path):
    out = tmp_path / "pylock.toml"
    assert export(real_project, "pylock", "-o", str(out), "--wheels", str(TORCH_DIR)) == 0
    env = tmp_path / "fresh"
    assert uv("venv", "--no-config", "--quiet", "--python", sys.executable, str(env)).returncode == 0
    done = uv("pip", "install", "--no-config", "--offline", "--python", str(env / "bin" / "python"),
              "-r", str(out))
    assert done.returncode == 0, done.stderr
    assert records(_site(env)) == records(_site(real_project / ".venv"))
    assert _import_torch(env) == "2.13.0+cpu"


def test_pip_installs_the_real_requirements_with_hashes(real_project, tmp_path):
    from torchenv.lock.io import read_lock

    house = tmp_path / "house"            # the files the lock names, as a wheelhouse for pip
    house.mkdir()
    for wheel in read_lock(real_project / "torchenv.lock").targets[0].wheels:
        url = urlparse(wheel.url)
        src = Path(unquote(url.path)) if url.scheme == "file" else TORCH_DIR / wheel.filename
        shutil.copy(src, house / wheel.filename)
    req = tmp_path / "requirements.txt"
    assert export(real_project, "requirements", "-o", str(req)) == 0
    env = tmp_path / "fresh"
    done = pip_install(env, "--require-hashes", "--no-index", "--find-links", str(house), "-r", str(req))
    assert done.returncode == 0, done.stderr
    assert records(_site(env)) == records(_site(real_project / ".venv"))
    assert _import_torch(env) == "2.13.0+cpu"
