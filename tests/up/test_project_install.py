"""The project itself is installed into its env (editable), and the env has pip.

Users clone a project with ``pyproject.toml`` or ``setup.py`` and expect what ``uv sync`` and
``pip install -e .`` give: its console scripts on PATH, its package importable from anywhere,
and ``python -m pip install ...`` working. Each test runs the real ``up`` with uv and pip.
"""
from __future__ import annotations

import subprocess

from tests.support.inbackend import write_package_project

from torchenv.flows import noop


def _run(world, *cmd, cwd=None):
    return subprocess.run([str(world.env / "bin" / cmd[0]), *cmd[1:]], capture_output=True, text=True,
                          cwd=cwd or world.root)


def test_the_project_is_installed_editable_with_its_console_script(world):
    write_package_project(world.project, deps=("six",))
    world.run_up()
    out = _run(world, "demo-hello")
    assert out.returncode == 0 and out.stdout.strip() == "hello from demo", out.stderr
    # importable from another folder, and edits show without a re-install (editable)
    (world.project / "demo" / "cli.py").write_text("def main():\n    print('edited')\n")
    assert _run(world, "python", "-c", "import demo.cli; demo.cli.main()").stdout.strip() == "edited"
    lock = world.read_lock()
    assert lock.project == {"path": ".", "editable": True,
                            "hash": "none: the project itself, installed editable from its folder"}
    assert "six" in {w.name for w in lock.target("linux-x86_64-cpu").wheels}, "its dependencies are locked"
    assert "# the project itself, installed editable" in world.lock.read_text()
    assert noop.check(world.project, world.options()) is not None, "a second up is a no-op"


def test_the_env_has_pip(world):
    world.run_up()
    out = _run(world, "python", "-m", "pip", "--version")
    assert out.returncode == 0, out.stderr
    world.run_up("--force")
    assert _run(world, "python", "-m", "pip", "--version").returncode == 0, "a re-sync keeps pip"


def test_a_removed_project_install_is_noticed_and_put_back(world):
    write_package_project(world.project)
    world.run_up()
    subprocess.run([str(world.env / "bin" / "python"), "-m", "pip", "uninstall", "-y", "-q", "demo"], check=True)
    assert not (world.env / "bin" / "demo-hello").exists()
    assert noop.check(world.project, world.options()) is None, "the no-op check notices the project is gone"
    result = world.run_up()
    assert result.status != "up-to-date"
    assert _run(world, "demo-hello").stdout.strip() == "hello from demo"
    assert noop.check(world.project, world.options()) is not None


def test_a_pyproject_without_a_build_system_is_not_installed(world):
    (world.project / "pyproject.toml").write_text('[tool.ruff]\nline-length = 100\n')
    world.run_up()
    assert world.read_lock().project == {}
    assert noop.check(world.project, world.options()) is not None


def test_a_setup_py_projects_install_requires_are_locked_and_it_is_installed(world):
    write_package_project(world.project)
    pyproject = world.project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().split("[project]")[0])    # build system only, as many setup.py repos
    (world.project / "setup.py").write_text(
        "from setuptools import setup\nREQUIRED = ['six']\n"
        "setup(name='demo', install_requires=REQUIRED)\nraise SystemExit('setup.py must never be run')\n")
    world.run_up()
    assert "six" in {w.name for w in world.read_lock().target("linux-x86_64-cpu").wheels}
    assert _run(world, "demo-hello").stdout.strip() == "hello from demo"
