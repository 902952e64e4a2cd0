"""Which sources a plan gets: presets, the configuration chain and the supply-chain rule."""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from tests.support import build_index, make_wheel, serve_dir, sha256_of
from tests.support.cputime import cpu_time

from torchenv.errors import IntentError
from torchenv.intent.model import Intent, MirrorIntent
from torchenv.options import SourceOverrides
from torchenv.sources.select import select_sources

OFFICIAL_CU121 = "https://download.pytorch.org/whl/cu121"


def flags(**kw) -> SourceOverrides:
    return SourceOverrides(**kw)


def toml_intent(tmp_path: Path, **mirror) -> Intent:
    f = tmp_path / "proj" / "torchenv.toml"
    f.parent.mkdir(exist_ok=True)
    f.write_text("[mirror]\n")
    return Intent(mirror=MirrorIntent(**mirror), file=f)


def pip_conf(tmp_path, monkeypatch, text: str) -> Path:
    f = tmp_path / "pip.conf"
    f.write_text(text)
    monkeypatch.setenv("PIP_CONFIG_FILE", str(f))
    return f


def user_config(text: str) -> Path:
    from torchenv import paths

    f = paths.config_dir() / "config.toml"
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_text(text)
    return f


def test_nothing_configured_is_official_torch_and_plain_pypi():
    s = select_sources(Intent(), tier="cu121", platform="linux-x86_64")
    assert [t.url for t in s.torch] == [OFFICIAL_CU121]
    assert s.pypi.index_url is None and s.canonical_torch == "https://download.pytorch.org/whl"
    assert any("no mirror configured" in r for r in s.reasons)


def test_precedence_flag_toml_env_userconfig_pipconfig(tmp_path, monkeypatch):
    pip_conf(tmp_path, monkeypatch, "[global]\nindex-url = https://pip.example/simple\n")
    user_config('[mirror]\nuse = "ustc"\n')
    monkeypatch.setenv("TORCHENV_MIRROR", "bfsu")
    intent = toml_intent(tmp_path, use="huawei")

    def pypi(intent, overrides=None):
        return select_sources(intent, tier="cpu", platform="linux-x86_64", overrides=overrides).pypi

    assert pypi(intent, flags(mirror="tencent")).index_url == "https://mirrors.cloud.tencent.com/pypi/simple"
    assert pypi(intent, flags(mirror="tencent", pypi_mirror="https://flag.example/simple")).index_url \
        == "https://flag.example/simple"
    side = pypi(intent)
    assert side.index_url == "https://repo.huaweicloud.com/repository/pypi/simple"
    assert "torchenv.toml" in side.origin
    assert pypi(Intent()).index_url == "https://mirrors.bfsu.edu.cn/pypi/web/simple"
    monkeypatch.delenv("TORCHENV_MIRROR")
    side = pypi(Intent())
    assert side.index_url == "https://mirrors.ustc.edu.cn/pypi/simple" and "user config" in side.origin
    user_config("# nothing about mirrors\n")
    side = pypi(Intent())
    assert side.index_url == "https://pip.example/simple" and "pip config" in side.origin


def test_preset_without_torch_kind_falls_back_to_official():
    s = select_sources(Intent(), tier="cu121", platform="linux-x86_64", overrides=flags(mirror="tuna"))
    assert [t.name for t in s.torch] == ["official"]
    assert s.pypi.index_url == "https://pypi.tuna.tsinghua.edu.cn/simple"
    assert any("tuna" in r and "no PyTorch wheel mirror" in r for r in s.reasons)
    assert s.conda_mirrors["https://conda.anaconda.org/conda-forge"] == (
        "https://mirrors.tuna.tsinghua.edu.cn/anaconda/cloud/conda-forge", "https://conda.anaconda.org/conda-forge")


def test_torch_preset_then_fallbacks_then_official(tmp_path):
    intent = toml_intent(tmp_path, use="aliyun", fallback=("nju", "tuna"))
    s = select_sources(intent, tier="cu121", platform="linux-x86_64")
    assert [(t.name, t.url, t.layout) for t in s.torch] == [
        ("aliyun", "https://mirrors.aliyun.com/pytorch-wheels/cu121", "flat"),
        ("nju", "https://mirror.nju.edu.cn/pytorch/whl/cu121", "index"),
        ("official", OFFICIAL_CU121, "index")]
    assert any("torch sources tried in order" in r for r in s.reasons)


def test_explicit_torch_url_pinned_without_fallback(tmp_path):
    s = select_sources(Intent(), tier="cu121", platform="linux-x86_64",
                       overrides=flags(torch_mirror="https://intranet.example/whl/", torch_layout="flat"))
    assert [(t.url, t.layout) for t in s.torch] == [("https://intranet.example/whl/cu121", "flat")]
    assert any("not tried" in r for r in s.reasons)
    intent = toml_intent(tmp_path, torch="https://intranet.example/whl", fallback=("sjtu",))
    s = select_sources(intent, tier="cu121", platform="linux-x86_64")
    assert [t.name for t in s.torch] == ["custom", "sjtu", "official"]


def test_unknown_preset_names_its_layer(tmp_path, monkeypatch):
    intent = toml_intent(tmp_path, use="tsinghua")
    with pytest.raises(IntentError) as err:
        select_sources(intent, tier="cpu", platform="linux-x86_64")
    assert "torchenv.toml" in err.value.message and "mirror.use" in err.value.message
    assert "tuna" in err.value.hint
    monkeypatch.setenv("TORCHENV_MIRROR", "nope")
    with pytest.raises(IntentError, match="TORCHENV_MIRROR"):
        select_sources(Intent(), tier="cpu", platform="linux-x86_64")


def test_pypi_merge_keeps_user_extras_and_wheelhouse_drops_torch_index(tmp_path, monkeypatch):
    house = tmp_path / "wheelhouse"
    house.mkdir()
    pip_conf(tmp_path, monkeypatch, "[global]\nindex-url = https://pip.example/simple\n"
             "extra-index-url = https://private.example/simple https://download.pytorch.org/whl/cu118\n"
             f"find-links = {house}\n")
    s = select_sources(Intent(), tier="cu121", platform="linux-x86_64", overrides=flags(mirror="tuna"))
    assert s.pypi.index_url == "https://pypi.tuna.tsinghua.edu.cn/simple"
    assert s.pypi.extra_index_urls == ("https://private.example/simple",)
    assert s.pypi.find_links == (str(house),)
    assert s.wheelhouses == (str(house),)
    assert any("download.pytorch.org/whl/cu118" in r for r in s.reasons)


def test_auto_uses_fresh_choice_and_ignores_stale(tmp_path):
    from torchenv.sources.mirrors import save_choice

    ranking = {"pypi": [{"name": "fast", "url": "http://127.0.0.1:1/simple"}],
               "torch": [{"name": "fast", "base": "http://127.0.0.1:1/whl", "layout": "flat"}], "conda": []}
    save_choice(ranking)
    s = select_sources(Intent(), tier="cu121", platform="linux-x86_64", overrides=flags(mirror="auto"))
    assert [t.url for t in s.torch] == ["http://127.0.0.1:1/whl/cu121", OFFICIAL_CU121]
    assert s.pypi.index_url == "http://127.0.0.1:1/simple"
    save_choice(ranking, now=time.time() - 25 * 3600)
    s = select_sources(Intent(), tier="cu121", platform="linux-x86_64", overrides=flags(mirror="auto"))
    assert [t.url for t in s.torch] == [OFFICIAL_CU121]
    assert any("mirror use auto" in r for r in s.reasons)


def test_condarc_is_the_lowest_conda_layer(tmp_path, monkeypatch):
    rc = tmp_path / "condarc"
    rc.write_text("channels:\n  - conda-forge\n  - nodefaults\ncustom_channels:\n"
                  "  conda-forge: https://mirrors.ustc.edu.cn/anaconda/cloud  # USTC\n")
    monkeypatch.setenv("CONDARC", str(rc))
    s = select_sources(Intent(), tier="cpu", platform="linux-x86_64")
    assert s.conda_mirrors["https://conda.anaconda.org/conda-forge"][0] == \
        "https://mirrors.ustc.edu.cn/anaconda/cloud/conda-forge"
    intent = toml_intent(tmp_path, conda={"conda-forge": "https://mine.example/conda-forge"})
    s = select_sources(intent, tier="cpu", platform="linux-x86_64")
    assert s.conda_mirrors["https://conda.anaconda.org/conda-forge"] == ("https://mine.example/conda-forge",)


def test_select_sources_reads_no_network_and_is_fast(monkeypatch):
    import socket

    def forbidden(*a, **k):
        raise AssertionError("select_sources opened a connection")

    monkeypatch.setattr(socket, "create_connection", forbidden)
    with cpu_time() as spent:
        select_sources(Intent(), tier="cu121", platform="linux-x86_64", overrides=flags(mirror="aliyun"))
    assert spent.seconds < 0.2, f"{spent.seconds:.3f} CPU s"


# --- supply chain: a PyPI-side mirror that plants a torch wheel ------------------------------------

def test_planted_torch_on_pypi_mirror_is_never_used(tmp_path):
    from torchenv.sources.fetch import fetch
    from torchenv.sources.index import list_project_files
    from torchenv.sources.routing import allowed_url, route, torch_candidates

    tag = "cp311-cp311-linux_x86_64"
    real = make_wheel(tmp_path / "real", "torch", "2.4.1+cu121", tag=tag)
    planted = make_wheel(tmp_path / "planted", "torch", "2.4.1+cu121", tag=tag, requires=["evil-payload"])
    numpy = make_wheel(tmp_path / "planted", "numpy", "1.26.4", tag=tag)
    build_index(tmp_path / "pypi", {"torch": [planted], "numpy": [numpy]})
    (tmp_path / "torchmirror" / "cu121").mkdir(parents=True)
    (tmp_path / "torchmirror" / "cu121" / real.name).write_bytes(real.read_bytes())

    with serve_dir(tmp_path / "pypi") as pypi, serve_dir(tmp_path / "torchmirror") as torchm:
        s = select_sources(Intent(), tier="cu121", platform="linux-x86_64",
                           overrides=flags(pypi_mirror=pypi + "/simple", torch_mirror=torchm, torch_layout="flat"))
        # the PyPI side does offer a "torch" ...
        offered = list_project_files(s.pypi.index_url, "torch")
        assert [f.filename for f in offered] == [real.name]
        # ... but routing never sends a torch-family file there
        assert route("torch", "2.4.1+cu121", pypi_default_build=False) == "torch-index"
        cands = torch_candidates(s, real.name)
        assert cands and all(c.startswith(torchm) for c in cands)
        assert not allowed_url(s, real.name, offered[0].url)
        assert allowed_url(s, numpy.name, f"{pypi}/files/{numpy.name}")
        got = fetch(real.name, sha256_of(real), cands, cache=tmp_path / "cache")
        assert sha256_of(got) == sha256_of(real)
        assert not any(h.startswith("/files/torch") for h in pypi.hits)
    with pytest.raises(ValueError):
        torch_candidates(s, numpy.name)


def test_route_pypi_default_build_only_without_local_tag():
    from torchenv.sources.routing import is_torch_family, route

    assert route("torch", "2.4.1", pypi_default_build=True) == "pypi"
    assert route("torch", "2.4.1+cu121", pypi_default_build=True) == "torch-index"
    assert route("Pytorch_Triton", "3.0.0", pypi_default_build=False) == "torch-index"
    assert route("numpy", "1.26.4", pypi_default_build=False) == "pypi"
    assert is_torch_family("torchvision") and not is_torch_family("torchmetrics")


def test_wheelhouse_is_a_torch_source_for_exact_files(tmp_path, monkeypatch):
    from torchenv.sources.routing import torch_candidates

    house = tmp_path / "house"
    whl = make_wheel(house, "torch", "2.4.1+cu121", tag="cp311-cp311-linux_x86_64")
    pip_conf(tmp_path, monkeypatch, f"[global]\nfind-links = {house}\n")
    s = select_sources(Intent(), tier="cu121", platform="linux-x86_64")
    name = "torch-2.4.1%2Bcu121-cp311-cp311-linux_x86_64.whl"
    assert torch_candidates(s, whl.name) == [str(whl), f"{OFFICIAL_CU121}/{name}",
                                             f"https://download-r2.pytorch.org/whl/cu121/{name}"]   # its file host
    assert json.dumps(s.to_json())
