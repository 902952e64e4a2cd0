"""Path safety: ``[env] path`` pointing at something that is not torchenv's env never loses a file.

Each case sets ``[env] path`` in torchenv.toml to a place that holds the user's work (the
project itself, a folder above it, another project that once ran ``up``, a checkout, a plain
folder, a file, a dangling link) and runs the real CLI, with and without ``--force``: exit 2,
a message naming the path and why, and every file under the test's root byte for byte as
it was. The property test at the end generates layouts and drives ``up`` in-process.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.faults.tools.snapshot import diff, tree_digest
from tests.faults.tools.world import MACHINE, TOML


def _user_code(folder: Path) -> None:
    (folder / "train.py").write_text("print('my model')\n")
    (folder / "data").mkdir(exist_ok=True)
    (folder / "data" / "labels.csv").write_text("id,label\n1,cat\n")
    (folder / ".git").mkdir(exist_ok=True)
    (folder / ".git" / "HEAD").write_text("ref: refs/heads/main\n")


def _up_in(world, project: Path):
    return world.cli("up", "-C", str(project), "--no-verify", *MACHINE,
                     "--torch-mirror", world.torch_url, "--pypi-mirror", world.pypi_url)


def _project_itself(world):
    _user_code(world.project)


def _above_the_project(world):
    _user_code(world.project)
    (world.root / "notes.txt").write_text("above the project\n")


def _other_project_that_ran_up(world):
    other = world.root / "other-project"
    other.mkdir()
    (other / "torchenv.toml").write_text(TOML)
    _user_code(other)
    r = _up_in(world, other)
    assert r.rc == 0 and (other / ".venv" / "pyvenv.cfg").is_file(), r.text


def _folder_with_pyproject(world):
    lib = world.project / "lib"
    lib.mkdir()
    (lib / "pyproject.toml").write_text("[project]\nname = 'mylib'\n")
    (lib / "mylib.py").write_text("X = 1\n")


def _folder_with_git(world):
    vendored = world.project / "vendored"
    vendored.mkdir()
    _user_code(vendored)


def _checkout_that_is_also_a_venv(world):
    work = world.project / "work"
    work.mkdir()
    _user_code(work)
    (work / "pyvenv.cfg").write_text("home = /usr/bin\nversion = 3.11.9\n")   # `python -m venv .` in a repo


def _plain_folder(world):
    results = world.project / "results"
    results.mkdir()
    (results / "run1.csv").write_text("epoch,loss\n1,0.5\n")


def _a_file(world):
    (world.project / ".venv").write_text("not a folder\n")


def _dangling_link(world):
    (world.project / ".venv").symlink_to(world.project / "moved-away-env")


LAYOUTS = [
    pytest.param("the project folder itself", ".", _project_itself, "is the project folder itself", id="dot"),
    pytest.param("a folder above the project", "..", _above_the_project, "is a folder above the project",
                 id="parent"),
    pytest.param("another project that once ran `up`", "../other-project", _other_project_that_ran_up,
                 "holds torchenv.toml", id="other-project"),
    pytest.param("a folder with pyproject.toml", "lib", _folder_with_pyproject, "holds pyproject.toml",
                 id="pyproject"),
    pytest.param("a folder with .git", "vendored", _folder_with_git, "holds .git", id="git"),
    pytest.param("a git checkout that is also a venv", "work", _checkout_that_is_also_a_venv, "holds .git",
                 id="checkout-venv"),
    pytest.param("a folder that is not an environment", "results", _plain_folder,
                 "is not a Python environment (no pyvenv.cfg, no conda-meta/)", id="not-an-env"),
    pytest.param("a file", ".venv", _a_file, "is a file, not an environment", id="file"),
    pytest.param("a dangling symbolic link", ".venv", _dangling_link, "is a symbolic link to", id="dangling-link"),
]


def _set_env_path(world, path: str) -> None:
    (world.project / "torchenv.toml").write_text(TOML + f'\n[env]\npath = "{path}"\n')


def _everything(world) -> dict[str, str]:
    """Every file under the test's root except torchenv's home (cache) and its bookkeeping folders."""
    digest = tree_digest(world.root)
    home = world.torchenv_home.name
    return {k: v for k, v in digest.items() if not k.startswith(home)}


@pytest.mark.parametrize("force", [False, True], ids=["plain", "force"])
@pytest.mark.parametrize("label,env_path,setup,why", LAYOUTS)
@pytest.mark.fault("`[env] path = \"{env_path}\"`: {label}", where="`torchenv up` / `up --force` (real CLI)",
                   expect="exit 2 before planning, with or without --force; the message names the path and why; "
                          "every file under the test root unchanged byte for byte; nothing renamed aside")
def test_env_path_that_is_not_an_env_is_never_removed(world, label, env_path, setup, why, force, observed):
    setup(world)
    _set_env_path(world, env_path)
    before = _everything(world)
    r = world.up(*(["--force"] if force else []))
    assert r.rc == 2, r.text
    assert "Traceback" not in r.text and why in r.text, r.text
    assert "will not remove, replace or rebuild it" in r.text, r.text
    assert "planning" not in r.out, "refused before probing, resolving or fetching anything"
    assert diff(before, _everything(world)) == []
    assert not list(world.root.rglob("*.torchenv-old-*"))
    if force:
        observed(r.gist("error:"))


@pytest.mark.fault("`[env] path` = another project's env (`../other-project/.venv`)",
                   where="`torchenv up` without --force (real CLI)",
                   expect="exit 2; names the project the env belongs to; nothing changed")
def test_another_projects_env_is_not_taken_over(world, observed):
    _other_project_that_ran_up(world)
    _set_env_path(world, "../other-project/.venv")
    before = _everything(world)
    r = world.up()
    assert r.rc == 2, r.text
    assert "torchenv made at" in r.text and "other-project" in r.text and "--force" in r.text, r.text
    assert diff(before, _everything(world)) == []
    observed(r.gist("error:"))


def _foreign_venv(env: Path) -> None:
    env.mkdir()
    (env / "pyvenv.cfg").write_text("home = /usr/bin\nversion = 3.11.9\n")
    (env / "bin").mkdir()
    (env / "bin" / "python").write_text("#!/bin/sh\n")


@pytest.mark.fault("a Python env torchenv did not create at `.venv`",
                   where="`torchenv up`, then `up --force` (real CLI)",
                   expect="plain up: exit 2, untouched; --force: replaced, nothing outside .venv changed, "
                          "no `.venv.torchenv-old-*` left")
def test_force_replaces_only_the_foreign_env(world, observed):
    _user_code(world.project)
    _foreign_venv(world.env)
    before = _everything(world)
    r = world.up()
    assert r.rc == 2 and "torchenv did not create" in r.text and "--force" in r.text, r.text
    assert diff(before, _everything(world)) == []
    r = world.up("--force")
    assert r.rc == 0, r.text
    assert world.env_imports() == "2.4.1+cpu"
    changed = [line for line in diff(before, _everything(world)) if not line.startswith("+ ")]
    assert changed and all(line[2:].startswith("proj/.venv") for line in changed), changed
    assert not list(world.root.rglob("*.torchenv-old-*"))
    observed(f"plain: exit 2; --force: {r.status}, only proj/.venv replaced")


@pytest.mark.fault("torchenv's own env moved to another folder (marker names the old path)",
                   where="`[env] path` set to the copy; `torchenv up` (real CLI)",
                   expect="exit 2: says where torchenv made it and offers --force; nothing changed")
def test_moved_env_is_not_taken_for_ours(world, observed):
    assert world.up().rc == 0
    shutil.copytree(world.env, world.project / "venv-copy", symlinks=True)
    _set_env_path(world, "venv-copy")
    before = _everything(world)
    r = world.up()
    assert r.rc == 2 and "torchenv made at" in r.text and str(world.env) in r.text, r.text
    assert diff(before, _everything(world)) == []
    observed(r.gist("error:"))
