"""The real-torch tests cannot skip silently: a missing asset fails under CI and skips, with its reason, elsewhere."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
from tests.support.installed import REPO

PROBE = '''
from tests.support.assets import cpu_torch_wheel, uv

def test_needs_the_cpu_wheel():
    assert cpu_torch_wheel().is_file()
    print("found:", cpu_torch_wheel())

def test_needs_uv():
    assert uv().is_file()
'''


def _pytest(tmp_path, **env: str) -> subprocess.CompletedProcess:
    (tmp_path / "test_probe_assets.py").write_text(PROBE)
    base = {k: v for k, v in os.environ.items() if not k.startswith("PIP_") and k != "CI"}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-s", "-p", "no:cacheprovider",
                           "-p", "no:xdist", "-c", str(REPO / "pyproject.toml"), "--rootdir", str(REPO), str(tmp_path)],
                          cwd=REPO, env={**base, **env}, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("ci, outcome", [("true", "1 failed, 1 passed"), ("", "1 passed, 1 skipped")])
def test_a_missing_torch_wheel_fails_in_ci_and_skips_with_the_reason_elsewhere(tmp_path, ci, outcome):
    proc = _pytest(tmp_path, PIP_CONFIG_FILE=os.devnull, CI=ci)     # pip's configuration names no wheel folder
    out = proc.stdout
    assert outcome in out, out
    assert "missing the torch 2.13.0+cpu cp311 Linux x86_64 wheel" in out
    assert "pip's configuration names no local find-links folder or file:// index" in out


def test_the_wheels_are_found_through_pip_configuration_alone(tmp_path):
    from tests.support.assets import cpu_torch_wheel

    wheel = cpu_torch_wheel()
    conf = tmp_path / "pip.conf"
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    (moved / wheel.name).symlink_to(wheel)
    conf.write_text(f"[global]\nfind-links = {moved}\n")
    home = tmp_path / "home"                                          # no user pip.conf: only ``conf`` names wheels
    proc = _pytest(tmp_path, PIP_CONFIG_FILE=str(conf), CI="true", HOME=str(home),
                   XDG_CONFIG_HOME=str(home / ".config"))
    assert "2 passed" in proc.stdout, proc.stdout
    assert f"found: {moved / wheel.name}" in proc.stdout
