"""Valid torchenv.toml files load into the Intent the resolver will see."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from torchenv.intent.load import load_project_intent
from torchenv.intent.model import CondaIntent, EnvIntent, Intent, MirrorIntent, TorchIntent

FULL = '''
[torch]
version = "2.4"
cuda = "12.1"
python = "3.11"
with = ["torchvision", "torchaudio"]
policy = "strict"
experimental = true

[env]
path = "envs/gpu"
backend = "conda"
installer = "pip"
requirements = ["requirements.txt", "requirements-dev.txt"]

[mirror]
use = "tuna"
pypi = "https://example/simple"
torch = "https://example/pytorch-wheels"
torch-layout = "flat"
conda = { "conda-forge" = "https://example/conda-forge" }
fallback = ["aliyun"]

[conda]
channels = ["conda-forge", "nvidia"]
packages = ["cuda-nvcc"]
torch-source = "conda"
'''


def test_every_key_of_the_schema(load_text, tmp_path):
    intent = load_text(FULL)
    assert intent == Intent(
        torch=TorchIntent(version="==2.4.*", cuda="cu121", python="3.11", with_=("torchaudio", "torchvision"),
                          policy="strict", allow_experimental=True),
        env=EnvIntent(path="envs/gpu", backend="conda", installer="pip",
                      requirements=("requirements.txt", "requirements-dev.txt")),
        mirror=MirrorIntent(use="tuna", pypi="https://example/simple", torch="https://example/pytorch-wheels",
                            torch_layout="flat", conda={"conda-forge": "https://example/conda-forge"},
                            fallback=("aliyun",)),
        conda=CondaIntent(channels=("conda-forge", "nvidia"), packages=("cuda-nvcc",), torch_source="conda"),
        file=(tmp_path / "torchenv.toml").resolve(), project=tmp_path.resolve())


def test_no_file_means_defaults_for_that_directory(tmp_path):
    intent = load_project_intent(tmp_path)
    assert intent.file is None
    assert intent.project_dir == tmp_path.resolve()
    assert intent.torch == TorchIntent() and intent.env == EnvIntent()


def test_empty_and_comment_only_files_are_defaults(load_text, tmp_path):
    for text in ("", "# nothing yet\n\n", "\ufeff# saved by Notepad with a BOM\n"):
        intent = load_text(text)
        assert isinstance(intent, Intent), intent
        assert intent.file == (tmp_path / "torchenv.toml").resolve()
        assert intent.hash() == Intent().hash()


def test_only_some_tables(load_text):
    intent = load_text('[env]\ninstaller = "pip"\n')
    assert intent.env.installer == "pip" and intent.torch == TorchIntent()


def test_values_are_normalised(load_text):
    intent = load_text('[torch]\nversion = ">= 2.3 , <2.5"\ncuda = "CU118"\nwith = ["TorchVision", "torchvision"]\n'
                       'policy = "Strict"\n')
    assert intent.torch.version == ">=2.3,<2.5"
    assert intent.torch.cuda == "cu118"
    assert intent.torch.with_ == ("torchvision",)
    assert intent.torch.policy == "strict"


def test_dotted_and_inline_tables_are_the_same_intent(load_text):
    a = load_text('[torch]\nversion = "2.4.1"\ncuda = "cpu"\n')
    b = load_text('torch.version = "2.4.1"\ntorch.cuda = "cpu"\n')
    c = load_text('torch = { cuda = "cpu", version = "==2.4.1" }\n')
    assert a.torch == b.torch == c.torch


def test_hash_ignores_comments_key_order_and_location(tmp_path, load_text):
    a = load_text('[torch]\nversion = "2.4"\ncuda = "cu121"\n')
    b = load_text('# a comment\n[torch]\ncuda = "12.1"   # same tier\nversion = "==2.4.*"\n')
    assert a.hash() == b.hash()
    assert a.hash() != load_text('[torch]\nversion = "2.5"\ncuda = "cu121"\n').hash()


def test_intent_from_args_reads_the_project_dir(tmp_path):
    import argparse

    from torchenv.commands._options import intent_from_args

    (tmp_path / "torchenv.toml").write_text('[torch]\nversion = "2.3"\n')
    intent = intent_from_args(argparse.Namespace(project=str(tmp_path), cuda="cpu"))
    assert intent.torch.version == "==2.3.*" and intent.torch.cuda == "cpu"
    assert intent.project_dir == tmp_path.resolve()


def test_loading_a_plain_file_stays_light(tmp_path):
    """The no-op `up` path reads torchenv.toml: common specs must not pull in packaging or tomlkit."""
    (tmp_path / "torchenv.toml").write_text('[torch]\nversion = ">=2.3,<2.5"\ncuda = "12.4"\nwith = ["torchvision"]\n')
    code = ("import sys; from torchenv.intent.load import load_project_intent as l; l(sys.argv[1]); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('packaging', 'tomlkit', 'rich', 'difflib')))")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_project_intent_of_relative_dir(tmp_path, monkeypatch):
    (tmp_path / "torchenv.toml").write_text('[torch]\ncuda = "cpu"\n')
    monkeypatch.chdir(tmp_path)
    intent = load_project_intent(".")
    assert intent.file == Path(tmp_path / "torchenv.toml").resolve()
