"""Run from a subdirectory: torchenv finds the project's torchenv.toml above (as git, uv and
pixi do), says which file it used, and builds the env at the project root, never below it."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from tests.support.cli import MACHINE
from tests.support.console import unwrapped
from tests.support.world import build_mirrors, new_world


def find_project(start):
    from torchenv.project import find_project as find

    return find(start)


def test_plan_from_a_subdirectory_uses_the_project_file(sh, project):
    sub = project / "src" / "models"
    r = sh.torchenv("plan", "--json", *MACHINE, cwd=sub)
    assert r.rc == 0, r.text
    plan = json.loads(r.out)
    assert plan["torch"] == "2.4.1", "planned defaults instead of the project's torch 2.4"
    assert plan["project"] == str(project) and plan["project_file"] == str(project / "torchenv.toml")
    human = sh.torchenv("plan", *MACHINE, cwd=sub)
    assert f"using {project / 'torchenv.toml'} (found above the current directory)" in human.err
    assert f"intent: {project / 'torchenv.toml'}" in unwrapped(human.out)


def test_from_a_subdirectory_the_file_used_is_named_in_chinese(sh, project):
    from tests.support.english import english_left

    human = sh.torchenv("plan", *MACHINE, cwd=project / "src" / "models", env={"LANG": "zh_CN.UTF-8"})
    assert f"torchenv: 使用 {project / 'torchenv.toml'}（在当前目录的上层找到）" in human.err, human.err
    assert not english_left(human.err.splitlines()[0])


def test_dash_c_into_a_subdirectory_finds_the_root_too(sh, project, tmp_path):
    r = sh.torchenv("plan", "--json", "-C", str(project / "src"), *MACHINE, cwd=tmp_path)
    assert r.rc == 0, r.text
    assert json.loads(r.out)["project_file"] == str(project / "torchenv.toml")


@pytest.fixture
def world(tmp_path):
    w = new_world(tmp_path / "w", build_mirrors(tmp_path / "mirrors"))
    yield w
    w.close()


def test_up_from_a_subdirectory_builds_the_env_at_the_root(world):
    sub = world.project / "src" / "models"
    sub.mkdir(parents=True)
    args = ["up", "--no-verify", *MACHINE, "--torch-mirror", world.torch_url, "--pypi-mirror", world.pypi_url]
    up = subprocess.run([sys.executable, "-m", "torchenv", *args], cwd=sub, env=world.environ(),
                        capture_output=True, text=True, timeout=300)
    assert up.returncode == 0, up.stdout + up.stderr
    assert world.env.is_dir() and world.lock.is_file()
    assert sorted(p.name for p in sub.iterdir()) == [], "a second env or lock was made in the subdirectory"
    assert world.env_imports() == "2.4.1+cpu"
    show_prefix = ["run", "--", "python", "-c", "import sys; print(sys.prefix)"]
    run = subprocess.run([sys.executable, "-m", "torchenv", *show_prefix],
                         cwd=sub, env=world.environ(), capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stdout.strip() == str(world.env), run.stdout + run.stderr


def test_init_in_a_subdirectory_writes_there_and_says_whose_project_it_was(sh, project):
    sub = project / "src"
    outer = (project / "torchenv.toml").read_bytes()
    r = sh.torchenv("init", cwd=sub)
    assert r.rc == 0, r.text
    assert (sub / "torchenv.toml").is_file() and (project / "torchenv.toml").read_bytes() == outer
    assert f"inside the project of {project / 'torchenv.toml'}" in unwrapped(r.out)
    data = json.loads(sh.torchenv("init", "--json", "--force", cwd=sub).out)
    assert data["inside_project"] == str(project / "torchenv.toml")


# --- the rules, on generated layouts ----------------------------------------------------------

def test_the_nearest_torchenv_toml_wins(tmp_path):
    (tmp_path / "a" / "b" / "c").mkdir(parents=True)
    (tmp_path / "torchenv.toml").write_text("")
    (tmp_path / "a" / "torchenv.toml").write_text("")
    found = find_project(tmp_path / "a" / "b" / "c")
    assert found.root == tmp_path / "a" and found.marker == tmp_path / "a" / "torchenv.toml" and found.found_above


def test_a_lone_lock_never_beats_a_torchenv_toml_above_it(tmp_path):
    """Older torchenv, run from a subdirectory, left exactly such locks behind."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "torchenv.toml").write_text("")
    (tmp_path / "sub" / "torchenv.lock").write_text("")
    found = find_project(tmp_path / "sub")
    assert found.root == tmp_path and found.stray_locks == (tmp_path / "sub" / "torchenv.lock",)


def test_a_lock_only_project_is_found_from_below(tmp_path):
    (tmp_path / "sub" / "deeper").mkdir(parents=True)
    (tmp_path / "torchenv.lock").write_text("")
    found = find_project(tmp_path / "sub" / "deeper")
    assert found.root == tmp_path and found.marker == tmp_path / "torchenv.lock"


def test_pyproject_alone_does_not_make_a_project_root(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    found = find_project(tmp_path / "pkg")
    assert found.root == tmp_path / "pkg" and found.marker is None and not found.found_above


def test_a_torchenv_toml_that_is_a_folder_still_marks_the_root(tmp_path):
    """So the loader can say "torchenv.toml is a directory" instead of silently going further up."""
    (tmp_path / "torchenv.toml").mkdir()
    (tmp_path / "sub").mkdir()
    assert find_project(tmp_path / "sub").root == tmp_path
