"""``up`` and the project's Jupyter kernel, with fake wheels: ipykernel locked when the project has notebooks,
one kernelspec per env (updated by a rebuild, never duplicated), and only torchenv's own kernelspecs touched.

The real kernel (jupyter_client starting it, ``import torch``) runs in ``test_jupyter_real.py``.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.support import build_index, make_wheel
from tests.support.ui import RecordingUi


@pytest.fixture
def installer() -> str:
    return "uv"


@pytest.fixture
def kernels(tmp_path, monkeypatch) -> Path:
    data = tmp_path / "jupyter-data"
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(data))
    return data / "kernels"


@pytest.fixture
def nb_world(world):
    """The fake world with an ipykernel on its PyPI side and a notebook in the project."""
    wheel = make_wheel(world.root / "wheels", "ipykernel", "6.29.5")
    build_index(world.root / "pypi", {"ipykernel": [wheel]})
    (world.project / "notebooks").mkdir()
    (world.project / "notebooks" / "demo.ipynb").write_text('{"cells": [], "nbformat": 4, "nbformat_minor": 5}\n')
    return world


def _specs(kernels: Path) -> dict[str, dict]:
    return {p.name: json.loads((p / "kernel.json").read_text()) for p in sorted(kernels.iterdir())} \
        if kernels.is_dir() else {}


def _up(world, *extra: str):
    from torchenv.flows.up import run_up

    ui = RecordingUi()
    return run_up(world.project, world.options(*extra), ui, planner=world.fake_plan), ui


def test_a_project_with_notebooks_gets_ipykernel_locked_and_a_kernelspec(nb_world, kernels):
    result, ui = _up(nb_world)
    assert nb_world.read_lock().target("linux-x86_64-cpu").wheel("ipykernel").version == "6.29.5"
    specs = _specs(kernels)
    assert len(specs) == 1
    (name, spec), = specs.items()
    env = nb_world.project / ".venv"
    assert name.startswith("torchenv-proj-")
    assert spec["display_name"] == "proj (torch 2.4.1, cpu)"
    assert spec["argv"][:3] == [str(env / "bin" / "python"), "-m", "ipykernel_launcher"]
    assert spec["env"]["PATH"] == f"{env / 'bin'}:${{PATH}}"
    assert spec["env"]["VIRTUAL_ENV"] == str(env)
    assert "CUDA_HOME" not in spec["env"]
    assert spec["metadata"]["torchenv"]["env"] == str(env)
    assert result.kernel == f"proj (torch 2.4.1, cpu) ({name})"
    assert any("Jupyter kernel" in s and "registered" in s for s in ui.steps)
    assert "ipykernel locked too: a Jupyter kernel: the project has notebooks (notebooks/demo.ipynb) " \
           "([env] jupyter = false leaves it out)" in ui.steps


def test_the_plan_says_why_ipykernel_is_added(nb_world):
    from tests.up.conftest import intent_of

    from torchenv.intent.project_requirements import gather, kernel_reason, kernel_wanted

    intent = intent_of(nb_world.project)
    reqs, _warnings = gather(intent, nb_world.project)
    assert [r.text for r in reqs] == ["ipykernel"]
    reason = kernel_reason(kernel_wanted(intent, nb_world.project, reqs))
    assert "notebooks (notebooks/demo.ipynb)" in reason and "[env] jupyter = false" in reason


def test_a_rebuild_on_another_tier_updates_the_same_kernelspec(nb_world, kernels, monkeypatch):
    _up(nb_world)
    before = _specs(kernels)
    nb_world.planner = lambda request: nb_world.plan(request.intent, tier="cu121", version="2.4.1+cu121")
    result, ui = _up(nb_world, "--force", "--cuda", "cu121")
    assert result.status == "rebuilt"
    after = _specs(kernels)
    assert list(after) == list(before)           # one kernelspec, the same name
    spec = next(iter(after.values()))
    assert spec["display_name"] == "proj (torch 2.4.1, cu121)"
    assert spec["metadata"]["torchenv"]["target"] == "linux-x86_64-cu121"
    assert any("updated" in s for s in ui.steps)


def test_jupyter_false_leaves_ipykernel_out(nb_world, kernels):
    toml = nb_world.project / "torchenv.toml"
    toml.write_text(toml.read_text() + "jupyter = false\n")
    result, _ui = _up(nb_world)
    assert nb_world.read_lock().target("linux-x86_64-cpu").wheel("ipykernel") is None
    assert _specs(kernels) == {} and result.kernel == ""


def test_jupyter_true_without_notebooks_gets_a_kernel(nb_world, kernels):
    (nb_world.project / "notebooks" / "demo.ipynb").unlink()
    toml = nb_world.project / "torchenv.toml"
    toml.write_text(toml.read_text() + "jupyter = true\n")
    _up(nb_world)
    assert len(_specs(kernels)) == 1


def test_notebooks_inside_envs_and_hidden_folders_do_not_count(world, tmp_path):
    from torchenv.intent.jupyter import first_notebook

    for where in (".venv/share/x.ipynb", ".git/x.ipynb", "node_modules/p/x.ipynb", "other-env/x.ipynb",
                  "nb/.ipynb_checkpoints/x-checkpoint.ipynb"):
        (world.project / where).parent.mkdir(parents=True, exist_ok=True)
        (world.project / where).write_text("{}")
    (world.project / "other-env" / "pyvenv.cfg").write_text("home = /usr\n")
    assert first_notebook(world.project) is None
    (world.project / "nb" / "real.ipynb").write_text("{}")
    assert first_notebook(world.project) == world.project / "nb" / "real.ipynb"


def test_a_kernelspec_torchenv_did_not_write_is_left_untouched(nb_world, kernels):
    from torchenv.jupyter.kernelspec import kernel_name

    name = kernel_name(nb_world.project / ".venv", nb_world.project)
    theirs = kernels / name
    theirs.mkdir(parents=True)
    (theirs / "kernel.json").write_text('{"argv": ["python"], "display_name": "mine", "language": "python"}\n')
    (kernels / "python3").mkdir()
    (kernels / "python3" / "kernel.json").write_text('{"argv": ["python"], "display_name": "Python 3"}\n')
    result, ui = _up(nb_world)
    assert result.verify_ok is None and result.status == "installed"   # the env is fine; only the kernel is not
    assert any("was not registered" in w and "did not write" in w for w in ui.warnings)
    assert json.loads((theirs / "kernel.json").read_text())["display_name"] == "mine"
    assert (kernels / "python3" / "kernel.json").is_file()


def test_removing_the_env_removes_its_kernelspec_and_doctor_names_it_meanwhile(nb_world, kernels, capsys):
    import shutil

    from torchenv.cli import main

    _up(nb_world)
    (kernels / "python3").mkdir()
    (kernels / "python3" / "kernel.json").write_text('{"argv": ["python"], "display_name": "Python 3"}\n')
    name = next(p.name for p in kernels.iterdir() if p.name.startswith("torchenv-"))
    shutil.rmtree(nb_world.project / ".venv")
    capsys.readouterr()
    main(["doctor", "--json", "--no-import", "-C", str(nb_world.project), "--env", str(nb_world.root)])
    found = [f for f in json.loads(capsys.readouterr().out)["findings"] if f["id"] == "kernel-env-gone"]
    assert [f["fix"] for f in found] == [f"torchenv kernel remove {name}"]
    assert main(["kernel", "remove", "--gone"]) == 0
    assert sorted(p.name for p in kernels.iterdir()) == ["python3"]     # only torchenv's own, whose env is gone


def test_kernel_list_json_and_remove_by_hand(nb_world, kernels, capsys):
    from torchenv.cli import main

    _up(nb_world)
    capsys.readouterr()
    assert main(["kernel", "list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [k["display_name"] for k in listed["kernels"]] == ["proj (torch 2.4.1, cpu)"]
    assert listed["kernels"][0]["env_gone"] is False
    assert main(["kernel", "remove", "-C", str(nb_world.project)]) == 0
    assert _specs(kernels) == {}
    assert main(["kernel", "install", "-C", str(nb_world.project)]) == 0
    assert len(_specs(kernels)) == 1
    capsys.readouterr()
    assert main(["kernel", "remove", "python3"]) == 2           # not torchenv's: refused with the reason
    assert "no kernel named python3 was registered by torchenv" in capsys.readouterr().err


@pytest.mark.parametrize("variables", [{"JUPYTER_DATA_DIR": "{tmp}/d"}, {"XDG_DATA_HOME": "{tmp}/x"}, {},
                                       {"JUPYTER_PLATFORM_DIRS": "1"}])
def test_data_dir_is_where_jupyter_looks(monkeypatch, tmp_path, variables):
    from jupyter_core.paths import jupyter_data_dir

    from torchenv.jupyter.kernelspec import data_dir

    for name in ("JUPYTER_DATA_DIR", "XDG_DATA_HOME", "JUPYTER_PLATFORM_DIRS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for name, value in variables.items():
        monkeypatch.setenv(name, value.format(tmp=tmp_path))
    assert data_dir() == Path(jupyter_data_dir())


def test_up_vscode_sets_the_interpreter_keeping_other_settings(world, capsys):
    from torchenv.cli import main

    settings = world.project / ".vscode" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"editor.tabSize": 2}\n')
    assert main(["up", "-C", str(world.project), "--no-verify", "--vscode"]) == 0
    assert json.loads(settings.read_text()) == {
        "editor.tabSize": 2, "python.defaultInterpreterPath": str(world.project / ".venv" / "bin" / "python")}


def test_up_vscode_refuses_settings_with_comments_and_leaves_them(world, capsys):
    from torchenv.cli import main

    settings = world.project / ".vscode" / "settings.json"
    settings.parent.mkdir()
    text = '{\n    // my theme\n    "workbench.colorTheme": "Solarized",\n}\n'
    settings.write_text(text)
    assert main(["up", "-C", str(world.project), "--no-verify", "--vscode"]) == 2
    err = capsys.readouterr().err
    assert "not plain JSON" in err and "python.defaultInterpreterPath" in err
    assert settings.read_text() == text


def test_a_notebook_added_later_is_seen_by_the_next_up_past_the_noop_stamp(nb_world, kernels):
    from torchenv.cli import main

    (nb_world.project / "notebooks" / "demo.ipynb").unlink()
    args = ["up", "-C", str(nb_world.project), "--no-verify"]
    import time

    from torchenv.flows import noop

    assert main(args) == 0
    time.sleep(2 * noop.SETTLE_NS / 1e9)              # as old as a user's next `up` finds them
    assert main(args) == 0                                # the no-op check, which leaves the stamp
    assert nb_world.read_lock().target("linux-x86_64-cpu").wheel("ipykernel") is None
    assert (nb_world.project / ".torchenv" / "noop-stamp.json").is_file()
    (nb_world.project / "notebooks" / "demo.ipynb").write_text("{}")
    assert main(args) == 0
    assert nb_world.read_lock().target("linux-x86_64-cpu").wheel("ipykernel") is not None
    assert len(_specs(kernels)) == 1


def test_a_kernelspec_of_the_projects_old_env_path_goes_once_that_env_is_gone(nb_world, kernels):
    import shutil

    _up(nb_world)
    first = set(_specs(kernels))
    shutil.rmtree(nb_world.project / ".venv")
    toml = nb_world.project / "torchenv.toml"
    toml.write_text(toml.read_text() + 'path = "env2"\n')
    _up(nb_world)
    now = _specs(kernels)
    assert len(now) == 1 and set(now) != first
    assert next(iter(now.values()))["metadata"]["torchenv"]["env"] == str(nb_world.project / "env2")


def test_a_marked_kernelspec_holding_other_files_or_reached_through_a_link_is_not_removed(tmp_path):
    from torchenv import safety

    spec = {"argv": ["python"], "display_name": "x", "metadata": {"torchenv": {"env": "/e"}}}
    folder = tmp_path / "k"
    folder.mkdir()
    (folder / "kernel.json").write_text(json.dumps(spec))
    (folder / "notes.txt").write_text("mine")
    assert safety.remove_kernelspec(folder, env="/e") is False and (folder / "notes.txt").is_file()
    (folder / "notes.txt").unlink()
    (tmp_path / "link").symlink_to(folder)
    assert safety.remove_kernelspec(tmp_path / "link", env="/e") is False
    assert safety.remove_kernelspec(folder, env="/other") is False
    assert safety.remove_kernelspec(folder, env="/e") is True and not folder.exists()


def test_up_names_the_interpreter_only_where_an_editor_would_not_find_it(world):
    from torchenv.commands.up import _editor_interpreter
    from torchenv.flows.up import UpResult

    world.run_up()
    lock = world.project / "torchenv.lock"
    at_root = UpResult("installed", world.project / ".venv", "t", lock)
    assert _editor_interpreter(at_root) == ""
    (world.project / ".venv").rename(world.root / "elsewhere")
    outside = UpResult("installed", world.root / "elsewhere", "t", lock)
    assert _editor_interpreter(outside) == str(world.root / "elsewhere" / "bin" / "python")
    (world.root / "elsewhere" / "conda-meta").mkdir()
    (world.root / "elsewhere").rename(world.project / ".venv")
    conda = UpResult("installed", world.project / ".venv", "t", lock)
    assert _editor_interpreter(conda) == str(world.project / ".venv" / "bin" / "python")
