"""The real-torch tests cannot skip silently: a missing asset fails under CI and skips, with its reason, elsewhere."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

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


SKIPPING = '''
import pytest
from tests.support.skips import requires, unavailable

@requires(False, "needs a thing this machine lacks")
def test_marked():
    pass

def test_called():
    unavailable("needs another thing")
'''


@pytest.mark.parametrize("ci, outcome", [("true", "1 failed, 1 error"), ("", "2 skipped")])
def test_a_test_that_cannot_check_here_fails_under_ci_and_skips_elsewhere(tmp_path, ci, outcome):
    (tmp_path / "test_probe_skips.py").write_text(SKIPPING)
    base = {k: v for k, v in os.environ.items() if k != "CI"}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rsf", "-p", "no:cacheprovider", "-p", "no:xdist",
                           "-p", "tests.conftest",          # the hook that reads @requires: the probe sits elsewhere
                           "-c", str(REPO / "pyproject.toml"), "--rootdir", str(REPO), str(tmp_path)],
                          cwd=REPO, env={**base, "CI": ci}, capture_output=True, text=True, timeout=120)
    assert outcome in proc.stdout, proc.stdout + proc.stderr
    assert "needs a thing this machine lacks" in proc.stdout and "needs another thing" in proc.stdout


RAW_SKIP = re.compile(r"pytest\.skip\(|pytest\.mark\.skip|\bskipif\b|importorskip|unittest\.skip")


def test_every_skip_goes_through_the_one_helper():
    """A bare ``pytest.skip`` or ``skipif`` passes in CI without checking anything: tests/support/skips.py fails it."""
    helper, here = REPO / "tests" / "support" / "skips.py", Path(__file__).resolve()
    raw = [f"{path.relative_to(REPO)}:{n}" for path in sorted((REPO / "tests").rglob("*.py"))
           if path not in (helper, here) for n, line in enumerate(path.read_text().splitlines(), 1)
           if RAW_SKIP.search(line)]
    assert raw == [], f"skip through tests.support.skips (unavailable / requires) instead: {raw}"
