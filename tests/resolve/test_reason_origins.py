"""Every reason says who decided: the project (file:line), the user (a flag) or torchenv (which rule), and
the chosen Python stays inside the project's requires-python."""
from __future__ import annotations

from resolve_machines import A100, machine

from torchenv.intent.load import apply_overrides, load_project_intent
from torchenv.options import IntentOverrides
from torchenv.resolve.resolver import resolve

GPU = {"driver": "575.57.08", "gpus": [A100]}


def project(tmp_path, toml, **files):
    (tmp_path / "torchenv.toml").write_text(toml)
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return load_project_intent(tmp_path)


def test_a_value_in_torchenv_toml_names_its_line(tmp_path):
    plan = resolve(project(tmp_path, '[torch]\nversion = "2.8"\ncuda = "cu126"\n'), machine(**GPU))
    assert any("matching '==2.8.*' (set by the project (torchenv.toml:2))" in r for r in plan.reasons)
    assert any('cu126 chosen: set by the project (torchenv.toml:3) (cuda = "cu126")' in r for r in plan.reasons)


def test_a_flag_is_the_users(tmp_path):
    intent = apply_overrides(project(tmp_path, "[env]\n"), IntentOverrides(cuda="cu126", python="3.11"))
    plan = resolve(intent, machine(**GPU))
    assert any('set by the user (--cuda) (cuda = "cu126")' in r for r in plan.reasons)
    assert any(r.startswith("Python 3.11: set by the user (--python)") for r in plan.reasons)


def test_a_fallback_says_it_is_torchenvs_rule_not_the_projects(tmp_path, monkeypatch):
    from torchenv.resolve import reachable

    monkeypatch.setattr(reachable, "missing_file", lambda plan, memory, also_needed=frozenset(): None)
    intent = project(tmp_path, "[env]\n")            # states no version, tier or Python
    cand = reachable.Candidate("==2.8.0", "cu126", "3.11", "PyPI's own build of torch 2.8.0")
    plan = reachable._try(cand, intent, machine(**GPU), None, reachable.Lookup(reachable.LocalOnly()))
    assert not isinstance(plan, str)
    text = "\n".join(plan.reasons)
    assert "asked for" not in text and "set by the project" not in text
    assert "set by torchenv (fallback: PyPI's own build of torch 2.8.0)" in text
    assert "Python 3.11: set by torchenv (fallback: PyPI's own build of torch 2.8.0)" in text


def test_the_default_backend_is_torchenvs_default(tmp_path):
    from torchenv.resolve.resolver import _backend

    intent = project(tmp_path, "[torch]\n")
    assert _backend(intent, "/usr/bin/python3", True)[1] == "venv: torchenv's default (env.backend is not set)"
    intent = project(tmp_path, '[env]\nbackend = "venv"\n')
    assert _backend(intent, "/usr/bin/python3", True)[1] == "venv: set by the project (torchenv.toml:2) (env.backend)"


def test_requires_python_bounds_the_chosen_python(tmp_path):
    intent = project(tmp_path, '[torch]\nversion = "2.8"\n',
                     **{"pyproject.toml": '[project]\nname = "x"\nrequires-python = ">=3.10,<3.13"\n'})
    plan = resolve(intent, machine(pythons=("3.13.1", "3.12.4", "3.9.7"), **GPU))
    assert plan.python == "3.12"
    assert any("kept within the project's requires-python >=3.10,<3.13 (pyproject.toml)" in r for r in plan.reasons)


def test_a_python_outside_requires_python_is_warned(tmp_path):
    intent = project(tmp_path, '[torch]\nversion = "2.8"\npython = "3.13"\n',
                     **{"pyproject.toml": '[project]\nname = "x"\nrequires-python = ">=3.10,<3.13"\n'})
    plan = resolve(intent, machine(pythons=("3.13.1",), **GPU))
    assert any("outside the project's requires-python >=3.10,<3.13" in w for w in plan.warnings)
