"""`torchenv completion SHELL`: bash completes verbs, flags, choices and export kinds from the real parser."""
from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from tests.support.skips import unavailable

from torchenv.cli import main


def _script(shell: str, capsys) -> str:
    assert main(["completion", shell]) == 0
    return capsys.readouterr().out


def complete(script: str, line: str, tmp_path) -> list[str]:
    """What bash offers for ``line`` (the cursor at its end), through the completion function itself."""
    (tmp_path / "completion.bash").write_text(script)
    words = line.split(" ")
    probe = (f"source {tmp_path / 'completion.bash'}\n"
             f"COMP_WORDS=({' '.join(repr(w) for w in words)}); COMP_CWORD={len(words) - 1}\n"
             "_torchenv; printf '%s\\n' \"${COMPREPLY[@]}\"")
    done = subprocess.run(["bash", "-c", probe], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return [w for w in done.stdout.splitlines() if w]


@pytest.mark.parametrize("line,offered", [
    ("torchenv ex", ["export"]),
    ("torchenv co", ["completion"]),
    ("torchenv export py", ["pylock"]),
    ("torchenv export module", ["modulefile", "modulefile-lua"]),
    ("torchenv up --fro", ["--from", "--frozen"]),
    ("torchenv up --froz", ["--frozen"]),
    ("torchenv up --backend co", ["conda"]),
    ("torchenv completion ", ["bash", "fish", "zsh"]),
    ("torchenv mirror u", ["use"]),
])
def test_bash_offers_what_the_parser_accepts(capsys, tmp_path, line, offered):
    assert sorted(complete(_script("bash", capsys), line, tmp_path)) == offered


def test_bash_completes_files_after_a_path_option(capsys, tmp_path):
    (tmp_path / "pylock.toml").write_text("")
    assert complete(_script("bash", capsys), "torchenv export pylock -o pyl", tmp_path) == ["pylock.toml"]


def test_a_new_flag_is_offered_without_touching_the_script(capsys, tmp_path, monkeypatch):
    from torchenv.commands import export

    register = export.register

    def with_extra(sub):
        register(sub)
        sub.choices["export"].add_argument("--brand-new", action="store_true")

    monkeypatch.setattr(export, "register", with_extra)
    assert complete(_script("bash", capsys), "torchenv export --brand", tmp_path) == ["--brand-new"]


@pytest.mark.parametrize("shell,probe,offered", [
    ("fish", 'source {script}; complete -C "torchenv export py"; complete -C "torchenv up --backend "',
     ["pylock", "auto", "conda", "venv"]),
    ("zsh", "source {script}; complete -p torchenv", ["complete -o filenames -F _torchenv torchenv"]),
])
def test_zsh_and_fish_load_the_completion(capsys, tmp_path, shell, probe, offered):
    script = tmp_path / f"torchenv.{shell}"
    script.write_text(_script(shell, capsys))
    if shutil.which(shell) is None:
        unavailable(f"{shell} is not installed here (.ci/run installs it)")
    done = subprocess.run([shell, "-c", probe.format(script=script)], capture_output=True, text=True,
                          cwd=tmp_path, env={**os.environ, "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert set(offered) <= {line.split("\t")[0] for line in done.stdout.splitlines()}
