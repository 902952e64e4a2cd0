"""`torchenv init` on requirement layouts pip accepts but a line-by-line regex misreads."""
from __future__ import annotations

from pathlib import Path

import pytest

from torchenv.cli import main
from torchenv.intent.load import load_project_intent


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def init(root: Path, capsys) -> tuple:
    assert main(["init", "-C", str(root)]) == 0
    return load_project_intent(root).torch, capsys.readouterr().out


def test_a_requirements_own_index_url_names_the_tier(tmp_path, capsys):
    write(tmp_path, {"requirements.txt": "torch==2.2.2 --index-url https://download.pytorch.org/whl/cu121\n"})
    torch, out = init(tmp_path, capsys)
    assert (torch.version, torch.cuda) == ("==2.2.2", "cu121")
    assert "requirements.txt:1" in out


def test_constraints_files_are_read_for_the_torch_pin(tmp_path, capsys):
    write(tmp_path, {"requirements.txt": "-c constraints.txt\ntorch\n", "constraints.txt": "torch==2.3.1\n"})
    torch, out = init(tmp_path, capsys)
    assert torch.version == "==2.3.1"
    assert "constraints.txt:1" in out


def test_editable_self_install_is_said_to_be_the_project(tmp_path, capsys):
    write(tmp_path, {"requirements.txt": "-e .\ntorch==2.4.1\n"})
    _torch, out = init(tmp_path, capsys)
    assert "requirements.txt:1: -e .  ->  the project itself, not a dependency" in out


def test_the_file_a_readme_installs_is_the_one_listed(tmp_path, capsys):
    write(tmp_path, {"README.md": "Install:\n\n    pip install -r requirements/gpu-env.txt\n",
                     "requirements/gpu-env.txt": "torch==2.1.2\n", "requirements.txt": "torch==1.13.1\n"})
    torch, out = init(tmp_path, capsys)
    assert load_project_intent(tmp_path).env.requirements == ("requirements/gpu-env.txt",)
    assert torch.version == "==2.1.2" and "README.md says" in out


def test_every_file_of_a_readme_install_line_is_listed_but_not_dev_ones(tmp_path, capsys):
    write(tmp_path, {"README.rst": "    python -m pip install -r requirements.txt -r extra/vision.txt "
                                   "-r requirements-dev.txt\n",
                     "requirements.txt": "numpy\n", "extra/vision.txt": "torchvision\n",
                     "requirements-dev.txt": "pytest\n"})
    torch, _out = init(tmp_path, capsys)
    assert load_project_intent(tmp_path).env.requirements == ("requirements.txt", "extra/vision.txt")
    assert torch.with_ == ("torchvision",)


def test_a_requirements_folder_lists_runtime_files_and_the_cuda_variant(tmp_path, capsys):
    write(tmp_path, {"requirements/common.txt": "numpy\n", "requirements/cuda.txt": "-r common.txt\ntorch==2.5.1\n",
                     "requirements/cpu.txt": "-r common.txt\ntorch==2.5.1+cpu\n",
                     "requirements/docs.txt": "sphinx\n", "requirements/test.txt": "pytest\n"})
    torch, _out = init(tmp_path, capsys)
    assert load_project_intent(tmp_path).env.requirements == ("requirements/cuda.txt",)
    assert torch.version == "==2.5.1"


def test_setup_py_is_read_without_running_it(tmp_path, capsys):
    marker = tmp_path / "ran"
    write(tmp_path, {"setup.py": f"open({str(marker)!r}, 'w').write('x')\nREQS = ['torch>=2.2', 'numpy']\n"
                                 "from setuptools import setup\nsetup(name='x', install_requires=REQS)\n"})
    torch, _out = init(tmp_path, capsys)
    assert torch.version == ">=2.2"
    assert not marker.exists(), "setup.py must never be executed"


def test_setup_py_reading_a_requirements_file(tmp_path, capsys):
    write(tmp_path, {"setup.py": "from setuptools import setup\nsetup(install_requires=open('deps.txt')"
                                 ".read().splitlines())\n", "deps.txt": "torchaudio\ntorch==2.0.1\n"})
    torch, _out = init(tmp_path, capsys)
    assert torch.version == "==2.0.1" and torch.with_ == ("torchaudio",)


def test_setup_cfg_install_requires(tmp_path, capsys):
    write(tmp_path, {"setup.cfg": "[options]\ninstall_requires =\n    torch>=1.9,<2  # comment\n    torchvision\n"})
    torch, _out = init(tmp_path, capsys)
    assert torch.version == ">=1.9,<2" and torch.with_ == ("torchvision",)


def test_imports_add_companions_only_when_no_file_names_them(tmp_path, capsys):
    write(tmp_path, {"requirements.txt": "torch\n", "src/app/data.py": "import os\nfrom torchaudio import load\n",
                     ".venv/lib/site.py": "import torchvision\n", "build/x.py": "import torchvision\n"})
    torch, out = init(tmp_path, capsys)
    assert torch.with_ == ("torchaudio",), "folders like .venv and build are not the project's code"
    assert "src/app/data.py:2" in out and "the code imports it" in out


OPTIONAL_IMPORTS = {
    "try/except ImportError": "try:\n    import torchvision\nexcept ImportError:\n    torchvision = None\n",
    "except (ModuleNotFoundError, OSError)": "try:\n    from torchvision import ops\n"
                                             "except (ModuleNotFoundError, OSError):\n    ops = None\n",
    "bare except, in a function": "def f():\n    try:\n        import torchvision\n    except:\n        pass\n",
    "if TYPE_CHECKING": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import torchvision\n",
}


@pytest.mark.parametrize("how", sorted(OPTIONAL_IMPORTS))
def test_an_import_the_code_is_ready_to_miss_is_said_as_optional_not_added(tmp_path, capsys, how):
    write(tmp_path, {"requirements.txt": "torch\n", "pkg/utils/logger.py": "import os\n" + OPTIONAL_IMPORTS[how]})
    torch, out = init(tmp_path, capsys)
    assert torch.with_ == ()
    assert "pkg/utils/logger.py:" in out and "optional: torchvision not added to with" in out
    assert "with = []" in (tmp_path / "torchenv.toml").read_text()


def test_one_plain_import_anywhere_still_makes_it_required(tmp_path, capsys):
    write(tmp_path, {"requirements.txt": "torch\n",
                     "a/logger.py": "try:\n    import torchvision\nexcept ImportError:\n    pass\n",
                     "b/model.py": "import torch\nimport torchvision\n",
                     "c/other.py": "try:\n    import torchvision\nexcept KeyError:\n    pass\n",
                     "d/py2.py": "print 'old'\nimport torchaudio\n"})
    torch, out = init(tmp_path, capsys)
    assert torch.with_ == ("torchaudio", "torchvision"), "an except that does not catch ImportError guards nothing"
    assert "b/model.py:2" in out and "optional:" not in out


def test_conda_env_file(tmp_path, capsys):
    write(tmp_path, {"environment.yml": "dependencies:\n  - python=3.10.4\n  - pytorch::pytorch=2.1\n"
                                        "  - pytorch-cuda=12.1\n  - ffmpeg\n  - pip:\n    - torchaudio==2.1.0\n"})
    torch, out = init(tmp_path, capsys)
    assert (torch.version, torch.cuda, torch.python, torch.with_) == ("==2.1.*", "cu121", "3.10", ("torchaudio",))
    assert "ffmpeg" in out and "conda packages not installed" in out
    assert load_project_intent(tmp_path).env.requirements == ("environment.yml",)


def test_broken_yaml_does_not_stop_init(tmp_path, capsys):
    write(tmp_path, {"environment.yml": "dependencies: [unclosed\n", "requirements.txt": "torch==2.4.1\n"})
    torch, out = init(tmp_path, capsys)
    assert torch.version == "==2.4.1" and "could not be parsed" in out
