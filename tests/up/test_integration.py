"""``torchenv up`` with the real torch wheels this machine's pip configuration points at (slow).

    python -m pytest tests/up/test_integration.py -m integration -q
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tests.support.assets import cpu_torch_wheel, find_wheel, index_holding, need, shared_uv_cache
from tests.support.network import pypi_reachable

CPU_SHA = "6746dbcbeb526eb61330b76b41ff1b4eb848951103a892eeb080dfa2b264667b"

pytestmark = pytest.mark.integration


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("UV_CACHE_DIR", str(shared_uv_cache()))   # envs link from one cache (as users' would)
    proj = tmp_path / "proj"
    proj.mkdir()
    return proj


def _up(project: Path, *flags: str):
    from torchenv.commands import build_parser
    from torchenv.commands._options import up_options
    from torchenv.flows.up import run_up
    from torchenv.ui import Ui

    args = build_parser().parse_args(["up", "-C", str(project), *flags])
    return run_up(project, up_options(args), Ui(quiet=True))


def _dists(env: Path) -> list[str]:
    return sorted(p.name for p in (env / "lib" / "python3.11" / "site-packages").glob("*.dist-info"))


@pytest.mark.timeout(1200)
@pytest.mark.parametrize("installer", ["uv", "pip"])
def test_cpu_torch_end_to_end(project, installer):
    cpu_torch_wheel()
    (project / "torchenv.toml").write_text(
        f'[torch]\nversion = "2.13"\ncuda = "cpu"\npython = "3.11"\n\n[env]\ninstaller = "{installer}"\n')
    first = _up(project)
    assert first.status == "installed"
    assert first.verify_ok is True
    report = json.loads((project / ".torchenv" / "verify.json").read_text())
    assert report["ok"] and report["facts"]["torch"] == "2.13.0+cpu"

    from torchenv.lockfile.io import read_lock

    lock_text = (project / "torchenv.lock").read_text()
    target = read_lock(project / "torchenv.lock").target("linux-x86_64-cpu")
    torch = target.wheel("torch")
    assert torch.sha256 == CPU_SHA
    assert torch.url == ("https://download.pytorch.org/whl/cpu/"
                         "torch-2.13.0%2Bcpu-cp311-cp311-manylinux_2_28_x86_64.whl")

    assert _up(project).status == "up-to-date"

    env = project / ".venv"
    dists = _dists(env)
    shutil.rmtree(env)
    again = _up(project, "--frozen", "--no-verify")
    assert again.status == "installed"
    assert _dists(env) == dists
    assert (project / "torchenv.lock").read_text() == lock_text


@pytest.mark.network
@pytest.mark.timeout(1800)
def test_cuda_torch_from_pypi_side_reports_cuda_build_without_device(project):
    need(pypi_reachable(), "PyPI (cuda-bindings>=13.0.3 for torch 2.14.1 exists only there)")
    need(index_holding("torch", "2.14.1"), "a local simple index (pip's extra-index-url) holding torch 2.14.1")
    need(find_wheel("torchvision", "0.29.1"), "the torchvision 0.29.1 cp311 Linux x86_64 wheel")
    (project / "torchenv.toml").write_text(
        '[torch]\nversion = "2.14"\ncuda = "13.0"\npython = "3.11"\nwith = ["torchvision"]\n')
    result = _up(project, "--assume-driver", "580.65.06", "--assume-gpu", "9.0")

    from torchenv.lockfile.io import read_lock

    target = read_lock(project / "torchenv.lock").target("linux-x86_64-cu130")
    assert target.wheel("torch").version == "2.14.1"            # PyPI's default build: no local tag
    assert target.wheel("torch").source == "pypi"
    assert target.wheel("torchvision").version == "0.29.1"
    assert target.wheel("cuda-bindings") is not None
    report = json.loads((project / ".torchenv" / "verify.json").read_text())
    assert report["facts"]["torch"] == "2.14.1+cu130" and report["facts"]["cuda"] == "13.0"
    accel = next(c for c in report["checks"] if c["name"] == "accelerator")
    assert "no visible CUDA device" in accel["detail"]
    assert result.verify_ok is False and result.exit_code != 0   # the assumed GPU is not here
