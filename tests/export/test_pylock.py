"""`torchenv export pylock`: a PEP 751 file that uv installs into the same bytes `up` installed."""
from __future__ import annotations

import sys

import pytest
from tests.export.conftest import export, records, uv


@pytest.mark.parametrize("verb", [["install", "-r"], ["sync"]])
def test_uv_installs_the_pylock_byte_identical_to_up(locked, tmp_path, verb):
    out = tmp_path / "share" / "pylock.toml"
    assert export(locked.project, "pylock", "-o", str(out), "--wheels", str(locked.root / "torchidx" / "files")) == 0
    fresh = tmp_path / "fresh"
    made = uv("venv", "--no-config", "--quiet", "--python", sys.executable, str(fresh))
    assert made.returncode == 0, made.stderr
    done = uv("pip", verb[0], "--no-config", "--offline", "--python", str(fresh / "bin" / "python"),
              *verb[1:], "pylock.toml", cwd=out.parent)
    assert done.returncode == 0, done.stderr
    site = fresh / "lib" / "python3.11" / "site-packages"
    assert records(site) == records(locked.site())
    assert "torch-2.4.1+cpu.dist-info" in records(site)
