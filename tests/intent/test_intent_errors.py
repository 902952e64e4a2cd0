"""Every way torchenv.toml can be wrong: the error names file, line and key, and says what to write."""
from __future__ import annotations

import pytest

from torchenv.cli import main
from torchenv.errors import IntentError

# (toml text, line, key, parts the message must contain, parts the hint must contain)
CASES = {
    "typo-key": ('[torch]\nverison = "2.4"\n', 2, "torch.verison",
                 ["unknown key 'verison'", "[torch]"], ["did you mean 'version'", "cuda"]),
    "typo-key-after-comments": ('# my project\n\n[env]\npath = ".venv"\n# the installer\ninstaler = "uv"\n', 6,
                                "env.instaler", ["unknown key 'instaler'"], ["'installer'"]),
    "typo-table": ('[torch]\nversion = "2.4"\n\n[envv]\npath = ".venv"\n', 4, "envv",
                   ["unknown table [envv]"], ["did you mean 'env'", "[mirror]"]),
    "key-outside-table": ('version = "2.4"\n', 1, "version", ["outside any table"], ["[torch]"]),
    "dotted-typo": ('torch.verison = "2.4"\n', 1, "torch.verison", ["unknown key"], ["'version'"]),
    "with-string": ('[torch]\nversion = "2.4"\nwith = "torchvision"\n', 3, "torch.with",
                    ["expected a list of strings", "got a string"], ['with = ["torchvision"]']),
    "with-numbers": ('[torch]\nwith = [1, 2]\n', 2, "torch.with", ["non-string items"], ['with = [']),
    "with-unknown": ('[torch]\nwith = ["torchtext"]\n', 2, "torch.with",
                     ["'torchtext'"], ["torchvision", "torchaudio"]),
    "with-typo": ('[torch]\nwith = ["torchvison"]\n', 2, "torch.with", ["'torchvison'"], ["'torchvision'"]),
    "cuda-near-miss": ('[torch]\ncuda = "cu12.1"\n', 2, "torch.cuda", ["'cu12.1'"], ['"cu121"']),
    "cuda-word": ('[torch]\ncuda = "cuda12.4"\n', 2, "torch.cuda", ["'cuda12.4'"], ['"cu124"']),
    "cuda-unknown": ('[torch]\ncuda = "vulkan"\n', 2, "torch.cuda", ["not a CUDA tier"], ['"cpu"', "rocm6.2"]),
    "cuda-number": ('[torch]\ncuda = 12.1\n', 2, "torch.cuda", ["expected a string", "number"], ["quote"]),
    "python-major-only": ('[torch]\npython = "3"\n', 2, "torch.python", ["'3'"], ['"3.11"']),
    "python-prefixed": ('[torch]\npython = "python3.11"\n', 2, "torch.python", ["'python3.11'"], ['"3.11"']),
    "python-patch": ('[torch]\npython = "3.12.1"\n', 2, "torch.python", ["'3.12.1'"], ['"3.12"']),
    "python-old": ('[torch]\npython = "3.7"\n', 2, "torch.python", ["3.8..3.15"], ['"3.11"']),
    "python-float": ('[torch]\npython = 3.10\n', 2, "torch.python", ["expected a string"], ["quote", "3.1"]),
    "version-bad-spec": ('[torch]\nversion = ">=2.*"\n', 2, "torch.version",
                         ["'>=2.*'", "PEP 440"], ['"2.4"', '">=2.3,<2.5"']),
    "version-garbage": ('[torch]\nversion = "latest"\n', 2, "torch.version", ["'latest'"], ['"2.4.1"']),
    "version-bad-clause": ('[torch]\nversion = ">=2.3,,<2.5"\n', 2, "torch.version", ["bad part"], ['"2.4"']),
    "version-local-tag": ('[torch]\nversion = "2.4.1+cu121"\n', 2, "torch.version",
                          ["local tag"], ['version = "2.4.1"', 'cuda = "cu121"']),
    "version-empty": ('[torch]\nversion = ""\n', 2, "torch.version", ["empty"], ["remove the key"]),
    "version-float": ('[torch]\nversion = 2.4\n', 2, "torch.version", ["expected a string"], ['version = "2.4"']),
    "experimental-string": ('[torch]\nexperimental = "yes"\n', 2, "torch.experimental",
                            ["expected true or false"], ["experimental = false"]),
    "policy-typo": ('[torch]\npolicy = "compatible"\n', 2, "torch.policy",
                    ["'compatible'", "compat, strict"], ["'compat'"]),
    "backend-unknown": ('[env]\nbackend = "docker"\n', 2, "env.backend", ["venv, conda, auto"], []),
    "installer-typo": ('[env]\ninstaller = "pipx"\n', 2, "env.installer", ["uv, pip"], ["'pip'"]),
    "requirements-string": ('[env]\nrequirements = "requirements.txt"\n', 2, "env.requirements",
                            ["expected a list of strings"], ['requirements = ["requirements.txt"]']),
    "env-path-empty": ('[env]\npath = ""\n', 2, "env.path", ["empty"], []),
    "layout-unknown": ('[mirror]\ntorch-layout = "tree"\n', 2, "mirror.torch-layout", ["index, flat"], []),
    "mirror-conda-not-strings": ('[mirror]\nconda = { "conda-forge" = 1 }\n', 2, "mirror.conda",
                                 ["name = \"URL\""], ["conda = {"]),
    "mirror-use-number": ('[mirror]\nuse = 3\n', 2, "mirror.use", ["expected a string"], []),
    "conda-source": ('[conda]\ntorch-source = "pip"\n', 2, "conda.torch-source", ["wheels, conda"], []),
    "conda-unknown-key": ('[conda]\nchannel = ["conda-forge"]\n', 2, "conda.channel",
                          ["unknown key 'channel'"], ["'channels'"]),
    "table-is-value": ('torch = "2.4"\n', 1, "torch", ["must be a table"], ["[torch]"]),
    "after-multiline-string": ('[env]\npath = """\n[torch]\nverison = 1\n"""\ninstaler = "uv"\n', 6,
                               "env.instaler", ["unknown key"], ["'installer'"]),
}


@pytest.mark.parametrize("text,line,key,message_parts,hint_parts", CASES.values(), ids=CASES.keys())
def test_error_names_file_line_key_and_what_to_write(load_text, tmp_path, text, line, key,
                                                     message_parts, hint_parts):
    err = load_text(text)
    assert isinstance(err, IntentError), f"expected an IntentError, got {err!r}"
    assert err.exit_code == 2
    assert err.file == str(tmp_path / "torchenv.toml")
    assert err.line == line
    assert err.key == key
    shown = str(err)
    assert shown.startswith(f"{tmp_path / 'torchenv.toml'}:{line}: ")
    for part in message_parts:
        assert part in err.message
    for part in hint_parts:
        assert part in (err.hint or "")
    assert err.hint, "every error says what to try"


@pytest.mark.parametrize("text,line,fragment", [
    ('[torch]\nversion = 2.4.1\n', 2, "Expected newline"),
    ('[torch]\ncuda = cu121\n', 2, "Invalid value"),
    ('[torch]\nversion = "2.4\ncuda = "auto"\n', 2, "Illegal character"),
    ('[torch]\nversion = "2.4"\nversion = "2.5"\n', 3, "Cannot overwrite"),
    ('[torch]\nversion = "2.4"\n[torch]\ncuda = "auto"\n', 3, "twice"),
    ('[torch\nversion = "2.4"\n', 1, ""),
    ('# comment\n\n[torch]\nwith = ["torchvision"', 4, "end of file"),
])
def test_malformed_toml_reports_the_line(load_text, tmp_path, text, line, fragment):
    err = load_text(text)
    assert isinstance(err, IntentError)
    assert err.line == line
    assert err.message.startswith(f"{tmp_path / 'torchenv.toml'}:{line}: invalid TOML")
    assert fragment in err.message
    assert "at line" not in err.message          # the line is in the prefix, said once
    assert 'cuda = "cu121"' in err.hint


def test_not_utf8_names_the_line(load_text):
    err = load_text(b'[torch]\nversion = "2.4"\n# caf\xe9\n')
    assert isinstance(err, IntentError)
    assert err.line == 3 and "UTF-8" in err.message and "UTF-8" in err.hint


def test_unreadable_path_is_an_intent_error(tmp_path):
    from torchenv.intent.load import load_intent_file

    (tmp_path / "torchenv.toml").mkdir()
    with pytest.raises(IntentError, match="cannot read"):
        load_intent_file(tmp_path / "torchenv.toml")


def test_missing_project_dir(tmp_path):
    from torchenv.intent.load import load_project_intent

    with pytest.raises(IntentError, match="does not exist") as info:
        load_project_intent(tmp_path / "nope")
    assert "-C DIR" in info.value.hint


def test_cli_reports_bad_flag_with_exit_2(tmp_path, capsys):
    code = main(["init", "-C", str(tmp_path), "--cuda", "cu12.1"])
    err = capsys.readouterr().err
    assert code == 2
    assert "--cuda" in err and "cu12.1" in err and '"cu121"' in err
    assert not (tmp_path / "torchenv.toml").exists(), "nothing is written when a flag is wrong"


def test_cli_json_error(tmp_path, capsys):
    import json

    code = main(["init", "-C", str(tmp_path), "--json", "--python", "python3.11"])
    out = json.loads(capsys.readouterr().out)
    assert code == 2
    assert out["key"] == "--python" and '"3.11"' in out["hint"]


def test_cli_error_text_keeps_table_names(tmp_path, capsys):
    from torchenv.intent.load import load_project_intent
    from torchenv.ui import Ui

    (tmp_path / "torchenv.toml").write_text("x = 1\n")
    with pytest.raises(IntentError) as info:
        load_project_intent(tmp_path)
    Ui().error(info.value.message, info.value.hint)      # what cli.main does with it
    assert "[x]" in capsys.readouterr().err
