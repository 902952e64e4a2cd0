"""Env-local pip.conf / .condarc, the .condarc reader and the shipped .condarc.example."""
from __future__ import annotations

import configparser
from pathlib import Path

from torchenv.sources.condarc import mirrors_from_condarc, parse_condarc
from torchenv.sources.envconfig import write_condarc, write_venv_pip_conf
from torchenv.sources.model import PypiSide, Sources, TorchSource

ROOT = Path(__file__).resolve().parents[2]


def sources() -> Sources:
    return Sources(
        torch=(TorchSource("https://mirrors.aliyun.com/pytorch-wheels/cu121", "flat", "aliyun"),),
        pypi=PypiSide(index_url="https://pypi.tuna.tsinghua.edu.cn/simple",
                      extra_index_urls=("https://private.example/simple",), find_links=("/data/wheels",)),
        conda_mirrors={"https://conda.anaconda.org/conda-forge": (
            "https://mirrors.tuna.tsinghua.edu.cn/anaconda/cloud/conda-forge",
            "https://mirrors.ustc.edu.cn/anaconda/cloud/conda-forge",
            "https://conda.anaconda.org/conda-forge")})


def test_venv_pip_conf_has_pypi_side_but_not_torch_index(tmp_path):
    path = write_venv_pip_conf(tmp_path / ".venv", sources())
    assert path == tmp_path / ".venv" / "pip.conf"
    cfg = configparser.RawConfigParser()
    cfg.read(path)
    assert cfg.get("global", "index-url") == "https://pypi.tuna.tsinghua.edu.cn/simple"
    assert cfg.get("global", "extra-index-url").split() == ["https://private.example/simple"]
    assert cfg.get("global", "find-links").split() == ["/data/wheels"]
    assert "pytorch-wheels" not in path.read_text()
    # and torchenv's own pip-config reader agrees
    from torchenv.sources.pipconfig import read_pip_config

    side = read_pip_config(environ={}, files=[path])
    assert side.index_url == "https://pypi.tuna.tsinghua.edu.cn/simple"


def test_prefix_condarc_round_trips(tmp_path):
    path = write_condarc(tmp_path / "env", sources(), ["conda-forge", "nodefaults"])
    data = parse_condarc(path.read_text())
    assert data["channels"] == ["conda-forge", "nodefaults"]
    assert data["custom_channels"] == {"conda-forge": "https://mirrors.tuna.tsinghua.edu.cn/anaconda/cloud"}
    assert data["mirrored_channels"]["conda-forge"][-1] == "https://conda.anaconda.org/conda-forge"
    routed = mirrors_from_condarc(data)["https://conda.anaconda.org/conda-forge"]
    assert routed[0] == "https://mirrors.tuna.tsinghua.edu.cn/anaconda/cloud/conda-forge"


def test_condarc_reader_subset():
    text = """
# comment
channels: [conda-forge, "https://mirror.example/anaconda/cloud/pytorch"]
channel_alias: https://mirrors.example/anaconda/cloud   # trailing comment
default_channels:
  - https://mirrors.example/anaconda/pkgs/main
  - 'https://mirrors.example/anaconda/pkgs/r'
custom_channels:
  bioconda: https://mirrors.example/anaconda/cloud
mirrored_channels:
  conda-forge:
    - https://a.example/conda-forge
    - https://b.example/conda-forge
  nvidia: [https://c.example/nvidia]
show_channel_urls: true
"""
    data = parse_condarc(text)
    assert data["channels"][1] == "https://mirror.example/anaconda/cloud/pytorch"
    assert data["default_channels"][1] == "https://mirrors.example/anaconda/pkgs/r"
    m = mirrors_from_condarc(data)
    assert m["https://conda.anaconda.org"] == ["https://mirrors.example/anaconda/cloud"]
    assert m["https://repo.anaconda.com/pkgs/main"] == ["https://mirrors.example/anaconda/pkgs/main"]
    assert m["https://conda.anaconda.org/bioconda"] == ["https://mirrors.example/anaconda/cloud/bioconda"]
    assert m["https://conda.anaconda.org/pytorch"] == ["https://mirror.example/anaconda/cloud/pytorch"]
    assert m["https://conda.anaconda.org/conda-forge"] == ["https://a.example/conda-forge", "https://b.example/conda-forge"]
    assert m["https://conda.anaconda.org/nvidia"] == ["https://c.example/nvidia"]


def test_shipped_condarc_example_is_conda_forge_via_tuna():
    data = parse_condarc((ROOT / ".condarc.example").read_text())
    assert data["channels"] == ["conda-forge", "nodefaults"]
    m = mirrors_from_condarc(data)
    assert m["https://conda.anaconda.org/conda-forge"][0] == \
        "https://mirrors.tuna.tsinghua.edu.cn/anaconda/cloud/conda-forge"
