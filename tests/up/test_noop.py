"""The no-op ``torchenv up`` is fast and imports nothing heavy (measured in a fresh process)."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
from tests.support.cputime import cpu_time

HEAVY = ("rich", "tomlkit", "packaging", "pynvml", "torch", "filelock", "rattler", "httpx")


@pytest.mark.parametrize("installer", ["uv"], indirect=True)
def test_noop_up_is_fast_and_imports_nothing_heavy(world):
    world.run_up()
    cmd = [sys.executable, "-X", "importtime", "-m", "torchenv", "up", "-C", str(world.project)]
    env = dict(os.environ)
    times = []
    for _ in range(3):
        with cpu_time() as spent:
            proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
        times.append(spent.seconds)
        assert proc.returncode == 0, proc.stderr[-2000:]
    assert "up to date" in proc.stdout
    imported = {line.split("|")[-1].strip().split(".")[0] for line in proc.stderr.splitlines()
                if line.startswith("import time:")}
    assert not imported & set(HEAVY), sorted(imported & set(HEAVY))
    assert sorted(times)[1] < 0.5, f"CPU seconds of each no-op up: {times}"
