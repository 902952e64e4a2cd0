"""The user's own mirrors file (``torchenv mirror add``): named mirrors like the presets, logins kept out of it."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tests.support.cli import parse_args

from torchenv.errors import IntentError
from torchenv.intent.model import Intent, MirrorIntent
from torchenv.sources.mirrors import presets, user_mirrors_file
from torchenv.sources.select import select_sources


def mirror(*argv: str) -> int:
    args = parse_args("mirror", *argv)
    return args.func(args)


def intent(tmp_path: Path, **mirror_keys) -> Intent:
    f = tmp_path / "proj" / "torchenv.toml"
    f.parent.mkdir(exist_ok=True)
    f.write_text("[mirror]\n")
    return Intent(mirror=MirrorIntent(**mirror_keys), file=f)


def write_user_mirrors(text: str) -> Path:
    path = user_mirrors_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_a_user_mirror_is_a_preset_for_use_and_fallback(tmp_path):
    write_user_mirrors('[torch.lab-a]\nbase = "http://lab-a.example/whl"\n'
                       '[torch.lab-b]\nbase = "http://lab-b.example/pytorch"\nlayout = "flat"\n'
                       '[pypi.lab-a]\nurl = "http://lab-a.example/api/pypi/pypi-remote/simple"\n')
    s = select_sources(intent(tmp_path, use="lab-a", fallback=("lab-b",)), tier="cu126", platform="linux-x86_64")
    assert [(t.name, t.url, t.layout) for t in s.torch] == [
        ("lab-a", "http://lab-a.example/whl/cu126", "index"), ("lab-b", "http://lab-b.example/pytorch/cu126", "flat"),
        ("official", "https://download.pytorch.org/whl/cu126", "index")]
    assert s.pypi.index_url == "http://lab-a.example/api/pypi/pypi-remote/simple"


def test_a_user_entry_adds_a_kind_to_a_shipped_preset_and_keeps_its_others():
    write_user_mirrors('[torch.tuna]\nbase = "http://tuna-copy.example/whl"\n')
    tuna = presets()["tuna"]
    assert tuna.torch == "http://tuna-copy.example/whl" and tuna.user == ("torch",)
    assert tuna.pypi == "https://pypi.tuna.tsinghua.edu.cn/simple" and tuna.conda


def test_a_list_of_torch_urls_gives_every_mirror_of_the_same_files(tmp_path):
    s = select_sources(intent(tmp_path, torch=("http://a.example/whl", "http://b.example/whl/")),
                       tier="cu126", platform="linux-x86_64")
    assert [t.url for t in s.torch] == ["http://a.example/whl/cu126", "http://b.example/whl/cu126"]
    assert any("2 mirrors of the same files" in r for r in s.reasons), s.reasons


def test_a_list_of_pypi_urls_is_the_index_then_extra_indexes(tmp_path):
    s = select_sources(intent(tmp_path, pypi=("http://a.example/simple", "http://b.example/simple")),
                       tier="cpu", platform="linux-x86_64")
    assert s.pypi.all_indexes == ("http://a.example/simple", "http://b.example/simple")


def test_torchenv_toml_accepts_a_list_where_one_url_was_allowed_and_rejects_an_empty_one(tmp_path):
    from torchenv.intent.load import load_project_intent

    proj = tmp_path / "p"
    proj.mkdir()
    (proj / "torchenv.toml").write_text('[mirror]\ntorch = ["http://a.example/whl", "http://b.example/whl"]\n')
    assert load_project_intent(proj).mirror.torch == ("http://a.example/whl", "http://b.example/whl")
    (proj / "torchenv.toml").write_text("[mirror]\ntorch = []\n")
    with pytest.raises(IntentError) as err:
        load_project_intent(proj)
    assert "mirror.torch" in str(err.value.details) + err.value.message + str(err.value.hint)


def test_mirror_add_writes_the_file_and_keeps_the_login_in_netrc_only(capsys):
    secret = "tok-9f8e7d6c"
    assert mirror("add", "team", f"https://alice:{secret}@art.example/artifactory/api/pypi/pypi-remote/simple/",
                  "--kind", "pypi") == 0
    shown = capsys.readouterr()
    stored = user_mirrors_file().read_text()
    netrc = Path(os.environ["HOME"]) / ".netrc"
    assert secret not in shown.out + shown.err and secret not in stored and "alice" not in stored
    assert 'url = "https://art.example/artifactory/api/pypi/pypi-remote/simple"' in stored
    assert netrc.read_text() == f"machine art.example login alice password {secret}\n"
    assert oct(netrc.stat().st_mode & 0o777) == "0o600"
    assert presets()["team"].pypi == "https://art.example/artifactory/api/pypi/pypi-remote/simple"
    from torchenv.sources.credentials import credential_for

    assert credential_for("https://art.example/artifactory/api/pypi/pypi-remote/simple/torch/").password == secret


def test_mirror_add_keeps_the_files_comments_and_other_entries_and_lists_it_as_yours(capsys):
    write_user_mirrors("# our lab\n[torch.lab]\nbase = \"http://lab.example/whl\"\n")
    assert mirror("add", "nexus", "http://nexus.example/repository/pytorch", "--kind", "torch",
                  "--layout", "flat") == 0
    text = user_mirrors_file().read_text()
    assert text.startswith("# our lab\n") and "[torch.lab]" in text and 'layout = "flat"' in text
    capsys.readouterr()
    assert mirror("list", "--json") == 0
    torch_rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)["presets"]["torch"]}
    assert torch_rows["nexus"]["user"] and torch_rows["lab"]["user"] and not torch_rows["official"]["user"]


@pytest.mark.parametrize("name, url, says", [
    ("team", "ftp://files.example/whl", "not an http(s) URL"),
    ("auto", "https://x.example/whl", "cannot name a mirror"),
    ("team", "https://x.example/simple?token=abcdef123", "carries a secret"),
])
def test_mirror_add_refuses_bad_input_naming_it_and_writes_nothing(name, url, says, capsys):
    from torchenv.cli import main

    assert main(["mirror", "add", name, url, "--kind", "torch"]) == 2
    err = capsys.readouterr().err
    assert says in err and "abcdef123" not in err and "Traceback" not in err
    assert not user_mirrors_file().exists()


def test_fallback_names_a_user_mirror_and_an_unknown_name_says_how_to_add_one(tmp_path):
    with pytest.raises(IntentError) as err:
        select_sources(intent(tmp_path, fallback=("lab",)), tier="cpu", platform="linux-x86_64")
    assert "mirror add" in (err.value.hint or "")
    write_user_mirrors('[torch.lab]\nbase = "http://lab.example/whl"\n')
    s = select_sources(intent(tmp_path, fallback=("lab",)), tier="cpu", platform="linux-x86_64")
    assert "http://lab.example/whl/cpu" in [t.url for t in s.torch]


def test_mirror_use_takes_a_user_mirror_name(capsys):
    write_user_mirrors('[torch.lab]\nbase = "http://lab.example/whl"\n')
    assert mirror("use", "lab") == 0
    from torchenv.sources.mirrors import user_config_file

    assert 'use = "lab"' in user_config_file().read_text()
    s = select_sources(Intent(), tier="cpu", platform="linux-x86_64")
    assert s.torch[0].url == "http://lab.example/whl/cpu"
