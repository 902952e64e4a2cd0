"""`torchenv export requirements`: pip installs it with --require-hashes into what `up` installed."""
from __future__ import annotations

import os
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


def test_pip_installs_an_export_whose_files_came_from_several_indexes_with_another_pip_config(wheels, tmp_path):
    """The lock was made where pip's config had extra indexes; the machine that installs has none
    (PIP_CONFIG_FILE=/dev/null): the file alone must name every index its files came from."""
    from tests.support import build_index, serve_dir, sha256_of

    from torchenv.lockfile.io import write_lock
    from torchenv.lockfile.model import LockedWheel, Lockfile, LockTarget

    team = {"teamlib": wheels.make("teamlib", "1.2.0"), "teamutil": wheels.make("teamutil", "0.3.0")}
    public = {"filelock": wheels.make("filelock", "4.3.1")}
    build_index(tmp_path / "team", {k: [v] for k, v in team.items()})
    build_index(tmp_path / "public", {k: [v] for k, v in public.items()})
    with serve_dir(tmp_path / "team") as team_url, serve_dir(tmp_path / "public") as public_url:
        def locked(path, index: str) -> LockedWheel:
            name, version = path.name.split("-")[:2]
            return LockedWheel(name=name, version=version, filename=path.name, url=f"{index}/../files/{path.name}",
                               sha256=sha256_of(path), index=index)

        target = LockTarget(name="linux-x86_64-cpu", os="linux", arch="x86_64", tier="cpu", python="3.11",
                            backend="venv", torch="2.4.1+cpu",
                            wheels=(*(locked(p, f"{team_url}/simple") for p in team.values()),
                                    locked(public["filelock"], f"{public_url}/simple")))
        project = tmp_path / "proj"
        project.mkdir()
        write_lock(project / "torchenv.lock", Lockfile(intent_hash="sha256:" + "1" * 64, targets=(target,)))
        req = tmp_path / "requirements.txt"
        assert export(project, "requirements", "-o", str(req)) == 0
        venv = tmp_path / "fresh"
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
        done = subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install",
                               "--disable-pip-version-check", "--no-cache-dir", "--require-hashes", "--no-deps",
                               "-r", str(req)], capture_output=True, text=True,
                              env={**os.environ, "PIP_CONFIG_FILE": os.devnull, "NO_PROXY": "127.0.0.1",
                                   "no_proxy": "127.0.0.1"})
    assert done.returncode == 0, req.read_text() + done.stderr + done.stdout
    installed = sorted(p.name.split("-")[0] for p in (venv / "lib" / "python3.11" / "site-packages").glob("*.dist-info"))
    assert installed == ["filelock", "teamlib", "teamutil"]
