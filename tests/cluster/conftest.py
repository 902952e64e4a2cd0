"""A real Slurm for the cluster tests: the one ``.ci/run`` started (``TORCHENV_TEST_SLURM_CONF``), else one
started here by ``slurm.sh up`` for the session (root and Debian's slurm packages needed) and stopped after.

Without Slurm the tests skip and say why; under CI (``CI=true``) they fail instead, so a CI image that lost
Slurm cannot pass by skipping.
"""
from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from tests.support.assets import shared_uv_cache
from tests.support.skips import unavailable

HERE = Path(__file__).parent
SLURM_SH = HERE / "slurm.sh"


@pytest.fixture(scope="session")
def slurm_conf():
    given = os.environ.get("TORCHENV_TEST_SLURM_CONF")
    if given:
        yield given
        return
    missing = [t for t in ("munged", "slurmctld", "slurmd", "sinfo", "srun") if shutil.which(t) is None]
    if missing:
        unavailable(f"needs a real Slurm: {', '.join(missing)} not installed (tests/cluster/slurm.sh install)")
    if os.geteuid() != 0:
        unavailable("starting the test cluster (slurmd) needs root")
    lab = Path(tempfile.mkdtemp(prefix="torchenv-slurm-lab-"))   # not under pytest's 0700 folders: munged
    lab.chmod(0o711)                                                 # refuses a socket path others cannot reach
    env = {**os.environ, "TORCHENV_SLURM_PORT": str(random.randrange(30000, 60000, 20))}
    started = subprocess.run([str(SLURM_SH), "up", str(lab)], capture_output=True, text=True, env=env, timeout=120)
    if started.returncode != 0:
        unavailable(f"slurm.sh up failed: {started.stderr.strip()[-400:]}")
    try:
        yield str(lab / "etc" / "slurm.conf")
    finally:
        subprocess.run([str(SLURM_SH), "down", str(lab)], capture_output=True, timeout=60)
        shutil.rmtree(lab, ignore_errors=True)


@pytest.fixture
def cluster_env(slurm_conf, tmp_path) -> dict[str, str]:
    """Environment for running torchenv against the test cluster: its SLURM_CONF, the stand-in nvidia-smi first
    on PATH (jobs inherit it; it answers per $SLURMD_NODENAME), a torchenv home of this test, the real-torch
    tests' shared uv cache."""
    return {**os.environ, "SLURM_CONF": slurm_conf, "PATH": f"{HERE}{os.pathsep}{os.environ['PATH']}",
            "TORCHENV_HOME": str(tmp_path / "home"), "UV_CACHE_DIR": str(shared_uv_cache())}


def torchenv(env: dict[str, str], cwd: Path, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "torchenv", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)


def cpu_wheel_folder() -> Path | None:
    """The find-links folder of the user's pip config that holds the real torch 2.13.0+cpu wheel."""
    listed = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True)
    for line in listed.stdout.splitlines():
        key, _, value = line.partition("=")
        if key.endswith("find-links"):
            for folder in value.strip().strip("'\"").split():
                path = Path(folder.removeprefix("file://"))
                if path.is_dir() and any(path.glob("torch-2.13.0+cpu-*.whl")):
                    return path
    return None
