"""The evidence model behind ``torchenv init``: each reader alone (text in, records out), the one ranking,
and each class of project that init used to misread (install commands in prose, installer scripts, lock
files, Poetry local tags, conda ranges, pixi, several torch indexes, per-OS/accelerator files, example
extras, requires-python, Dockerfile bases)."""
from __future__ import annotations

import json

import pytest

from torchenv.cli import main
from torchenv.intent.evidence import rank
from torchenv.intent.evidence.model import Record
from torchenv.intent.evidence.readers import (
    conda_env,
    docker,
    locks,
    prose,
    pyproject,
    requirements_txt,
    scripts,
    setup,
)
from torchenv.intent.load import load_project_intent


def facts(records):
    return [(r.field, r.value, r.kind, r.target) for r in records]


def write(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def init_intent(tmp_path, files, capsys=None):
    write(tmp_path, files)
    assert main(["init", "-C", str(tmp_path)]) == 0
    return load_project_intent(tmp_path).torch


# --- readers, alone ----------------------------------------------------------------------------------------

def test_prose_reads_pip_uv_conda_commands_backends_and_python_words():
    text = ("pip install torch==2.4.1 torchvision==0.19.1 --index-url https://download.pytorch.org/whl/cu126\n"
            "uv pip install torch==2.5.0\n"
            "export UV_TORCH_BACKEND=cu130\n"
            "conda create -n env python=3.8 pytorch==1.10.1 cudatoolkit=11.3 -c pytorch\n"
            "conda install pytorch pytorch-cuda=12.1 -c pytorch -c nvidia\n"
            "Python 3.10 is required.\n"
            "### ROCm\n"
            "pip install torch --index-url https://download.pytorch.org/whl/rocm6.2\n")
    got = facts(prose.read_prose(text, "README.md"))
    assert got == [("version", "==2.4.1", "command", "any"), ("with", "torchvision", "command", "any"),
                   ("cuda", "cu126", "command", "any"), ("version", "==2.5.0", "command", "any"),
                   ("cuda", "cu130", "command", "any"), ("python", "3.8", "command", "any"),
                   ("version", "==1.10.1", "command", "any"), ("cuda", "cu113", "command", "any"),
                   ("cuda", "cu121", "command", "any"), ("python", "3.10", "command", "any"),
                   ("cuda", "rocm6.2", "command", "rocm")]
    assert prose.read_prose(text, "README.md")[0].where == "README.md:1"


def test_python_installer_constants_and_torch_command_are_read_without_running():
    text = ("import os, sys\nsys.exit('never run')\n"
            "torch_command = os.environ.get('TORCH_COMMAND', \"pip install torch==2.1.2 torchvision==0.16.2 "
            "--extra-index-url https://download.pytorch.org/whl/cu121\")\n"
            "PYTHON_VERSION = '3.10'\n")
    assert facts(scripts.read_python_script(text, "modules/launch_utils.py")) == [
        ("python", "3.10", "command", "any"), ("version", "==2.1.2", "command", "any"),
        ("with", "torchvision", "command", "any"), ("cuda", "cu121", "command", "any")]


def test_shell_installers_are_read_word_by_word_comments_skipped():
    text = "# pip install torch==1.0\npip install torch==2.0.1 ^\n  --index-url https://download.pytorch.org/whl/cu118\n"
    assert facts(scripts.read_shell_script(text, "install.bat")) == [
        ("version", "==2.0.1", "command", "any"), ("cuda", "cu118", "command", "any")]


UV_LOCK = '''version = 1
requires-python = ">=3.10"

[[package]]
name = "torch"
version = "2.7.0"
source = { registry = "https://pypi.org/simple" }
resolution-markers = ["sys_platform == 'darwin'"]

[[package]]
name = "torch"
version = "2.7.0+cu128"
source = { registry = "https://download.pytorch.org/whl/cu128" }
resolution-markers = ["sys_platform == 'linux'"]

[[package]]
name = "torchvision"
version = "0.22.0"
'''


def test_uv_lock_entries_carry_the_platform_they_serve():
    assert facts(locks.read_uv_lock(UV_LOCK)) == [
        ("version", "==2.7.0", "lock", "macos"), ("version", "==2.7.0", "lock", "linux"),
        ("cuda", "cu128", "lock", "linux"), ("with", "torchvision", "lock", "any"),
        ("python", ">=3.10", "range", "any")]


def test_poetry_pdm_pipfile_pixi_and_conda_locks():
    poetry = '[[package]]\nname = "torch"\nversion = "2.0.1+cu118"\n[package.source]\nurl = "https://download.pytorch.org/whl/cu118"\n'
    assert facts(locks.read_poetry_lock(poetry)) == [("version", "==2.0.1", "lock", "any"),
                                                     ("cuda", "cu118", "lock", "any")]
    pipfile = json.dumps({"_meta": {"requires": {"python_version": "3.9"}},
                          "default": {"torch": {"version": "==1.13.1"}}})
    assert facts(locks.read_pipfile_lock(pipfile)) == [("version", "==1.13.1", "lock", "any"),
                                                       ("python", "3.9", "lock", "any")]
    pixi = ("version: 6\npackages:\n- conda: https://conda.anaconda.org/conda-forge/linux-64/"
            "pytorch-2.4.1-cuda120_py311h1234_300.conda\n"
            "- pypi: https://download.pytorch.org/whl/cu121/torchvision-0.19.1%2Bcu121-cp311-cp311-linux_x86_64.whl\n")
    assert facts(locks.read_pixi_lock(pixi)) == [("version", "==2.4.1", "lock", "linux"),
                                                 ("cuda", "cu120", "lock", "linux"),
                                                 ("with", "torchvision", "lock", "linux")]
    conda = "package:\n- name: pytorch\n  version: 1.12.1\n  platform: osx-arm64\n  build: py3.9_0\n"
    assert facts(locks.read_conda_lock(conda)) == [("version", "==1.12.1", "lock", "macos")]


def test_dockerfile_bases_are_the_weakest_evidence():
    text = "FROM pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime\nFROM nvidia/cuda:11.8.0-devel-ubuntu22.04\n"
    assert facts(docker.read_dockerfile(text, "Dockerfile")) == [
        ("version", "==2.1.0", "image", "any"), ("cuda", "cu121", "image", "any"), ("cuda", "cu118", "image", "any")]


def test_poetry_tables_with_local_tags_keep_the_version():
    text = ('[tool.poetry.dependencies]\ntorch = { version = "^2.0.0+cu118", source = "pytorch" }\n'
            'torchvision = { version = "0.15.2+cu118", source = "pytorch" }\n'
            '[[tool.poetry.source]]\nname = "pytorch"\nurl = "https://download.pytorch.org/whl/cu118"\n'
            'priority = "explicit"\n')
    assert facts(pyproject.read_pyproject(text)) == [
        ("version", ">=2.0.0,<3.0.0", "range", "any"), ("cuda", "cu118", "tag", "any"),
        ("with", "torchvision", "pin", "any")]
    exact = '[tool.poetry.dependencies]\ntorch = { version = "2.0.1+cu118" }\n'
    assert facts(pyproject.read_pyproject(exact)) == [("version", "==2.0.1", "pin", "any"),
                                                      ("cuda", "cu118", "tag", "any")]


def test_pixi_features_without_torch_say_nothing_about_torch():
    text = ('[dependencies]\npython = "3.11.*"\n[feature.gpu.dependencies]\npytorch-gpu = ">=2.3"\n'
            'cuda-version = "12.4.*"\n[feature.cpu.dependencies]\npytorch-cpu = ">=2.3"\n'
            '[feature.jax.dependencies]\njax = "*"\ncuda-version = "12.2.*"\n')
    assert facts(pyproject.read_pixi_toml(text)) == [
        ("python", "3.11", "pin", "any"), ("version", ">=2.3", "range", "cuda"), ("cuda", "cu124", "pin", "cuda"),
        ("version", ">=2.3", "range", "cpu"), ("cuda", "cpu", "pin", "cpu")]


def test_conda_env_ranges_are_kept_as_pep440_specs():
    text = "dependencies:\n  - python >= 3.8\n  - pytorch >= 1.13\n  - pytorch-cuda=11.7\n  - numpy\n"
    reading = conda_env.read_conda_env(text, "environment.yml")
    assert facts(reading.records) == [("python", ">=3.8", "range", "any"), ("version", ">=1.13", "range", "any"),
                                      ("cuda", "cu117", "pin", "any")]
    assert reading.records[1].where == "environment.yml:3" and reading.not_installed == ("numpy",)


def test_requirements_and_setup_readers():
    reading = requirements_txt.read_requirements("-r base.txt\n--extra-index-url https://download.pytorch.org/whl/cu121\n"
                                             "torch==2.2.2+cu121\n", "requirements.txt")
    assert facts(reading.records) == [("cuda", "cu121", "pin", "any"), ("version", "==2.2.2", "pin", "any"),
                                      ("cuda", "cu121", "tag", "any")]
    assert reading.includes == ((1, "include", "base.txt"),)
    text = "from setuptools import setup\nsetup(install_requires=['torch>=1.8'], python_requires='>=3.8')\n"
    assert facts(setup.read_setup_py(text)) == [("version", ">=1.8", "range", "any"),
                                                ("python", ">=3.8", "range", "any")]


# --- the ranking -------------------------------------------------------------------------------------------

def rec(field, value, kind, file="f", target="any"):
    return Record(file, 1, field, value, kind, value, target)


def test_the_strongest_kind_decides_and_both_sides_of_a_conflict_are_named():
    d = rank.decide([rec("version", ">=2.5.1", "range", "pyproject.toml"), rec("version", "==2.6.0", "lock", "uv.lock"),
                     rec("version", "==2.5.0", "image", "Dockerfile")], "version")
    assert d.value == "==2.6.0" and d.by.file == "uv.lock"
    assert [r.file for r in d.agree] == ["pyproject.toml"]
    assert [(r.file, why) for r, why in d.set_aside] == [
        ("Dockerfile", "uv.lock:1 (lock file) is stronger evidence than this (Dockerfile base)")]
    d = rank.decide([rec("version", "==2.1.0", "pin", "a"), rec("version", "==2.2.0", "pin", "b")], "version")
    assert d.value == "==2.1.0" and "conflicts with a:1 (==2.1.0)" in d.set_aside[0][1]


def test_records_for_another_target_never_decide():
    d = rank.decide([rec("version", "==2.3.0", "pin", "npu.txt", "npu"), rec("version", "==2.4.0", "pin", "cuda.txt")],
                    "version", frozenset({"any", "linux", "cuda"}))
    assert d.value == "==2.4.0" and d.set_aside[0][1] == "meant for npu, not this target"


def test_several_tiers_at_the_top_are_candidates_and_cuda_is_auto():
    d = rank.decide([rec("cuda", "cpu", "pin"), rec("cuda", "cu128", "pin"), rec("cuda", "cu118", "image")], "cuda")
    assert (d.value, d.candidates) == ("auto", ("cpu", "cu128"))


def test_python_ranges_bound_and_their_floor_beats_python_version():
    d = rank.decide_python([rec("python", "3.8", "pin", ".python-version"),
                            rec("python", ">=3.10,<3.13", "range", "pyproject.toml")])
    assert d.value == "3.10" and "outside pyproject.toml:1 (>=3.10,<3.13)" in d.set_aside[0][1]
    assert rank.decide_python([rec("python", "3.11", "pin"), rec("python", ">=3.10", "range")]).value == "3.11"
    assert rank.decide_python([rec("python", ">=3.10", "range")]).value is None


# --- what init writes, one test per class of project -------------------------------------------------------

def test_1_readme_install_commands_any_case_give_the_pin_tier_and_python(tmp_path):
    torch = init_intent(tmp_path, {"readme.md": "Python 3.10 is required.\n```\npip install torch==2.4.1 "
                                                "torchvision==0.19.1 --index-url https://download.pytorch.org/whl/cu124\n```\n"})
    assert (torch.version, torch.cuda, torch.python, torch.with_) == ("==2.4.1", "cu124", "3.10", ("torchvision",))


def test_1_docs_install_page_with_a_conda_command(tmp_path):
    torch = init_intent(tmp_path, {"docs/INSTALL.rst": "conda create -n x python=3.8 pytorch==1.10.1 "
                                                       "cudatoolkit=11.3 -c pytorch\n"})
    assert (torch.version, torch.cuda, torch.python) == ("==1.10.1", "cu113", "3.8")


def test_2_installer_script_torch_command(tmp_path):
    torch = init_intent(tmp_path, {"launch.py": "import os\nTORCH_COMMAND = os.environ.get('TORCH_COMMAND', "
                                                "'pip install torch==2.1.2 torchvision==0.16.2 --extra-index-url "
                                                "https://download.pytorch.org/whl/cu121')\n",
                                   "webui.sh": "pip install xformers\n"})
    assert (torch.version, torch.cuda, torch.with_) == ("==2.1.2", "cu121", ("torchvision",))


def test_3_a_lock_beats_the_pyproject_floor_and_picks_this_targets_entry(tmp_path):
    import sys

    if sys.platform == "darwin":
        pytest.skip("the Linux entry of the lock is what this test checks")
    torch = init_intent(tmp_path, {"pyproject.toml": '[project]\nname = "x"\ndependencies = ["torch>=2.5.1"]\n',
                                   "uv.lock": UV_LOCK})
    assert (torch.version, torch.cuda, torch.with_) == ("==2.7.0", "cu128", ("torchvision",))


def test_4_poetry_local_tag_keeps_the_version(tmp_path):
    torch = init_intent(tmp_path, {"pyproject.toml": '[tool.poetry.dependencies]\ntorch = { version = "2.0.1+cu118", '
                                                     'source = "pytorch" }\n'})
    assert (torch.version, torch.cuda) == ("==2.0.1", "cu118")


def test_5_conda_ranges_and_a_conda_yaml_beside_requirements(tmp_path):
    torch = init_intent(tmp_path, {"requirements.txt": "numpy\n",
                                   "conda.yaml": "dependencies:\n  - python=3.9\n  - pytorch >= 1.13\n"})
    assert (torch.version, torch.python) == (">=1.13", "3.9")


def test_6_pixi_project_with_gpu_and_cpu_features(tmp_path):
    torch = init_intent(tmp_path, {"pixi.toml": '[feature.gpu.dependencies]\npytorch-gpu = "2.4.*"\ncuda-version = "12.4.*"\n'
                                                '[feature.jax.dependencies]\njax = "*"\ncuda-version = "12.2.*"\n'})
    assert (torch.version, torch.cuda) == ("==2.4.*", "cu124")


def test_7_several_torch_indexes_are_candidates_not_first_wins(tmp_path, capsys):
    torch = init_intent(tmp_path, {"pyproject.toml": (
        '[project]\nname = "x"\ndependencies = ["torch>=2.7"]\n[project.optional-dependencies]\ncpu = ["torch"]\n'
        'cu128 = ["torch"]\n[tool.uv.sources]\ntorch = [{ index = "pytorch-cpu", extra = "cpu" },\n'
        '  { index = "pytorch-cu128", extra = "cu128" }]\n'
        '[[tool.uv.index]]\nname = "pytorch-cpu"\nurl = "https://download.pytorch.org/whl/cpu"\nexplicit = true\n'
        '[[tool.uv.index]]\nname = "pytorch-cu128"\nurl = "https://download.pytorch.org/whl/cu128"\nexplicit = true\n')})
    assert torch.cuda == "auto"
    assert "the project names several tiers (cpu, cu128)" in capsys.readouterr().out
    assert "the project names cpu, cu128" in (tmp_path / "torchenv.toml").read_text()


def test_8_files_for_another_os_or_accelerator_are_skipped_and_named(tmp_path, capsys):
    write(tmp_path, {"requirements/runtime_cuda.txt": "torch==2.4.1\n", "requirements/runtime_ascend.txt": "torch==2.1.0\n",
                     "requirements/runtime_rocm.txt": "torch==2.3.0\n"})
    torch = init_intent(tmp_path, {"README.md": "pip install -r requirements_linux.txt\n"
                                                "pip install -r requirements_macos.txt\n",
                                   "requirements_linux.txt": "torch==2.5.1\n", "requirements_macos.txt": "mlx\n"})
    assert torch.version == "==2.5.1"
    assert load_project_intent(tmp_path).env.requirements == ("requirements_linux.txt",)
    out = capsys.readouterr().out
    assert "requirements_macos.txt: requirement file  ->  skipped: meant for macos, not linux" in out


def test_8_a_requirements_folder_of_accelerator_variants(tmp_path):
    init_intent(tmp_path, {"requirements/runtime_cuda.txt": "torch==2.4.1\n",
                           "requirements/runtime_ascend.txt": "torch==2.1.0\n",
                           "requirements/runtime_rocm.txt": "torch==2.3.0\n"})
    intent = load_project_intent(tmp_path)
    assert (intent.torch.version, intent.env.requirements) == ("==2.4.1", ("requirements/runtime_cuda.txt",))


def test_9_example_and_optional_extras_are_not_adopted(tmp_path, capsys):
    pyproj = ('[project]\nname = "pkg"\ndependencies = ["torch"]\n[project.optional-dependencies]\n'
              'cu121-torch240 = ["torch==2.4.0"]\nviz = ["matplotlib"]\n')
    init_intent(tmp_path, {"pyproject.toml": pyproj,
                           "README.md": "For example, if you have torch 2.4 and CUDA 12.1:\n"
                                        "pip install pkg[cu121-torch240]\n\npip install -e .[viz]  # optional\n"})
    assert load_project_intent(tmp_path).env.extras == ()
    assert "set aside" in capsys.readouterr().out


def test_10_requires_python_floor_beats_python_version(tmp_path):
    torch = init_intent(tmp_path, {"pyproject.toml": '[project]\nname = "x"\nrequires-python = ">=3.10,<3.13"\n',
                                   ".python-version": "3.8\n"})
    assert torch.python == "3.10"


def test_11_dockerfile_base_speaks_only_when_nothing_else_does(tmp_path):
    torch = init_intent(tmp_path, {"Dockerfile": "FROM pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime\n"})
    assert (torch.version, torch.cuda) == ("==2.1.0", "cu121")
    other = tmp_path / "other"
    other.mkdir()
    torch = init_intent(other, {"Dockerfile": "FROM pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime\n",
                                "requirements.txt": "torch==2.3.1\n"})
    assert (torch.version, torch.cuda) == ("==2.3.1", "cu121")


def test_init_json_gives_the_records_and_decisions(tmp_path, capsys):
    write(tmp_path, {"requirements.txt": "torch==2.4.1\n", "Dockerfile": "FROM pytorch/pytorch:2.1.0-cuda12.1-x\n"})
    assert main(["init", "-C", str(tmp_path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"file": "requirements.txt", "line": 1, "field": "version", "value": "==2.4.1", "kind": "pin",
            "strength": 5, "seen": "torch==2.4.1", "target": "any"} in data["records"]
    version = data["decisions"]["version"]
    assert version["value"] == "==2.4.1" and version["set_aside"][0]["record"]["file"] == "Dockerfile"


def test_installer_names_fstrings_and_per_gpu_branches():
    text = ("import os\nTORCH_VERSION = '2.9.1'\nindex = os.environ.get('TORCH_INDEX_URL', 'https://download.pytorch.org/whl/cu128')\n"
            "REQS = os.environ.get('REQS_FILE', 'requirements_versions.txt')\n"
            "def cmd(gpu):\n"
            "    base = f'pip install torch=={TORCH_VERSION} '\n"
            "    if gpu == 'NVIDIA':\n"
            "        return base + '--index-url ' + index\n"
            "    elif gpu == 'AMD':\n"
            "        return base + '--index-url https://download.pytorch.org/whl/rocm6.2'\n")
    got = facts(scripts.read_python_script(text, "one_click.py"))
    assert ("requirements", "requirements_versions.txt", "command", "any") in got
    assert ("cuda", "cu128", "command", "cuda") in got and ("cuda", "rocm6.2", "command", "rocm") in got
    assert ("version", "==2.9.1", "command", "any") in got


def test_prose_sets_aside_optional_and_example_commands_and_reads_floors_in_words():
    text = ("### Conda (Optional)\nconda create -n x python=3.11 pytorch-cuda=12.1 \\\n    pytorch torchvision -c pytorch\n\n"
            "## Install\nInstall [PyTorch](https://pytorch.org)>=1.8.0 following the official guide.\n"
            "Create an env with python 3.7 or 3.8 (3.8 recommended)\n")
    got = facts(prose.read_prose(text, "README.md"))
    assert {f for f, _v, kind, _t in got if kind == "ignored"} == {"python", "cuda", "with"}
    assert ("version", ">=1.8.0", "range", "any") in got and ("python", "3.8", "command", "any") in got


def test_extras_count_per_machine_and_companions_only_with_torch():
    text = ('[project]\nname = "x"\n[project.optional-dependencies]\nsrt = ["torch==2.8.0", "torchaudio"]\n'
            'srt_npu = ["torch==2.1.0"]\nasr = ["torchvision"]\ndev = ["torch==1.0"]\n')
    got = facts(pyproject.read_pyproject(text))
    assert got == [("version", "==2.8.0", "pin", "any"), ("with", "torchaudio", "pin", "any"),
                   ("version", "==2.1.0", "pin", "npu"), ("with", "torchvision", "ignored", "any")]


def test_dockerfile_python_base_and_a_wheel_url_in_run():
    text = ("FROM python:3.10.9-slim\nRUN pip install \\\n  https://download.pytorch.org/whl/cu118/"
            "torch-2.0.0%2Bcu118-cp310-cp310-linux_x86_64.whl torchvision\n")
    assert facts(docker.read_dockerfile(text, "Dockerfile")) == [
        ("python", "3.10", "image", "any"), ("version", "==2.0.0", "image", "any"), ("cuda", "cu118", "image", "any"),
        ("with", "torchvision", "image", "any")]


def test_an_argv_list_is_one_command_and_a_branch_for_several_oses_serves_any():
    text = ("import subprocess, sys\nif sys.platform.startswith('win') or sys.platform.startswith('linux'):\n"
            "    subprocess.check_call([sys.executable, '-m', 'pip', 'install', 'torch==2.0.1+cu118', '--index-url',"
            " 'https://download.pytorch.org/whl/cu118'])\n")
    got = facts(scripts.read_python_script(text, "post_install.py"))
    assert ("version", "==2.0.1", "command", "any") in got and ("cuda", "cu118", "command", "any") in got


def test_a_readme_gpu_route_beside_a_cpu_only_route_gives_the_gpu_tier(tmp_path):
    torch = init_intent(tmp_path, {"README.md": "With GPU\n```\nconda install pytorch torchvision pytorch-cuda=11.7 "
                                                "-c pytorch -c nvidia\n```\n\nOr CPU Only\n```\nconda install pytorch "
                                                "torchvision cpuonly -c pytorch\n```\n"})
    assert (torch.cuda, torch.with_) == ("cu117", ("torchvision",))


def test_an_installer_under_scripts_install_is_read(tmp_path):
    torch = init_intent(tmp_path, {"scripts/install/install_cu118.sh": "pip install torch==2.1.2 --index-url "
                                                                       "https://download.pytorch.org/whl/cu118\n"})
    assert (torch.version, torch.cuda) == ("==2.1.2", "cu118")


MALFORMED = ["", "\x00\xff", "package = 5\nrequires-python = 3\n", "[[package]]\nname = 1\nversion = 2\n", '{"default": [], "_meta": 3}', "package: 5\n",
             "packages: {a: 1}\n", "dependencies: 5\n", "dependencies:\n  - {pip: 3}\n  - 7\n", "[project]\ndependencies = 3\n",
             "[tool.poetry.dependencies]\ntorch = [1, {version = 2}]\n[tool.poetry]\nsource = 4\n",
             "[tool.uv]\nindex = [{url = 3}]\nsources = {torch = 5}\n", "[feature]\nx = 3\n", "FROM\nRUN pip install\n",
             "def f(:\n", "x = os.environ.get()\nif 'amd':\n  pass\n", "setup(install_requires=5, extras_require={1: 2})\n"]


@pytest.mark.parametrize("reader", [
    prose.read_prose, scripts.read_python_script, scripts.read_shell_script, docker.read_dockerfile,
    locks.read_uv_lock, locks.read_poetry_lock, locks.read_pipfile_lock, locks.read_pixi_lock, locks.read_conda_lock,
    pyproject.read_pyproject, pyproject.read_pixi_toml, setup.read_setup_py, setup.read_setup_cfg,
    lambda text, file: conda_env.read_conda_env(text, file).records,
    lambda text, file: requirements_txt.read_requirements(text, file).records])
def test_a_malformed_file_gives_no_records_rather_than_an_error(reader):
    for text in MALFORMED:
        got = reader(text, "f")
        assert got is None or all(isinstance(r, Record) for r in got)


def test_pixi_feature_indexes_are_tiers_for_the_machine_the_feature_names():
    text = ('[feature.cuda12.pypi-options]\nextra-index-urls = ["https://download.pytorch.org/whl/cu126"]\n'
            '[feature.rocm.pypi-options]\nextra-index-urls = ["https://download.pytorch.org/whl/rocm6.2"]\n')
    assert facts(pyproject.read_pixi_toml(text)) == [("cuda", "cu126", "pin", "cuda"), ("cuda", "rocm6.2", "pin", "rocm")]


def test_doc_pages_in_any_case_and_extension_but_not_scripts(tmp_path):
    from torchenv.intent.evidence import files

    write(tmp_path, {n: "x" for n in ("readme.md", "SETUP.md", "setup.py", "install.sh", "INSTALL",
                                       "docs/Installation.rst")})
    assert files.doc_files(tmp_path) == ["readme.md", "INSTALL", "SETUP.md", "docs/Installation.rst"]
