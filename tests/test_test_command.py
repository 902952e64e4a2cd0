"""The README's test command (what .ci/run calls) runs the suite in parallel with a per-test timeout."""
from __future__ import annotations

import shutil
import subprocess

from tests.support.installed import REPO


def test_ci_runs_the_readme_test_command():
    assert "./bootstrap test " in (REPO / "README.md").read_text()
    last = (REPO / ".ci/run").read_text().rstrip().splitlines()[-1]
    assert last.removeprefix("exec ").strip() == "./bootstrap test", last


def test_bootstrap_test_runs_pytest_in_parallel(tmp_path):
    """bootstrap in a copy whose dev env is a stand-in python that writes down how it was called."""
    shutil.copy(REPO / "bootstrap", tmp_path / "bootstrap")
    calls = tmp_path / "calls.txt"
    fake = tmp_path / ".torchenv-dev" / "bin" / "python"
    fake.parent.mkdir(parents=True)
    fake.write_text(f'#!/bin/sh\necho "$*" >> {calls}\n')
    fake.chmod(0o755)
    proc = subprocess.run([str(tmp_path / "bootstrap"), "test", "tests/offline", "-x"], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert calls.read_text().splitlines()[-1] == "-m pytest -n auto tests/offline -x"


def test_every_test_has_a_timeout(pytestconfig):
    assert int(pytestconfig.getini("timeout")) > 0
    assert pytestconfig.pluginmanager.hasplugin("timeout") and pytestconfig.pluginmanager.hasplugin("xdist")
