"""Projects whose build imports torch are built against the env's torch, and a failed build fails ``up``.

A user who clones a project with C++ ops (its build imports ``torch.utils.cpp_extension``) expects
``torchenv up`` to build it against the torch it just installed, and never to hear "ready" when the
build failed. The fake world's torch (2.4.1+cpu) stands in for the real one; the real compile is in
``test_build_cpp_extension.py``.
"""
from __future__ import annotations

import subprocess

import pytest
from tests.support.console import unwrapped
from tests.support.inbackend import write_package_project

from torchenv.cli import main
from torchenv.errors import BuildFailed
from torchenv.flows import noop


def _needs_torch_to_build(project, *build_requires: str) -> None:
    """The demo project, but its build backend imports torch (and ``build_requires``) and records what it saw."""
    write_package_project(project)
    pyproject = project / "pyproject.toml"
    reqs = ", ".join(f'"{r}"' for r in ("torch", *build_requires))
    pyproject.write_text(pyproject.read_text().replace("requires = []", f"requires = [{reqs}]"))
    backend = project / "demo_backend.py"
    imports = "".join(f"    import {r}\n" for r in ("torch", *build_requires))
    backend.write_text(backend.read_text().replace(
        "def build_editable(wheel_directory, config_settings=None, metadata_directory=None):\n",
        "def build_editable(wheel_directory, config_settings=None, metadata_directory=None):\n" + imports
        + "    open(os.path.join(os.path.dirname(__file__), 'BUILT_WITH'), 'w').write(torch.__version__)\n"))


def test_a_build_that_imports_torch_is_built_against_the_envs_torch(world):
    _needs_torch_to_build(world.project, "six")
    world.run_up()
    assert (world.project / "BUILT_WITH").read_text() == "2.4.1+cpu", "the env's torch, not one of the build's own"
    lock = world.read_lock()
    assert lock.project["build-isolation"] is False and lock.project["build-requires"] == ["six"]
    assert "six" in {w.name for w in lock.target("linux-x86_64-cpu").wheels}, "its build requirement is locked"
    out = subprocess.run([str(world.env / "bin" / "demo-hello")], capture_output=True, text=True)
    assert out.stdout.strip() == "hello from demo", out.stderr
    assert noop.check(world.project, world.options()) is not None, "a second up is a no-op"


def test_a_failed_project_build_fails_up_with_the_package_and_its_first_error(world, capsys):
    write_package_project(world.project)
    (world.project / "FAIL").write_text("")
    with pytest.raises(BuildFailed) as raised:
        world.run_up()
    said = str(raised.value)
    assert "demo did not build" in said
    assert "RuntimeError: this build needs a compiler that is not here" in said
    log = world.project / ".torchenv" / "build-logs" / "demo.log"
    assert str(log) in said and "Traceback" in log.read_text(), "the whole log is kept and named"
    assert any(d.startswith("torch-") for d in world.dists()), "the locked packages are installed"
    assert world.lock.is_file(), "the lock of what did install is written"
    assert noop.check(world.project, world.options()) is None, "a failed build is never a no-op"
    code = main(["up", "-C", str(world.project), "--no-verify"])
    out = capsys.readouterr()
    assert code != 0 and "ready" not in out.out + out.err and "demo did not build" in out.out + out.err
    (world.project / "FAIL").unlink()
    world.run_up()
    assert noop.check(world.project, world.options()) is not None


def _said(capsys) -> str:
    out = capsys.readouterr()
    return unwrapped(out.out + out.err)


def test_a_package_added_by_hand_is_kept_by_up_and_removed_by_up_exact(world, capsys):
    write_package_project(world.project)
    world.run_up()
    six = next((world.root / "wheels").glob("six-*.whl"))
    subprocess.run([str(world.env / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps", str(six)],
                   check=True)
    code = main(["up", "-C", str(world.project), "--no-verify"])
    said = _said(capsys)
    assert code == 0 and any(d.startswith("six-") for d in world.dists()), "a plain up keeps it"
    assert "six 1.16.0 was added by hand and is kept" in said and "policy: keep" in said and "--exact" in said
    assert noop.check(world.project, world.options()) is not None, "and the next up is a no-op"
    code = main(["up", "-C", str(world.project), "--no-verify", "--exact"])
    said = _said(capsys)
    assert code == 0 and not any(d.startswith("six-") for d in world.dists()), "up --exact removes it"
    assert "policy: --exact" in said
    assert "installed the project itself" not in said, "the project itself stays: a compiled one is not rebuilt"
    assert any(d.startswith("demo-") for d in world.dists())
    assert any(d.startswith("torch-") for d in world.dists())


SDIST_BACKEND = '''
import os, subprocess, zipfile

def get_requires_for_build_wheel(config_settings=None):
    return []

def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    import torch
    subprocess.run(["c++", "--version"], check=True)       # the compile a real extension runs
    name = "fastop-1.0-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w") as z:
        z.writestr("fastop.py", "BUILT_WITH = %r\\n" % torch.__version__)
        z.writestr("fastop-1.0.dist-info/METADATA", "Metadata-Version: 2.1\\nName: fastop\\nVersion: 1.0\\n")
        z.writestr("fastop-1.0.dist-info/WHEEL",
                   "Wheel-Version: 1.0\\nGenerator: t\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n")
        z.writestr("fastop-1.0.dist-info/RECORD", "")
    return name
'''


def _torch_sdist(folder):
    import io
    import tarfile

    path = folder / "fastop-1.0.tar.gz"
    files = {"fastop-1.0/pyproject.toml": '[build-system]\nrequires = ["torch"]\nbuild-backend = "fastop_backend"\n'
                                          'backend-path = ["."]\n[project]\nname = "fastop"\nversion = "1.0"\n',
             "fastop-1.0/fastop_backend.py": SDIST_BACKEND,
             "fastop-1.0/PKG-INFO": "Metadata-Version: 2.2\nName: fastop\nVersion: 1.0\n"}
    folder.mkdir(parents=True, exist_ok=True)
    with tarfile.open(path, "w:gz") as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


@pytest.mark.parametrize("installer", ["uv"])     # pip's resolver locks wheels only: no sdist to build
def test_a_dependency_built_against_torch_is_built_once_and_reused_by_the_next_env(world, monkeypatch):
    import shutil

    from tests.support.packages import build_index

    build_index(world.root / "pypi", {"fastop": [_torch_sdist(world.root / "sdists")]})
    calls = world.root / "compiler-calls"
    wrapper = world.root / "bin" / "c++"
    wrapper.parent.mkdir()
    wrapper.write_text(f"#!/bin/sh\necho \"$@\" >> {calls}\n")
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{wrapper.parent}:{__import__('os').environ['PATH']}")
    (world.project / "requirements.txt").write_text("fastop\n")
    world.run_up()
    check = [str(world.env / "bin" / "python"), "-c", "import fastop; print(fastop.BUILT_WITH)"]
    assert subprocess.run(check, capture_output=True, text=True).stdout.strip() == "2.4.1+cpu"
    assert len(calls.read_text().splitlines()) == 1, "built once, against the env's torch"
    shutil.rmtree(world.env)
    world.run_up()
    assert subprocess.run(check, capture_output=True, text=True).stdout.strip() == "2.4.1+cpu"
    assert len(calls.read_text().splitlines()) == 1, "the second env reuses the cached wheel: no compiler ran"
