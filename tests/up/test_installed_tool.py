"""The README's quickstart, run by torchenv installed as users install it (``./bootstrap``), with the real
torch 2.13.0+cpu wheel this machine's pip configuration points at."""
from __future__ import annotations

import shutil

import pytest
from tests.support.assets import CPU_TORCH, cpu_torch_wheel, shared_uv_cache
from tests.support.console import unwrapped
from tests.support.installed import REPO

pytestmark = pytest.mark.integration


@pytest.mark.timeout(1200)
def test_quickstart_up_from_the_installed_tool_ends_verified(installed_torchenv, tmp_path, monkeypatch):
    cpu_torch_wheel()
    monkeypatch.setenv("UV_CACHE_DIR", str(shared_uv_cache()))
    project = tmp_path / "quickstart"
    shutil.copytree(REPO / "examples" / "quickstart", project)
    first = installed_torchenv.run("up", "-C", str(project), cwd=tmp_path)   # as the README's quickstart
    assert first.returncode == 0, first.stdout + first.stderr
    said = unwrapped(first.stdout)
    assert f"verified: torch {CPU_TORCH} works" in said
    assert (project / "torchenv.lock").is_file()
    torch_dir = next((project / ".venv").glob("lib/python3*/site-packages/torch"))
    assert (torch_dir / "__init__.py").is_file()

    again = installed_torchenv.run("up", "-C", str(project), cwd=tmp_path)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "up to date" in again.stdout
    ran = installed_torchenv.run("run", "--", "python", "train.py", cwd=project, timeout=300)
    assert ran.returncode == 0, ran.stdout + ran.stderr
