"""Real artifacts: a torch 2.13.0 CPU project bundled and rebuilt offline; torchenv installed from its own bundle."""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.network import pypi_reachable

from tests.offline.conftest import fresh_home, linux_x86, needs_netns, run_offline
from torchenv.cli import main

REPO = Path(__file__).resolve().parents[2]
TORCH_WHEEL = Path("/opt/wheels/torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl")

pytestmark = [pytest.mark.integration, linux_x86, needs_netns]


def _torchenv(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, NO_COLOR="1", COLUMNS="200")
    return subprocess.run([sys.executable, "-m", "torchenv", *args], env=env, capture_output=True, text=True,
                          timeout=600, cwd=cwd)


def _dist_records(env: Path) -> dict[str, str]:
    """dist-info name -> digest of its RECORD lines (every installed file with its sha256).

    Left out: console scripts (``../../../bin/``: their shebang holds the env's path) and
    ``direct_url.json`` (it names the local wheel file the installer was given) and uv's
    ``uv_cache.json`` (cache bookkeeping).
    """
    site = next(env.glob("lib/python3.11/site-packages"))
    out = {}
    for d in site.glob("*.dist-info"):
        lines = sorted(line for line in (d / "RECORD").read_text().splitlines()
                       if not line.startswith("../") and "direct_url.json" not in line
                       and "uv_cache.json" not in line)
        out[d.name] = hashlib.sha256("\n".join(lines).encode()).hexdigest()
    return out


@pytest.mark.skipif(not TORCH_WHEEL.is_file(), reason=f"{TORCH_WHEEL} is not on this machine")
def test_real_torch_bundle_rebuilds_the_same_env_offline(tmp_path):
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "torchenv.toml").write_text('[torch]\nversion = "2.13"\ncuda = "cpu"\npython = "3.11"\n\n'
                                        '[env]\nrequirements = ["requirements.txt"]\n')
    (proj / "requirements.txt").write_text("numpy\n")
    locked = _torchenv("lock", "-C", str(proj))
    if locked.returncode != 0:
        pytest.skip(f"`torchenv lock` does not work here yet: {locked.stderr[-400:]}")
    bundle = tmp_path / "torch-cpu.tar"
    assert main(["bundle", "-C", str(proj), "-o", str(bundle), "--no-tool", "-q"]) == 0
    print(f"\nbundle size: {bundle.stat().st_size / 1e6:.1f} MB")

    online = _torchenv("up", "-C", str(proj), "--frozen", "--no-verify")
    assert online.returncode == 0, online.stdout + online.stderr

    offline_proj = tmp_path / "air-gapped"
    offline_proj.mkdir()
    for name in ("torchenv.toml", "torchenv.lock", "requirements.txt"):
        shutil.copy(proj / name, offline_proj / name)
    start = time.monotonic()
    proc = run_offline(offline_proj, fresh_home(tmp_path), "--from", str(bundle))
    took = time.monotonic() - start
    assert proc.returncode == 0, proc.stdout + proc.stderr
    print(f"offline rebuild (unshare -n, empty cache, with verify): {took:.1f} s")
    assert "verified: torch 2.13.0+cpu works" in " ".join(proc.stdout.split())
    assert _dist_records(offline_proj / ".venv") == _dist_records(proj / ".venv")
    assert (offline_proj / "torchenv.lock").read_bytes() == (proj / "torchenv.lock").read_bytes()


@pytest.mark.network
@pytest.mark.skipif(not (REPO / "bootstrap").is_file(), reason="no bootstrap script in this checkout")
def test_bootstrap_installs_torchenv_from_the_bundle_with_no_network(fake_project, tmp_path):
    if not pypi_reachable():
        pytest.skip("PyPI is unreachable: torchenv's dependencies cannot be downloaded into the bundle")
    bundle = tmp_path / "with-tool.tar"
    assert main(["bundle", "-C", str(fake_project.dir), "-o", str(bundle), "-q"]) == 0
    assert main(["bundle", "verify", str(bundle)]) == 0
    tool = tmp_path / "tool"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "VIRTUAL_ENV"))}
    env.update(PIP_CONFIG_FILE=os.devnull, TORCHENV_TOOL_HOME=str(tool))
    proc = subprocess.run(["unshare", "-n", str(REPO / "bootstrap"), "--offline", str(bundle), "--version"],
                          env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip().startswith("torchenv ")
    # the torchenv installed from the bundle can install the project from the same bundle, offline
    proj = tmp_path / "fresh"
    proj.mkdir()
    env.update(TORCHENV_HOME=str(fresh_home(tmp_path)))
    up = subprocess.run(["unshare", "-n", str(tool / "bin/python"), "-m", "torchenv", "up", "--offline",
                         "-C", str(proj), "--from", str(bundle), "--no-verify"],
                        env=env, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert up.returncode == 0, up.stdout + up.stderr
    assert (proj / ".venv/lib/python3.11/site-packages/torch/__init__.py").is_file()
