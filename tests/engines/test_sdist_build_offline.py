"""A source-only dependency installs from the lock: its build requirements come from the locked wheels.

Installs run with ``--no-index``; before, the isolated build of an sdist (rouge-score 0.1.2 asks
for ``setuptools>=40.8.0``) failed as "package not found" although the lock held setuptools. Here
the build backend is a fake wheel among the files, and the sdist's ``[build-system]`` requires it.
"""
from __future__ import annotations

import io
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from tests.support.console import unwrapped
from tests.support.packages import make_wheel

from torchenv.engines.pip import PipEngine
from torchenv.engines.uv import UvEngine

BACKEND = '''
import zipfile

def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    name = "onlysdist-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel_directory + "/" + name, "w") as z:
        z.writestr("onlysdist.py", "BUILT = True\\n")
        z.writestr("onlysdist-1.0.dist-info/METADATA", "Metadata-Version: 2.1\\nName: onlysdist\\nVersion: 1.0\\n")
        z.writestr("onlysdist-1.0.dist-info/WHEEL",
                   "Wheel-Version: 1.0\\nGenerator: t\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n")
        z.writestr("onlysdist-1.0.dist-info/RECORD", "")
    return name
'''


def _sdist(folder: Path) -> Path:
    path = folder / "onlysdist-1.0.tar.gz"
    files = {"onlysdist-1.0/pyproject.toml": '[build-system]\nrequires = ["tinybackend>=1"]\n'
                                              'build-backend = "tinybackend_impl"\n',
             "onlysdist-1.0/PKG-INFO": "Metadata-Version: 2.1\nName: onlysdist\nVersion: 1.0\n"}
    with tarfile.open(path, "w:gz") as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


@pytest.mark.parametrize("engine", [UvEngine, PipEngine])
def test_an_sdist_builds_from_the_locked_wheels_without_an_index(tmp_path, engine):
    files = tmp_path / "locked"
    backend = make_wheel(files, "tinybackend", "1.0", extra_files={"tinybackend_impl.py": BACKEND})
    sdist = _sdist(files)
    env = tmp_path / "env"
    engine().create_venv(python=sys.executable, path=env)     # as `up` makes it (virtualenv seeds pip, no ensurepip)
    python = env / "bin" / "python"
    engine().install_files(env_python=python, files=[backend, sdist])
    out = subprocess.run([str(python), "-c", "import onlysdist; print(onlysdist.BUILT)"],
                         capture_output=True, text=True)
    assert out.stdout.strip() == "True", out.stderr


@pytest.mark.parametrize("engine", [UvEngine, PipEngine])
def test_an_sdist_whose_build_requirement_is_not_locked_names_both(tmp_path, engine):
    from torchenv.errors import BuildFailed

    files = tmp_path / "locked"
    files.mkdir()
    sdist = _sdist(files)
    env = tmp_path / "env"
    engine().create_venv(python=sys.executable, path=env)
    with pytest.raises(BuildFailed) as raised:
        engine().install_files(env_python=env / "bin" / "python", files=[sdist])
    said = unwrapped(str(raised.value))
    assert raised.value.package == "onlysdist" and "onlysdist did not build" in said, said
    assert "tinybackend" in said and "add tinybackend to the project's requirements" in said, said
    assert "host name" not in said and "check its spelling" not in said
