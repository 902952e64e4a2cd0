"""An installed distribution back into its wheel: the same files and bytes, or a refusal naming the file."""
from __future__ import annotations

import base64
import hashlib
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from tests.support.assets import uv
from tests.support.skips import requires

SRC = Path(__file__).resolve().parents[2] / "src"
INFO = "demo-1.0.dist-info"
FILES = {
    "demo/__init__.py": b"VALUE = 1\n",
    "demo/data/table.toml": b"[x]\ny = 1\n",
    "demo-1.0.data/scripts/demo-helper": b"#!python\nimport demo\nprint(demo.VALUE)\n",
    f"{INFO}/METADATA": b"Metadata-Version: 2.1\nName: demo\nVersion: 1.0\nRequires-Dist: fakedep>=1\n",
    f"{INFO}/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: false\n"
                     b"Tag: py3-none-manylinux_2_17_x86_64\nTag: py3-none-manylinux2014_x86_64\n",
    f"{INFO}/entry_points.txt": b"[console_scripts]\ndemo = demo:main\n",
}
NAME = "demo-1.0-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl"


def _hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _wheel(directory: Path) -> Path:
    path = directory / NAME
    record = "".join(f"{p},{_hash(d)},{len(d)}\n" for p, d in FILES.items()) + f"{INFO}/RECORD,,\n"
    with zipfile.ZipFile(path, "w") as zf:
        for p, d in {**FILES, f"{INFO}/RECORD": record.encode()}.items():
            info = zipfile.ZipInfo(p, date_time=(2024, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if "/scripts/" in p else 0o644) << 16
            zf.writestr(info, d)
    return path


@pytest.fixture
def installed(tmp_path) -> Path:
    """A venv with the demo wheel installed by pip (which rewrites the script's shebang and adds a launcher)."""
    env = tmp_path / "env"
    subprocess.run([str(uv()), "venv", "-q", "--seed", "-p", sys.executable, str(env)], check=True)
    subprocess.run([str(env / "bin/python"), "-m", "pip", "install", "-q", "--no-deps", "--no-index",
                    str(_wheel(tmp_path))], check=True)
    assert (env / "bin/demo").is_file() and not (env / "bin/demo-helper").read_bytes().startswith(b"#!python")
    return env


def _repack(env: Path, dest: Path) -> subprocess.CompletedProcess:
    code = ("import sys, json; sys.path.insert(0, sys.argv[1]); from importlib.metadata import distribution;"
            "from torchenv.offline.repack import repack, RepackError\n"
            "try: print(json.dumps({'wheel': str(repack(distribution('demo'), sys.argv[2]))}))\n"
            "except RepackError as e: print(json.dumps({'error': str(e)}))")
    return subprocess.run([str(env / "bin/python"), "-c", code, str(SRC), str(dest)], capture_output=True,
                          text=True, check=True)


def test_repack_gives_back_the_files_and_bytes_of_the_installed_wheel(installed, tmp_path):
    dest = tmp_path / "out"
    dest.mkdir()
    out = json.loads(_repack(installed, dest).stdout)
    wheel = Path(out["wheel"])
    assert wheel.name == NAME
    with zipfile.ZipFile(wheel) as zf:
        got = {n: zf.read(n) for n in zf.namelist()}
    record = got.pop(f"{INFO}/RECORD").decode()
    assert got == FILES                    # launcher, INSTALLER, REQUESTED, byte-code left out; #!python restored
    assert sorted(record.splitlines()) == sorted([f"{p},{_hash(d)},{len(d)}" for p, d in FILES.items()]
                                                 + [f"{INFO}/RECORD,,"])
    # and pip installs it again
    again = tmp_path / "again"
    subprocess.run([str(uv()), "venv", "-q", "--seed", "-p", sys.executable, str(again)], check=True)
    subprocess.run([str(again / "bin/python"), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)],
                   check=True)
    helper = again / "bin/demo-helper"
    assert helper.read_text().startswith(f"#!{again}/bin/python")
    assert subprocess.run([str(again / "bin/python"), str(helper)], capture_output=True, text=True).stdout == "1\n"


def test_a_file_changed_after_install_is_refused_by_name(installed, tmp_path):
    changed = next(installed.glob("lib/python3*/site-packages/demo/__init__.py"))
    changed.write_text("VALUE = 2\n")
    dest = tmp_path / "out"
    dest.mkdir()
    out = json.loads(_repack(installed, dest).stdout)
    assert out == {"error": f"{changed} was changed after it was installed (its sha256 differs from RECORD)"}
    assert not list(dest.iterdir())


@requires(sys.platform == "linux" and sys.version_info[:2] == (3, 11), "names linux, 3.11")
def test_the_dependencies_this_env_holds_are_repacked_and_only_the_rest_downloaded(tmp_path):
    from importlib import metadata

    from torchenv.offline.tool import InstalledWheels, not_installed

    requires = metadata.requires("torchenv")
    here = InstalledWheels(tmp_path)
    assert not_installed(requires, "linux-x86_64", "3.11", here) == []          # this env: everything is here
    assert {r.split(">")[0].split("=")[0] for r in not_installed(requires, "linux-x86_64", "3.10", here)} \
        >= {"tomli"}                                                              # 3.10-only markers
    assert any(r.startswith("uv") for r in not_installed(requires, "macos-arm64", "3.11", here))   # binary wheel
    assert any(p.name.startswith("uv-") for p in tmp_path.iterdir())
