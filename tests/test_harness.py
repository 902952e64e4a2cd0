"""The harness in tests/support keeps its promises: a passing test leaves no home or tmp_path behind, a failing
one keeps both, a test that moves the working directory fails, heavy tests run first, wheels are made once."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from tests.support.installed import REPO

pytest_plugins = ["pytester"]

INNER = '''
import os, pathlib

def test_passes(tmp_path):
    (pathlib.Path(os.environ["TORCHENV_HOME"]) / "cache").mkdir()
    (tmp_path / "made").write_text("x")

def test_fails(tmp_path):
    (pathlib.Path(os.environ["TORCHENV_HOME"]) / "cache").mkdir()
    (tmp_path / "made").write_text("x")
    assert False, "kept for debugging"

def test_moves_cwd(tmp_path):
    os.chdir(tmp_path)
'''


@pytest.fixture
def inner_suite(pytester):
    """A copy of this repo's tests/conftest.py and pytest settings around three small tests."""
    shutil.copy(REPO / "pyproject.toml", pytester.path / "pyproject.toml")
    (pytester.path / "tests").mkdir()
    shutil.copy(REPO / "tests" / "conftest.py", pytester.path / "tests" / "conftest.py")
    shutil.copytree(REPO / "tests" / "support", pytester.path / "tests" / "support",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (pytester.path / "tests" / "test_inner.py").write_text(INNER)
    return pytester


def _left(base: Path, prefix: str) -> set[str]:
    return {p.name.rstrip("0123456789") for p in base.rglob(f"{prefix}*") if p.is_dir() and not p.is_symlink()}


def test_a_passing_test_leaves_nothing_and_a_failing_one_keeps_its_files(inner_suite):
    base = inner_suite.path / "bt"
    result = inner_suite.runpytest_subprocess("-p", "no:cacheprovider", f"--basetemp={base}", "-p", "no:randomly")
    result.assert_outcomes(passed=2, failed=1, errors=1)
    assert _left(base, "test_") == {"test_fails"}        # tmp_path of the failing test only
    homes = [h for h in base.glob("torchenv-home*") if not h.is_symlink()]
    assert [(h / "cache").is_dir() for h in homes] == [True], homes     # the failing test's home only
    result.stdout.fnmatch_lines(["*the test left the working directory at*use monkeypatch.chdir*"])


def test_heavy_tests_are_handed_out_first(inner_suite):
    (inner_suite.path / "tests" / "test_real.py").write_text(
        "import pytest\n\n@pytest.mark.integration\ndef test_real():\n    pass\n\n"
        "def test_bootstrapped(installed_torchenv):\n    pass\n")
    result = inner_suite.runpytest_subprocess("--collect-only", "-q", "-p", "no:randomly")
    ids = [line for line in result.stdout.lines if "::" in line]
    assert ids[:2] == ["tests/test_real.py::test_real", "tests/test_real.py::test_bootstrapped"], ids
    assert ids[2:] == ["tests/test_inner.py::test_passes", "tests/test_inner.py::test_fails",
                       "tests/test_inner.py::test_moves_cwd"], ids


def test_the_wheel_shop_makes_each_wheel_once_and_refuses_a_clash(wheels):
    first = wheels.make("shopcheck", "1.0", requires=["six"], shelf="harness-check")
    mtime = first.stat().st_mtime_ns
    assert wheels.make("shopcheck", "1.0", requires=["six"], shelf="harness-check") == first
    assert first.stat().st_mtime_ns == mtime
    assert wheels.shelf("harness-check") == first.parent
    with pytest.raises(AssertionError, match="made twice with different contents"):
        wheels.make("shopcheck", "1.0", requires=["filelock"], shelf="harness-check")


def test_the_recording_ui_keeps_what_the_user_was_told():
    from tests.support.ui import RecordingUi

    ui = RecordingUi()
    ui.info("plain")
    ui.step("planning")
    ui.warn("mirror slow")
    with ui.progress("getting", 10, bytes_=True) as advance:
        advance(4)
        advance(6)
    assert ui.lines == ["plain", "planning", "warning: mirror slow"]
    assert (ui.steps, ui.warnings, ui.advanced) == (["planning"], ["mirror slow"], 10)
    assert ui.text == "plain\nplanning\nwarning: mirror slow"


def test_cli_text_is_matched_across_the_consoles_wrapping(monkeypatch, capsys):
    """The console folds a path longer than the line inside the path: the phrase is still found, and only there.

    (Collapsing whitespace put a space into the folded path, so a test passed or failed with the length of
    the machine's temp folder.)"""
    from tests.support.console import unwrapped

    from torchenv.ui import Ui

    monkeypatch.setenv("COLUMNS", "40")
    toml = "/tmp/pytest-of-someone/pytest-12/popen-gw1/test_a_long_name0/project/torchenv.toml"
    Ui().error(f"{toml}:3: torch.python: expected a string, got a number", hint="write python = \"3.11\"")
    err = capsys.readouterr().err
    assert max(map(len, err.splitlines())) <= 40 and toml not in err, err     # the console did wrap it
    said = unwrapped(err)
    assert f"{toml}:3: torch.python: expected a string, got a number" in said, err
    assert 'write python = "3.11"' in said and "expected a string, got a number" in said
    assert "torch.pythonexpected" not in said and "expected astring" not in said, "breaks stand only where it broke"
    assert said.startswith("error:") and "  " not in said, "the text itself: whitespace collapsed"
