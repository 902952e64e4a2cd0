"""`torchenv init`: carries the project's torch pin over, explains itself, never overwrites silently."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from torchenv.cli import main
from torchenv.intent.load import load_project_intent
from torchenv.intent.model import Intent


def init(tmp: Path, *flags: str) -> int:
    return main(["init", "-C", str(tmp), *flags])


def write(tmp: Path, name: str, text: str) -> None:
    (tmp / name).parent.mkdir(parents=True, exist_ok=True)
    (tmp / name).write_text(text)


@pytest.mark.parametrize("requirements,version,cuda,with_", [
    ("torch==2.4.1+cu121\n", "==2.4.1", "cu121", ()),
    ("torch>=2.1,<2.3\nnumpy\n", ">=2.1,<2.3", "auto", ()),
    ("--index-url https://download.pytorch.org/whl/cu121\ntorch==2.3.*\ntorchvision\n", "==2.3.*", "cu121",
     ("torchvision",)),
    ("--extra-index-url=https://download.pytorch.org/whl/cu118\ntorch\ntorchaudio>=2\n", None, "cu118",
     ("torchaudio",)),
    ("-i https://mirrors.example.org/pytorch-wheels/rocm6.1/\ntorch~=2.4.0\n", "~=2.4.0", "rocm6.1", ()),
    ("torch==2.2.2+cpu ; sys_platform == 'linux'  # CPU build\ntorchvision==0.17.2+cpu\n", "==2.2.2", "cpu",
     ("torchvision",)),
    ("torch==2.4.0 \\\n    --hash=sha256:aaaa \\\n    --hash=sha256:bbbb\n", "==2.4.0", "auto", ()),
    ("torch @ https://download.pytorch.org/whl/cu121/torch-2.4.1%2Bcu121-cp311-cp311-linux_x86_64.whl\n",
     "==2.4.1", "cu121", ()),
    ("# nothing about torch\nrequests\n", None, "auto", ()),
])
def test_init_from_requirements(tmp_path, capsys, requirements, version, cuda, with_):
    write(tmp_path, "requirements.txt", requirements)
    assert init(tmp_path) == 0
    intent = load_project_intent(tmp_path)
    assert intent.torch.version == version
    assert intent.torch.cuda == cuda
    assert intent.torch.with_ == with_
    assert intent.env.requirements == ("requirements.txt",)
    out = capsys.readouterr().out
    assert "Wrote" in out and "torchenv.toml" in out
    if version or cuda != "auto":
        assert "requirements.txt:" in out, "init says which line each value came from"


def test_local_tag_beats_index_url_and_says_so(tmp_path, capsys):
    write(tmp_path, "requirements.txt", "--index-url https://download.pytorch.org/whl/cu118\ntorch==2.4.1+cu121\n")
    assert init(tmp_path) == 0
    assert load_project_intent(tmp_path).torch.cuda == "cu121"
    out = capsys.readouterr().out
    assert 'requirements.txt:2: torch==2.4.1+cu121  ->  cuda = "cu121" (local tag)' in out
    assert "requirements.txt:1" in out and "set aside: requirements.txt:2 (local tag) is stronger evidence" in out


def test_included_requirement_files_are_followed(tmp_path):
    write(tmp_path, "requirements.txt", "-r requirements/base.txt\nrich\n")
    write(tmp_path, "requirements/base.txt", "torch==2.3.1\ntorchvision==0.18.1\n")
    assert init(tmp_path) == 0
    intent = load_project_intent(tmp_path)
    assert intent.torch.version == "==2.3.1" and intent.torch.with_ == ("torchvision",)
    text = (tmp_path / "torchenv.toml").read_text()
    assert "# from requirements/base.txt:1" in text


def test_init_from_pyproject_dependencies(tmp_path, capsys):
    write(tmp_path, "pyproject.toml", '[project]\nname = "x"\ndependencies = ["torch>=2.2,<2.4", '
                                      '"torchvision", "numpy"]\n\n[[tool.uv.index]]\nname = "pytorch"\n'
                                      'url = "https://download.pytorch.org/whl/cu124"\n')
    assert init(tmp_path) == 0
    intent = load_project_intent(tmp_path)
    assert intent.torch.version == ">=2.2,<2.4"
    assert intent.torch.cuda == "cu124"
    assert intent.torch.with_ == ("torchvision",)
    assert intent.env.requirements == ()
    assert "[[tool.uv.index]]" in capsys.readouterr().out


UV_INDEXES = ('[[tool.uv.index]]\nname = "pytorch-cu121"\nurl = "https://download.pytorch.org/whl/cu121"\n'
              'explicit = true\n\n[[tool.uv.index]]\nname = "pytorch-cu124"\n'
              'url = "https://download.pytorch.org/whl/cu124"\nexplicit = true\n')


@pytest.mark.parametrize("sources,cuda", [
    ("", "auto"),                                                     # kornia 0.9.0: listed for whoever opts in
    ('[tool.uv.sources]\ntorch = { index = "pytorch-cu124" }\n', "cu124"),
    ("[tool.uv.sources]\ntorch = [{ index = \"pytorch-cu121\", marker = \"sys_platform == 'nowhere'\" },\n"
     "  { index = \"pytorch-cu124\", marker = \"sys_platform != 'nowhere'\" }]\n", "cu124"),
])
def test_an_explicit_uv_index_counts_only_when_torchs_source_names_it(tmp_path, capsys, sources, cuda):
    write(tmp_path, "pyproject.toml", '[project]\nname = "x"\ndependencies = ["torch>=2.5.1"]\n\n'
                                      + UV_INDEXES + "\n" + sources)
    assert init(tmp_path) == 0
    assert load_project_intent(tmp_path).torch.cuda == cuda
    assert "whl/cu121  ->  ignored: an explicit index, and no torch source entry names it" in capsys.readouterr().out


def test_an_explicit_poetry_source_counts_only_for_the_package_that_names_it(tmp_path):
    source = '[[tool.poetry.source]]\nname = "{name}"\nurl = "https://download.pytorch.org/whl/{tier}"\n' \
             'priority = "explicit"\n'
    write(tmp_path, "pyproject.toml", '[tool.poetry.dependencies]\npython = "^3.10"\n'
                                      'torch = { version = "^2.4", source = "torch-cu118" }\n\n'
                                      + source.format(name="other-cu124", tier="cu124") + "\n"
                                      + source.format(name="torch-cu118", tier="cu118"))
    assert init(tmp_path) == 0
    assert load_project_intent(tmp_path).torch.cuda == "cu118"


@pytest.mark.parametrize("poetry,version", [
    ('torch = "^2.1"', ">=2.1,<3.0"),
    ('torch = { version = "~2.3", source = "pytorch" }', ">=2.3,<2.4"),
    ('torch = "2.2.1"', "==2.2.1"),
    ('torch = "*"', None),
])
def test_init_from_poetry(tmp_path, poetry, version):
    write(tmp_path, "pyproject.toml", f'[tool.poetry.dependencies]\npython = "^3.10"\n{poetry}\n'
                                      'torchaudio = "^2.1"\n')
    assert init(tmp_path) == 0
    intent = load_project_intent(tmp_path)
    assert intent.torch.version == version
    assert intent.torch.with_ == ("torchaudio",)


def test_python_version_file(tmp_path):
    write(tmp_path, ".python-version", "3.11.9\n")
    assert init(tmp_path) == 0
    assert load_project_intent(tmp_path).torch.python == "3.11"


def test_broken_pyproject_does_not_stop_init(tmp_path):
    write(tmp_path, "pyproject.toml", "[project\n")
    write(tmp_path, "requirements.txt", "torch==2.4.1\n")
    assert init(tmp_path) == 0
    assert load_project_intent(tmp_path).torch.version == "==2.4.1"


def test_empty_project_gets_a_commented_default_file(tmp_path, capsys):
    assert init(tmp_path) == 0
    text = (tmp_path / "torchenv.toml").read_text()
    intent = load_project_intent(tmp_path)
    assert intent.torch.version is None and intent.torch.cuda == "auto"
    assert intent.hash() == Intent().hash()
    assert '# version = "2.4"' in text and "# [mirror]" in text and 'cuda = "auto"' in text
    assert "No torch pin found" in capsys.readouterr().out


def test_flags_override_what_was_found(tmp_path):
    write(tmp_path, "requirements.txt", "torch==2.4.1+cu121\n")
    assert init(tmp_path, "--torch", "2.5", "--cuda", "cpu", "--with", "torchaudio", "--mirror", "tuna") == 0
    intent = load_project_intent(tmp_path)
    assert intent.torch.version == "==2.5.*" and intent.torch.cuda == "cpu"
    assert intent.torch.with_ == ("torchaudio",) and intent.mirror.use == "tuna"
    text = (tmp_path / "torchenv.toml").read_text()
    assert "from requirements.txt" not in text.split("version =")[1].splitlines()[0]


def test_refuses_to_overwrite_and_leaves_bytes_identical(tmp_path, capsys):
    old = b'# hand-written\r\n[torch]\r\nversion = "2.3"\r\n'
    (tmp_path / "torchenv.toml").write_bytes(old)
    write(tmp_path, "requirements.txt", "torch==2.4.1\n")
    assert init(tmp_path) == 2
    assert (tmp_path / "torchenv.toml").read_bytes() == old
    assert not list(tmp_path.glob("torchenv.toml.bak*"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["requirements.txt", "torchenv.toml"]
    err = capsys.readouterr().err
    assert "already exists" in err and "--force" in err


def test_force_keeps_a_backup_and_never_loses_an_older_one(tmp_path, capsys):
    first = b'[torch]\nversion = "2.3"\n'
    (tmp_path / "torchenv.toml").write_bytes(first)
    write(tmp_path, "requirements.txt", "torch==2.4.1\n")
    assert init(tmp_path, "--force") == 0
    assert (tmp_path / "torchenv.toml.bak").read_bytes() == first
    assert load_project_intent(tmp_path).torch.version == "==2.4.1"
    assert "torchenv.toml.bak" in capsys.readouterr().out

    second = b'[torch]\nversion = "2.2"\n'
    (tmp_path / "torchenv.toml").write_bytes(second)
    assert init(tmp_path, "--force") == 0
    assert (tmp_path / "torchenv.toml.bak").read_bytes() == first
    assert (tmp_path / "torchenv.toml.bak.1").read_bytes() == second
    assert not list(tmp_path.glob(".*.tmp")), "no temp files left behind"


def test_json_output(tmp_path, capsys):
    write(tmp_path, "requirements.txt", "torch==2.4.1+cu121\n")
    assert init(tmp_path, "--json") == 0
    out = json.loads(capsys.readouterr().out)
    assert out["file"] == str(tmp_path.resolve() / "torchenv.toml")
    assert out["intent"]["torch"]["version"] == "==2.4.1" and out["intent"]["torch"]["cuda"] == "cu121"
    assert any(f["where"] == "requirements.txt:1" for f in out["found"])


def test_missing_project_dir(tmp_path, capsys):
    assert init(tmp_path / "nope") == 2
    assert "does not exist" in capsys.readouterr().err


def test_written_file_explains_each_key(tmp_path):
    assert init(tmp_path) == 0
    text = (tmp_path / "torchenv.toml").read_text()
    for key in ("version", "cuda", "python", "with", "policy", "experimental", "path", "backend", "installer",
                "requirements"):
        lines = text.splitlines()
        at = next(i for i, line in enumerate(lines) if line.lstrip("# ").startswith(f"{key} ="))
        assert lines[at - 1].startswith("# "), f"{key} has a comment above it"
