"""`torchenv export conda-env`: an environment.yml whose pins a conda solver turns back into the lock."""
from __future__ import annotations

import pytest
from tests.conda.conftest import channel  # noqa: F401  (fixture reused)
from tests.conda.helpers import gpu_machine
from tests.export import yamlish
from tests.export.conftest import export

from torchenv.conda.channels import channel_url
from torchenv.conda.virtual import virtual_packages
from torchenv.engines.rattler import RattlerEngine
from torchenv.lockfile.model import LockedWheel, Lockfile, LockTarget

WHEEL = LockedWheel(name="einops", version="0.8.0", filename="einops-0.8.0-py3-none-any.whl",
                    url="https://files.pythonhosted.org/packages/xx/einops-0.8.0-py3-none-any.whl",
                    sha256="cd" * 32, index="https://pypi.org/simple")


@pytest.fixture
def conda_project(channel, tmp_path):
    from torchenv.lockfile.io import write_lock

    engine = RattlerEngine(cache_dir=tmp_path / "c")
    machine = gpu_machine()
    recs = engine.solve(channels=[channel_url(str(channel))], specs=["python 3.12.*", "pytorch", "cuda-nvcc 12.6.*"],
                        platform="linux-64", virtual_packages=virtual_packages(machine), mirrors={})
    target = LockTarget(name="linux-x86_64-cu126", os="linux", arch="x86_64", tier="cu126", python="3.12",
                        backend="conda", torch="2.5.1", wheels=(WHEEL,), conda=tuple(r.to_locked() for r in recs),
                        virtual_packages=virtual_packages(machine), channels=(channel_url(str(channel)),))
    project = tmp_path / "proj"
    project.mkdir()
    write_lock(project / "torchenv.lock", Lockfile(intent_hash="sha256:" + "9" * 64, targets=(target,)))
    return project, engine, target


def test_a_conda_solver_lands_on_the_locked_builds(conda_project, tmp_path):
    project, engine, target = conda_project
    out = tmp_path / "environment.yml"
    assert export(project, "conda-env", "-o", str(out), "--name", "demo") == 0
    doc = yamlish.loads(out.read_text())
    assert doc["name"] == "demo" and doc["channels"] == list(target.channels)
    specs = [d for d in doc["dependencies"] if isinstance(d, str)]
    assert specs[-1] == "pip"                          # conda needs it for the pip: section
    specs = specs[:-1]                                 # (the test channel has no pip package)
    again = engine.solve(channels=doc["channels"], specs=specs, platform="linux-64",
                         virtual_packages=list(target.virtual_packages), mirrors={})
    assert {r.url for r in again} == {p.url for p in target.conda}
    pip = next(d["pip"] for d in doc["dependencies"] if isinstance(d, dict))
    assert pip[-1] == f"einops==0.8.0 --hash=sha256:{'cd' * 32}"


def test_a_venv_lock_becomes_python_plus_a_hashed_pip_section(locked, capsys):
    assert export(locked.project, "conda-env", "--name", "demo") == 0
    doc = yamlish.loads(capsys.readouterr().out)
    assert doc["dependencies"][:2] == ["python=3.11", "pip"]
    pip = doc["dependencies"][2]["pip"]
    assert pip[1] == "--extra-index-url https://download.pytorch.org/whl/cpu"
    assert any(line.startswith("torch==2.4.1+cpu --hash=sha256:") for line in pip)
