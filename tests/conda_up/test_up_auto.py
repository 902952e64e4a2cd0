"""``[env] backend = "auto"``: conda when the planned Python is not on the machine or the project lists
conda packages, venv otherwise, with the reason shown by `torchenv plan` and carried out by `up`."""
from __future__ import annotations

import json

import pytest
from tests.conda_up.conftest import NO_GPU
from tests.conda_up.forge import HOST_PY, MISSING_PY
from tests.support.console import unwrapped

from torchenv.cli import main

ONLY_HOST_PY = ("--assume-python", HOST_PY)


def _plan(project, *flags: str, capsys) -> dict:
    capsys.readouterr()
    assert main(["plan", "-C", str(project.dir), "--json", *flags]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("python, packages, backend, why", [
    (MISSING_PY, (), "conda", "the planned Python is not on this machine, and conda can provide it"),
    (HOST_PY, ("conda-only-tool",), "conda", "the project lists conda packages ([conda] packages)"),
    (HOST_PY, (), "venv", "venv: the planned Python is on this machine"),
])
def test_auto_backend_choice_and_its_reason(project, forge, capsys, python, packages, backend, why):
    project.write(channel=forge, python=python, backend="auto", packages=packages)
    plan = _plan(project, *NO_GPU, *ONLY_HOST_PY, capsys=capsys)
    assert plan["backend"] == backend and why in plan["backend_reason"]


def test_plan_text_shows_why_conda_was_chosen(project, forge, capsys):
    project.write(channel=forge, python=MISSING_PY, backend="auto")
    capsys.readouterr()
    assert main(["plan", "-C", str(project.dir), *NO_GPU, *ONLY_HOST_PY]) == 0
    out = unwrapped(capsys.readouterr().out)       # rich wraps long lines
    assert f"Python {MISSING_PY} · conda" in out
    assert "environment: conda: the planned Python is not on this machine" in out


def test_up_with_auto_builds_a_conda_env_holding_the_missing_python(project, forge):
    project.write(channel=forge, python=MISSING_PY, backend="auto")
    result = project.up(*NO_GPU, *ONLY_HOST_PY)

    assert result.status == "installed"
    meta = project.conda_meta()
    assert f"python-{MISSING_PY}.18-h0_0_cp{MISSING_PY.replace('.', '')}.json" in meta
    assert f"pytorch-2.7.1-cpu_generic_py{MISSING_PY.replace('.', '')}_h0_0.json" in meta
    target = project.lock().targets[0]
    assert target.backend == "conda" and target.python == MISSING_PY
