"""Real artifacts: a torch 2.13.0 CPU project bundled and rebuilt offline; torchenv installed from its own bundle."""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from tests.offline.conftest import fresh_home, linux_x86, needs_netns, run_offline
from tests.support.assets import cpu_torch_wheel, need, shared_uv_cache
from tests.support.console import unwrapped
from tests.support.installed import REPO
from tests.support.network import pypi_reachable

from torchenv.cli import main

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


def test_real_torch_bundle_rebuilds_the_same_env_offline(tmp_path, monkeypatch):
    cpu_torch_wheel()
    monkeypatch.setenv("UV_CACHE_DIR", str(shared_uv_cache()))   # the online machine's; the offline one starts empty
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "torchenv.toml").write_text('[torch]\nversion = "2.13"\ncuda = "cpu"\npython = "3.11"\n\n'
                                        '[env]\nrequirements = ["requirements.txt"]\n')
    (proj / "requirements.txt").write_text("numpy\n")
    locked = _torchenv("lock", "-C", str(proj))
    assert locked.returncode == 0, locked.stdout + locked.stderr
    bundle = tmp_path / "torch-cpu.tar"
    assert main(["bundle", "-C", str(proj), "-o", str(bundle), "--no-tool", "-q"]) == 0
    print(f"\nbundle size: {bundle.stat().st_size / 1e6:.1f} MB")

    offline_proj = tmp_path / "air-gapped"
    offline_proj.mkdir()
    for name in ("torchenv.toml", "torchenv.lock", "requirements.txt"):
        shutil.copy(proj / name, offline_proj / name)
    with ThreadPoolExecutor(1) as pool:     # the online env and the offline rebuild share nothing: built at once
        online_up = pool.submit(_torchenv, "up", "-C", str(proj), "--frozen", "--no-verify")
        start = time.monotonic()
        proc = run_offline(offline_proj, fresh_home(tmp_path), "--from", str(bundle))
        took = time.monotonic() - start
    online = online_up.result()
    assert online.returncode == 0, online.stdout + online.stderr
    assert proc.returncode == 0, proc.stdout + proc.stderr
    print(f"offline rebuild (unshare -n, empty cache, with verify): {took:.1f} s")
    assert "verified: torch 2.13.0+cpu works" in unwrapped(proc.stdout)
    assert _dist_records(offline_proj / ".venv") == _dist_records(proj / ".venv")
    assert (offline_proj / "torchenv.lock").read_bytes() == (proj / "torchenv.lock").read_bytes()


def _air_gapped(**extra: str) -> dict[str, str]:
    """A shell on the offline machine: no pip configuration, no active venv."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "VIRTUAL_ENV"))}
    return {**env, "PIP_CONFIG_FILE": os.devnull, **extra}


def _installed_files(tool: Path, dist: str) -> list[str]:
    """RECORD lines of ``dist`` in a tool env, less what the installer writes (launchers, byte-code, bookkeeping)."""
    record = next(tool.glob(f"lib/python3*/site-packages/{dist}-*.dist-info/RECORD"))
    skip = ("../", "__pycache__/", "/INSTALLER,", "/REQUESTED,", "/direct_url.json,", "/RECORD,")
    return sorted(line for line in record.read_text().splitlines() if not any(s in line for s in skip))


@pytest.mark.network
@pytest.mark.timeout(1200)
def test_installed_torchenv_bundles_itself_and_bootstrap_installs_it_with_no_network(
        installed_torchenv, fake_project, tmp_path):
    need(pypi_reachable(), "PyPI (tomli and typing-extensions for a Python 3.10 offline machine come from there)")
    bundle = tmp_path / "with-tool.tar"
    made = installed_torchenv.run("bundle", "-C", str(fake_project.dir), "-o", str(bundle))
    assert made.returncode == 0, made.stdout + made.stderr
    assert installed_torchenv.run("bundle", "verify", str(bundle)).returncode == 0
    tool = tmp_path / "tool"
    proc = subprocess.run(["unshare", "-n", str(REPO / "bootstrap"), "--offline", str(bundle), "--version"],
                          env=_air_gapped(TORCHENV_TOOL_HOME=str(tool)), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip() == "torchenv 0.1.0"
    # the very files the installed torchenv had, byte for byte (RECORD hashes), not a rebuild of some source
    assert _installed_files(tool, "torchenv") == _installed_files(installed_torchenv.home, "torchenv")
    assert _installed_files(tool, "uv") == _installed_files(installed_torchenv.home, "uv")
    # the torchenv installed from the bundle can install the project from the same bundle, offline
    proj = tmp_path / "fresh"
    proj.mkdir()
    up = subprocess.run(["unshare", "-n", str(tool / "bin/torchenv"), "up", "--offline",
                         "-C", str(proj), "--from", str(bundle), "--no-verify"],
                        env=_air_gapped(TORCHENV_HOME=str(fresh_home(tmp_path))), capture_output=True, text=True,
                        timeout=600, cwd=tmp_path)
    assert up.returncode == 0, up.stdout + up.stderr
    assert (proj / ".venv/lib/python3.11/site-packages/torch/__init__.py").is_file()
