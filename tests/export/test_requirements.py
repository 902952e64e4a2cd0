"""`torchenv export requirements`: pip installs it with --require-hashes into what `up` installed."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from tests.export.conftest import export, records


def pip_install(venv: Path, *args: str) -> subprocess.CompletedProcess:
    if not (venv / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    return subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install",
                           "--isolated", "--disable-pip-version-check", "--no-cache-dir", *args],
                          capture_output=True, text=True)


def test_pip_require_hashes_installs_the_same_files_as_up(locked, tmp_path):
    req = tmp_path / "requirements.txt"
    assert export(locked.project, "requirements", "-o", str(req)) == 0
    text = req.read_text()
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in text
    assert "\ntorch==2.4.1+cpu --hash=sha256:" in text
    # pip reads every line of the file; the command line only points it at local copies of the indexes
    done = pip_install(tmp_path / "fresh", "--require-hashes", "--no-index", "--find-links",
                       str(locked.root / "wheels"), "-r", str(req))
    assert done.returncode == 0, done.stderr + done.stdout
    assert records(tmp_path / "fresh" / "lib" / "python3.11" / "site-packages") == records(locked.site())


def test_pip_refuses_a_file_whose_bytes_differ_from_the_lock(locked, tmp_path):
    req = tmp_path / "requirements.txt"
    export(locked.project, "requirements", "-o", str(req))
    swapped = tmp_path / "swapped"
    shutil.copytree(locked.root / "wheels", swapped, ignore=shutil.ignore_patterns("pypi-torch"))
    torch = next(swapped.glob("torch-2.4.1+cpu-cp311-cp311-linux_x86_64.whl"))
    torch.write_bytes(torch.read_bytes() + b"\0")          # same name, other bytes
    done = pip_install(tmp_path / "fresh", "--require-hashes", "--no-index", "--find-links", str(swapped),
                       "-r", str(req))
    assert done.returncode != 0 and "THESE PACKAGES DO NOT MATCH THE HASHES" in done.stderr


def test_wheels_dir_makes_a_self_contained_offline_file(locked, tmp_path):
    house = tmp_path / "house"
    house.mkdir()
    for name in ("torch-2.4.1+cpu-cp311-cp311-linux_x86_64.whl", "filelock-3.1.0-py3-none-any.whl"):
        shutil.copy(locked.root / "wheels" / name, house)
    req = tmp_path / "requirements.txt"
    assert export(locked.project, "requirements", "-o", str(req), "--wheels", str(house)) == 0
    assert "--no-index\n--find-links house\n" in req.read_text()
    done = pip_install(tmp_path / "fresh", "--require-hashes", "-r", str(req))
    assert done.returncode == 0, done.stderr
