"""Hostile names: a folder, env or channel named to run code never runs it.

A project cloned into ``x$(touch PWNED)y`` (or with backticks, quotes, a newline) is read by
every file torchenv writes for another program: the ``torchenv shell`` rcfile and prompt, the
env's ``.condarc`` and ``pip.conf``, the CI job and container recipe that name a bundle. Each
test starts the real reader where it is on this machine (bash, dash, tclsh) or parses the
file the way its reader does, and asserts nothing ran and the literal name survived.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tests.support.skips import unavailable

NAMES = [pytest.param("x$(touch PWNED)y", id="dollar-paren"),
         pytest.param("x`touch PWNED`y", id="backticks"),
         pytest.param("x\"; touch PWNED; \"y", id="double-quote"),
         pytest.param("x'; touch PWNED; 'y", id="single-quote"),
         pytest.param("x\ntouch PWNED\ny", id="newline")]


def _fake_venv(root: Path, folder: str) -> Path:
    env = root / folder / ".venv"
    (env / "bin").mkdir(parents=True)
    (env / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (env / "bin" / "python").symlink_to(sys.executable)
    return env


def _pwned(root: Path) -> list[str]:
    return [str(p.relative_to(root)) for p in root.rglob("PWNED*")]


@pytest.mark.parametrize("folder", NAMES)
@pytest.mark.parametrize("shell", ["bash", "dash"])
@pytest.mark.fault("project folder named to run code ({folder!r}) under `torchenv shell`",
                   where="`torchenv shell` starting {shell} with the env activated",
                   expect="the prompt shows the name with shell characters replaced; nothing runs")
def test_shell_prompt_never_runs_the_folder_name(tmp_path, folder, shell, observed):
    from torchenv.activation import activated_environ, find_env
    from torchenv.commands.shell import shell_argv

    binary = shutil.which(shell)
    if binary is None:
        unavailable(f"{shell} is not installed here")
    home = tmp_path / "home"
    home.mkdir()
    env = find_env(_fake_venv(tmp_path, folder))
    environ = activated_environ(env) | {"HOME": str(home), "ENV": ""}
    argv, cleanup = shell_argv(binary, env.name, environ)
    show = 'printf "%s" "${PS1@P}"' if shell == "bash" else 'printf "%s" "$PS1"'
    try:
        r = subprocess.run([*argv, "-c", show], env=environ, cwd=tmp_path, capture_output=True, text=True,
                           timeout=60)
    finally:
        for path in cleanup:
            path.unlink(missing_ok=True)
    assert _pwned(tmp_path) == [], r.stderr
    assert "syntax error" not in r.stderr, r.stderr
    assert r.stdout.startswith(f"({env.name}) "), (r.stdout, r.stderr)
    assert "$" not in env.name and "`" not in env.name and "\n" not in env.name
    observed(f"prompt {r.stdout.splitlines()[0][:40]!r}; nothing ran")


@pytest.mark.parametrize("folder", NAMES)
@pytest.mark.fault("env folder named to run code ({folder!r}) in VIRTUAL_ENV_PROMPT",
                   where="`torchenv run` / `shell` environment read by prompt themes",
                   expect="VIRTUAL_ENV_PROMPT holds no shell or prompt character")
def test_virtual_env_prompt_is_inert(tmp_path, folder, observed):
    from torchenv.activation import activated_environ, find_env

    environ = activated_environ(find_env(_fake_venv(tmp_path, folder)), base={"PATH": os.defpath})
    label = environ["VIRTUAL_ENV_PROMPT"]
    assert not set(label) & set("$`\"'\\%\n!"), label
    observed(f"VIRTUAL_ENV_PROMPT={label!r}")


@pytest.mark.fault("conda channel named to add config keys (a quote and a newline)",
                   where="`up` writing the conda env's `.condarc`",
                   expect="the channel stays one quoted YAML value; no key such as channel_alias appears")
def test_condarc_channel_name_stays_one_value(observed):
    from torchenv.sources.envconfig import condarc_text
    from torchenv.sources.model import Sources

    hostile = 'conda-forge"\nchannel_alias: http://attacker.invalid\n"x'
    text = condarc_text(Sources(torch=()), ["pytorch", hostile])
    keys = [line.split(":")[0] for line in text.splitlines() if line and not line.startswith((" ", "#"))]
    assert keys == ["channels", "show_channel_urls"], text
    import json
    assert f"  - {json.dumps(hostile)}" in text.splitlines()
    observed("channel written as one JSON-quoted scalar")


@pytest.mark.fault("index URL with a newline that would add a pip.conf key", where="`up` writing the env's pip.conf",
                   expect="refused with the URL named; no pip.conf written")
def test_pip_conf_refuses_a_url_with_a_newline(tmp_path, observed):
    from torchenv.errors import SourceError
    from torchenv.sources.envconfig import write_venv_pip_conf
    from torchenv.sources.model import PypiSide, Sources

    side = PypiSide(index_url="https://mirror.example/simple\ntrusted-host = attacker.invalid")
    with pytest.raises(SourceError) as err:
        write_venv_pip_conf(tmp_path, Sources(torch=(), pypi=side))
    assert "mirror.example" in str(err.value) and "newline" in str(err.value)
    assert not (tmp_path / "pip.conf").exists()
    observed(" ".join(str(err.value).split())[:140])


@pytest.mark.parametrize("flag,value", [("--bundle", "x$(touch PWNED).tar"), ("--bundle", "site.tar\nRUN touch PWNED"),
                                        ("--name", "x`touch PWNED`")])
@pytest.mark.fault("export {flag} {value!r}", where="`export github-actions/dockerfile/apptainer/modulefile`",
                   expect="exit 2 naming the flag; nothing written")
def test_export_refuses_names_a_reader_would_run(tmp_path, flag, value, observed):
    from torchenv.errors import IntentError
    from torchenv.export.base import ExportRequest

    with pytest.raises(IntentError) as err:
        ExportRequest(lock=None, targets=(), lock_path=tmp_path / "torchenv.lock", project=tmp_path,  # type: ignore[arg-type]
                      **{flag.lstrip("-"): value})
    assert flag in str(err.value) and err.value.exit_code == 2
    observed(" ".join(str(err.value).split())[:140])


TCL_STUBS = """proc module-whatis args {}
proc family args {}
proc unsetenv args {}
proc prepend-path args {}
proc setenv {k v} {puts "SET $k=$v"}
set f [open [lindex $argv 0]]; set body [read $f]; close $f
if {[catch {eval $body} err]} {puts "ERR $err"}
"""


@pytest.mark.parametrize("folder", [*NAMES, pytest.param("x[exec touch PWNED]{y", id="tcl-brackets-brace")])
@pytest.mark.fault("project folder named to run code ({folder!r}) in a modulefile",
                   where="`export modulefile` / `modulefile-lua`, read by tclsh",
                   expect="TORCHENV_PROJECT is the literal path; nothing runs; Lua strings use \\ddd escapes")
def test_modulefile_keeps_the_folder_name_literal(tmp_path, folder, monkeypatch, observed):
    from types import SimpleNamespace

    from torchenv.export import modulefile

    tclsh = shutil.which("tclsh")
    if tclsh is None:
        unavailable("tclsh is not installed here")
    project = tmp_path / folder
    env = _fake_venv(tmp_path, folder)
    plan = modulefile.ModulePlan(name="proj/linux-x86_64-cpu", env=str(env), project=str(project),
                                 env_var="VIRTUAL_ENV", summary="torchenv env", toolkit=None,
                                 note=f"no toolkit (found: 12.6 at {project}/cuda)")
    monkeypatch.setattr(modulefile, "module_plan", lambda request: plan)
    request = SimpleNamespace(header=lambda kind, comment="#": f"{comment} generated by torchenv export {kind}\n")
    (tmp_path / "mod.tcl").write_text(modulefile.tcl(request))     # type: ignore[arg-type]
    (tmp_path / "stubs.tcl").write_text(TCL_STUBS)
    r = subprocess.run([tclsh, str(tmp_path / "stubs.tcl"), str(tmp_path / "mod.tcl")], capture_output=True,
                       text=True, timeout=60, cwd=tmp_path)
    assert _pwned(tmp_path) == [], r.stdout
    assert f"SET TORCHENV_PROJECT={project}\n" in r.stdout, r.stdout + r.stderr
    lua = modulefile.lua(request)     # type: ignore[arg-type]
    assert "\\u00" not in lua and all(line.startswith(("--", "whatis", "help", "family", "local", "if", "    ",
                                                       "end", "setenv", "unsetenv", "prepend_path"))
                                      for line in lua.splitlines()), lua
    observed("TORCHENV_PROJECT set to the literal path; nothing ran")
