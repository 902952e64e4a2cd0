"""Odd terminals and broken surroundings end in one clear line, never a Python traceback."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from tests.support.cli import MACHINE
from tests.support.console import unwrapped

NOISE = ("Traceback", "Exception ignored", "BrokenPipeError", "UnicodeEncodeError")


def assert_quiet_failure(r, *fragments: str) -> str:
    """Non-zero exit, no stack, and the message carries every fragment."""
    assert r.rc != 0, r.text
    assert not any(n in r.text for n in NOISE), r.text
    flat = unwrapped(r.err)
    for fragment in fragments:
        assert fragment in flat, f"{fragment!r} missing from: {flat}"
    return flat


def test_ascii_only_terminal_gets_ascii_glyphs(sh, project):
    r = sh.torchenv("plan", *MACHINE, cwd=project, env={"PYTHONIOENCODING": "ascii"})
    assert r.rc == 0 and not any(n in r.text for n in NOISE), r.text
    assert "torch 2.4.1 - tier cpu - Python 3.11" in r.out and "  * intent:" in r.out
    r.out.encode("ascii")


@pytest.mark.parametrize("json_flag", [(), ("--json",)], ids=["human", "json"])
def test_closed_stdout_is_one_line_and_nothing_done(sh, project, json_flag):
    r = sh.torchenv("plan", *json_flag, *MACHINE, cwd=project, script='"$@" >&-')
    assert_quiet_failure(r, "standard output is closed")
    assert len(r.err_lines) == 1, r.err


@pytest.mark.parametrize("json_flag", [(), ("--json",)], ids=["human", "json"])
def test_full_stdout_is_one_line(sh, project, json_flag):
    with open("/dev/full", "w") as full:
        r = sh.torchenv("plan", *json_flag, *MACHINE, cwd=project, stdout=full)
    assert_quiet_failure(r, "cannot write to standard output: No space left on device")
    assert len(r.err_lines) == 1, r.err


def test_reader_gone_is_silent(sh, project):
    """`torchenv plan --json | head`-style: the reader exits first; no BrokenPipe noise.
    (rich already handles this for human output; the JSON path writes to stdout itself.)"""
    r = sh.torchenv("plan", "--json", *MACHINE, cwd=project, script='"$@" | true')
    assert not any(n in r.text for n in NOISE), r.text


def test_init_force_over_a_folder_named_torchenv_toml(sh, tmp_path):
    (tmp_path / "torchenv.toml").mkdir()
    (tmp_path / "torchenv.toml" / "keep.txt").write_text("mine")
    r = sh.torchenv("init", "--force", cwd=tmp_path)
    assert_quiet_failure(r, str(tmp_path / "torchenv.toml"), "is a folder, where a file is needed")
    assert (tmp_path / "torchenv.toml" / "keep.txt").read_text() == "mine"


def test_mirror_use_with_a_file_as_config_home(sh, tmp_path):
    home = tmp_path / "not-a-folder"
    home.write_text("a file the user had\n")
    r = sh.torchenv("mirror", "use", "tuna", cwd=tmp_path, env={"TORCHENV_CONFIG_DIR": str(home)})
    assert_quiet_failure(r, str(home), "is a file, where a folder is needed", "TORCHENV_CONFIG_DIR")
    assert home.read_text() == "a file the user had\n"


def test_deleted_working_directory(sh, tmp_path):
    r = sh.torchenv("plan", *MACHINE, cwd=tmp_path, script='mkdir gone && cd gone && rmdir ../gone && "$@"')
    assert_quiet_failure(r, "the current directory", "no longer exists", "-C DIR")


BUG = ("import sys, torchenv.resolve.resolver as r\n"
       "def resolve(*a, **k):\n    return 1 / 0\n"
       "r.resolve = resolve\n"
       "from torchenv.cli import main\nsys.exit(main(sys.argv[1:]))\n")


def test_an_unexpected_error_is_one_line_naming_it(sh, project):
    env = sh.environ()
    argv = ["plan", *MACHINE]
    quiet = subprocess.run([sys.executable, "-c", BUG, *argv], cwd=project, env=env, capture_output=True, text=True)
    assert quiet.returncode == 1 and "Traceback" not in quiet.stdout + quiet.stderr, quiet.stderr
    lines = [line for line in quiet.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, quiet.stderr
    assert "torchenv plan: unexpected ZeroDivisionError: division by zero" in lines[0]
    assert "torchenv/resolve/reachable.py:" in lines[0] and "set TORCHENV_DEBUG=1 for the traceback" in lines[0]
    loud = subprocess.run([sys.executable, "-c", BUG, *argv], cwd=project, env={**env, "TORCHENV_DEBUG": "1"},
                          capture_output=True, text=True)
    assert loud.returncode == 1 and "Traceback (most recent call last)" in loud.stderr
    assert "ZeroDivisionError: division by zero" in loud.stderr and loud.stderr.rstrip().endswith(lines[0])


def test_errors_stay_json_with_json(sh, tmp_path):
    (tmp_path / "torchenv.toml").mkdir()
    r = sh.torchenv("init", "--force", "--json", cwd=tmp_path)
    assert r.rc != 0 and json.loads(r.out)["error"].endswith("is a folder, where a file is needed"), r.text


LEAKY_BUG = BUG.replace("return 1 / 0",
                        "raise RuntimeError('index http://alice:tok-7f3a9c@127.0.0.1:9/simple said no')")


@pytest.mark.parametrize("debug", ["", "1"], ids=["one-line", "debug-stack"])
def test_an_unexpected_error_never_shows_a_login(sh, project, debug):
    env = {**sh.environ(), "TORCHENV_DEBUG": debug}
    r = subprocess.run([sys.executable, "-c", LEAKY_BUG, "plan", *MACHINE], cwd=project, env=env,
                       capture_output=True, text=True)
    assert r.returncode == 1 and "RuntimeError" in r.stderr, r.stderr
    assert "tok-7f3a9c" not in r.stdout + r.stderr and "127.0.0.1:9/simple" in r.stderr, r.stderr
