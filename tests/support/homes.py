"""Per-test torchenv homes that do not outlive a passing test, and the outcome record they are judged by.

Why: every test gets its own ``TORCHENV_HOME`` (cache + config), so no test sees another's state; a home
that holds a real torch install is hundreds of MB (a CUDA stack several GB), and pytest keeps
``tmp_path_factory.mktemp`` folders to the end of the run and beyond. A passing test's home is removed
at its teardown; a failing (or erroring) test's stays for debugging, like its ``tmp_path`` under
``tmp_path_retention_policy = "failed"`` (pyproject.toml).
"""
from __future__ import annotations

import os
import shutil
import stat
import sys
from pathlib import Path

import pytest

OUTCOMES = pytest.StashKey[dict[str, bool]]()
CWD = pytest.StashKey[str]()


def record_outcome(item: pytest.Item, report: pytest.TestReport) -> None:
    """Keep, per phase (setup, call, teardown), whether it passed (called from ``pytest_runtest_makereport``)."""
    item.stash.setdefault(OUTCOMES, {})[report.when] = report.passed


def passed(item: pytest.Item) -> bool:
    """Set-up and ran without failing (an xfail, a skip or an error keeps the test's files)."""
    seen = item.stash.get(OUTCOMES, {})
    return seen.get("setup", False) and seen.get("call", False)


def remove_tree(path: Path) -> None:
    """``rm -rf``, also through folders a test made read-only (a read-only cache, a locked site-packages)."""
    def make_writable_and_retry(func, failed, _exc) -> None:
        parent = os.path.dirname(failed)
        try:
            os.chmod(parent, os.stat(parent).st_mode | stat.S_IRWXU)
            func(failed)
        except OSError:
            pass

    if sys.version_info >= (3, 12):
        shutil.rmtree(path, onexc=make_writable_and_retry)
    else:
        shutil.rmtree(path, onerror=make_writable_and_retry)


@pytest.fixture(autouse=True)
def _isolated_torchenv_home(request, tmp_path_factory, monkeypatch):
    home = tmp_path_factory.mktemp("torchenv-home")
    monkeypatch.setenv("TORCHENV_HOME", str(home))
    monkeypatch.delenv("TORCHENV_MIRROR", raising=False)
    monkeypatch.setenv("TORCHENV_LANG", "en")    # English messages unless a test asks for a language
    monkeypatch.setenv("TORCHENV_INDEX_CHECK", "0")    # plans never read download.pytorch.org; tests that check
    #                                                    an index over loopback turn it back on
    yield home
    if passed(request.node):
        remove_tree(home)


def note_cwd(item: pytest.Item) -> None:
    """Before the test's fixtures: where it started (``pytest_runtest_setup``)."""
    item.stash[CWD] = os.getcwd()


def check_cwd_restored(item: pytest.Item) -> None:
    """After all its fixtures were torn down (``pytest_runtest_teardown``): a test that moved the worker's
    working directory (``os.chdir`` without ``monkeypatch.chdir``) fails, and the next test starts where it
    should; else that one ran uv and pip in a folder removed when this test passed."""
    started = item.stash.get(CWD, None)
    try:
        now: str | None = os.getcwd()
    except FileNotFoundError:
        now = None
    if started is not None and now != started:
        os.chdir(started)
        pytest.fail(f"the test left the working directory at {now or 'a removed folder'}; use monkeypatch.chdir",
                    pytrace=False)
