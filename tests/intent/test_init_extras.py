"""A README that installs the project with extras (`pip install 'litgpt[extra]'`) gets them locked too.

The project itself is installed with ``--no-deps``, so an optional-dependency group the README's
install line adds must be in ``[env] extras``; litgpt 0.5.13's `litgpt` command needs `requests`
from its `extra` group.
"""
from __future__ import annotations

import pytest
from tests.intent.test_init_sources import write

from torchenv.cli import main
from torchenv.errors import IntentError
from torchenv.intent.load import load_project_intent
from torchenv.intent.project_requirements import gather

PYPROJECT = """\
[project]
name = "lit_demo"
version = "0.1"
dependencies = ["torch>=2.7", "tqdm"]

[project.optional-dependencies]
extra = ["requests>=2.31", "pandas>=1.9"]
test = ["pytest>=8"]
all = ["lit-demo[extra,compiler]"]
compiler = ["lightning-thunder>=0.2"]
"""


def test_init_takes_the_runtime_extras_of_the_readmes_install_line(tmp_path, capsys):
    write(tmp_path, {"pyproject.toml": PYPROJECT,
                     "README.md": "Install:\n\n```bash\npip install 'lit-demo[extra,test]'\n```\n\n"
                                  "Develop: `pip install -e \".[all,test]\"`\n"})
    assert main(["init", "-C", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    intent = load_project_intent(tmp_path)
    assert intent.env.extras == ("extra",)
    assert "README.md" in out and "extras" in out
    reqs, _warnings = gather(intent, tmp_path)
    texts = [r.text for r in reqs]
    assert "requests>=2.31" in texts and "tqdm" in texts and "pytest>=8" not in texts


def test_a_readme_without_extras_leaves_the_key_out(tmp_path, capsys):
    write(tmp_path, {"pyproject.toml": PYPROJECT, "README.md": "pip install lit-demo\n"})
    assert main(["init", "-C", str(tmp_path)]) == 0
    assert load_project_intent(tmp_path).env.extras == ()
    assert "extras =" not in (tmp_path / "torchenv.toml").read_text()


def test_a_group_naming_the_project_itself_is_expanded_as_pip_does(tmp_path):
    write(tmp_path, {"pyproject.toml": PYPROJECT,
                     "torchenv.toml": '[torch]\nversion = "2.7"\n[env]\nextras = ["all"]\n'})
    reqs, _warnings = gather(load_project_intent(tmp_path), tmp_path)
    texts = [r.text for r in reqs]
    assert {"requests>=2.31", "pandas>=1.9", "lightning-thunder>=0.2"} <= set(texts)
    assert not any("lit-demo[" in t for t in texts)


def test_an_extra_the_project_does_not_define_is_refused_naming_the_key(tmp_path):
    write(tmp_path, {"pyproject.toml": PYPROJECT, "torchenv.toml": '[env]\nextras = ["gpu"]\n'})
    with pytest.raises(IntentError) as exc:
        gather(load_project_intent(tmp_path), tmp_path)
    assert "gpu" in exc.value.message and exc.value.key == "env.extras"
