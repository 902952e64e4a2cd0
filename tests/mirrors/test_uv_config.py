"""uv's own settings as the PyPI side (variables, uv.toml, ``[[tool.uv.index]]``), and plan says where each came from."""
from __future__ import annotations

from pathlib import Path

import pytest

from torchenv.intent.model import Intent
from torchenv.sources.select import select_sources

_UV_VARS = ("UV_INDEX_URL", "UV_EXTRA_INDEX_URL", "UV_DEFAULT_INDEX", "UV_INDEX", "UV_FIND_LINKS", "UV_CONFIG_FILE",
            "UV_NO_CONFIG")


@pytest.fixture(autouse=True)
def _no_uv_settings_of_this_machine(monkeypatch, tmp_path):
    for var in _UV_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("XDG_CONFIG_DIRS", str(tmp_path / "xdg-system"))


def project(tmp_path: Path, **files: str) -> Intent:
    proj = tmp_path / "proj"
    proj.mkdir(exist_ok=True)
    (proj / "torchenv.toml").write_text("[torch]\n")
    for name, text in files.items():
        (proj / name.replace("_", ".")).write_text(text)
    return Intent(file=proj / "torchenv.toml")


def pypi(intent: Intent):
    return select_sources(intent, tier="cpu", platform="linux-x86_64")


def test_project_pyproject_uv_indexes_are_the_pypi_side_and_plan_names_the_file(tmp_path):
    intent = project(tmp_path, pyproject_toml="""
[tool.uv]
[[tool.uv.index]]
name = "team"
url = "https://art.example/artifactory/api/pypi/pypi-remote/simple"
default = true
[[tool.uv.index]]
name = "internal"
url = "https://nexus.example/repository/internal/simple"
[[tool.uv.index]]
name = "pytorch"
url = "https://download.pytorch.org/whl/cu126"
explicit = true
""")
    s = pypi(intent)
    assert s.pypi.all_indexes == ("https://art.example/artifactory/api/pypi/pypi-remote/simple",
                                  "https://nexus.example/repository/internal/simple")
    said = "\n".join(s.reasons)
    assert f"uv settings ({intent.file.parent / 'pyproject.toml'} [tool.uv])" in said, said
    assert "explicit uv indexes" in said and "whl/cu126" in said


def test_variables_beat_files_and_user_uv_toml_is_read(tmp_path, monkeypatch):
    user = tmp_path / "xdg" / "uv" / "uv.toml"
    user.parent.mkdir(parents=True)
    user.write_text('index-url = "https://user.example/simple"\nextra-index-url = ["https://extra.example/simple"]\n')
    intent = project(tmp_path)
    assert pypi(intent).pypi.all_indexes == ("https://user.example/simple", "https://extra.example/simple")
    assert str(user) in pypi(intent).pypi.origin
    monkeypatch.setenv("UV_DEFAULT_INDEX", "https://env.example/simple")
    monkeypatch.setenv("UV_INDEX", "team=https://team.example/simple https://two.example/simple")
    side = pypi(intent).pypi
    assert side.all_indexes == ("https://env.example/simple", "https://team.example/simple", "https://two.example/simple")
    assert "UV_DEFAULT_INDEX" in side.origin and "UV_INDEX" in side.origin


def test_uv_settings_win_over_pip_config_and_say_so(tmp_path, monkeypatch):
    conf = tmp_path / "pip.conf"
    conf.write_text("[global]\nindex-url = https://pip.example/simple\nfind-links = /srv/team-wheels\n")
    monkeypatch.setenv("PIP_CONFIG_FILE", str(conf))
    monkeypatch.setenv("UV_INDEX_URL", "https://uv.example/simple")
    s = pypi(project(tmp_path))
    assert s.pypi.index_url == "https://uv.example/simple" and "/srv/team-wheels" in s.pypi.find_links
    assert any("uv's settings name the indexes" in r for r in s.reasons), s.reasons


def test_a_project_uv_toml_hides_pyproject_and_uv_no_config_skips_files(tmp_path, monkeypatch):
    intent = project(tmp_path, uv_toml='index-url = "https://uvtoml.example/simple"\n',
                     pyproject_toml='[tool.uv]\nindex-url = "https://pyproject.example/simple"\n')
    assert pypi(intent).pypi.index_url == "https://uvtoml.example/simple"
    monkeypatch.setenv("UV_NO_CONFIG", "1")
    assert pypi(intent).pypi.index_url is None


def test_a_login_in_uv_settings_never_reaches_the_plan(tmp_path, monkeypatch):
    monkeypatch.setenv("UV_INDEX_URL", "https://bot:tok-77aa88bb@art.example/simple")
    s = pypi(project(tmp_path))
    assert "tok-77aa88bb" not in repr(s.to_json()) and s.pypi.index_url == "https://art.example/simple"
