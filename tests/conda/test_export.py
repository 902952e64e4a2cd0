"""`torchenv export conda-lock|explicit`: files plain conda tools (and rattler) read back."""
from __future__ import annotations

import argparse
import asyncio

import pytest
from tests.conda.helpers import gpu_machine

from torchenv.conda.channels import channel_url
from torchenv.conda.export import conda_lock_text, explicit_text
from torchenv.conda.virtual import virtual_packages
from torchenv.engines.rattler import RattlerEngine
from torchenv.lockfile.model import LockedWheel, Lockfile, LockTarget

WHEEL = LockedWheel(name="einops", version="0.8.0", filename="einops-0.8.0-py3-none-any.whl",
                    url="https://files.pythonhosted.org/packages/xx/einops-0.8.0-py3-none-any.whl",
                    sha256="cd" * 32, index="https://pypi.org/simple")


@pytest.fixture
def lock(channel, tmp_path) -> Lockfile:
    machine = gpu_machine()
    recs = RattlerEngine(cache_dir=tmp_path / "c").solve(
        channels=[channel_url(str(channel))], specs=["python 3.12.*", "pytorch", "cuda-nvcc 12.6.*"],
        platform="linux-64", virtual_packages=virtual_packages(machine), mirrors={})
    target = LockTarget(name="linux-x86_64-cu126", os="linux", arch="x86_64", tier="cu126", python="3.12",
                        backend="conda", torch="2.5.1", wheels=(WHEEL,), conda=tuple(r.to_locked() for r in recs),
                        virtual_packages=virtual_packages(machine), channels=(channel_url(str(channel)),))
    return Lockfile(intent_hash="sha256:" + "9" * 64, targets=(target,))


def test_explicit_file_lists_every_package_with_md5(lock):
    text = explicit_text(lock.targets[0].conda, platform="linux-64", wheels=lock.targets[0].wheels)
    lines = text.splitlines()
    body = lines[lines.index("@EXPLICIT") + 1:]
    assert len(body) == len(lock.targets[0].conda)
    assert all("#" in line and len(line.rsplit("#", 1)[1]) == 32 for line in body)
    assert "# platform: linux-64" in lines
    assert any(line.startswith("# pip: https://files.pythonhosted.org/") for line in lines)


def test_conda_lock_yml_is_read_and_installed_by_rattler(lock, tmp_path):
    from rattler import LockFile, install

    path = tmp_path / "conda-lock.yml"
    path.write_text(conda_lock_text(lock, lock.targets))
    text = path.read_text()
    assert "version: 1" in text and "manager: \"conda\"" in text and "manager: \"pip\"" in text
    env = LockFile.from_path(path).default_environment()
    recs = env.conda_repodata_records()["linux-64"]
    assert {r.name.normalized for r in recs} == {p.name for p in lock.targets[0].conda}
    assert {r.url for r in recs} == {p.url for p in lock.targets[0].conda}
    asyncio.run(install(recs, target_prefix=tmp_path / "env", cache_dir=tmp_path / "pkgs", show_progress=False))
    assert (tmp_path / "env" / "lib" / "torch_cuda.txt").exists()


def test_export_command_writes_conda_lock_from_torchenv_lock(lock, tmp_path, capsys):
    from torchenv.commands import export
    from torchenv.lockfile.io import write_lock

    write_lock(tmp_path / "torchenv.lock", lock)
    out = tmp_path / "out.yml"
    assert export.run(argparse.Namespace(format="conda-lock", output=str(out), target=None,
                                         project=str(tmp_path))) == 0
    assert "platforms:\n    - \"linux-64\"" in out.read_text()
    assert export.run(argparse.Namespace(format="explicit", output="-", target=None, project=str(tmp_path))) == 0
    assert "@EXPLICIT" in capsys.readouterr().out


def test_export_without_a_conda_target_says_how_to_get_one(tmp_path):
    from torchenv.commands import export
    from torchenv.errors import LockError
    from torchenv.lockfile.io import write_lock

    venv = LockTarget(name="linux-x86_64-cpu", os="linux", arch="x86_64", tier="cpu", python="3.12",
                      backend="venv", torch="2.5.1+cpu", wheels=(WHEEL,))
    write_lock(tmp_path / "torchenv.lock", Lockfile(intent_hash="sha256:" + "1" * 64, targets=(venv,)))
    with pytest.raises(LockError, match="no conda target") as err:
        export.run(argparse.Namespace(format="explicit", output="-", target=None, project=str(tmp_path)))
    assert 'backend = "conda"' in err.value.hint
