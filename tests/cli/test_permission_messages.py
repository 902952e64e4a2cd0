"""The permission message's wording for each thing that can be missing, in-process.

Why simulated here: root ignores permission bits, and the real-user runs in
tests/faults/test_permissions.py see only the "someone else owns it" side when run as root.
``os.access`` is what torchenv asks, so denying there is what a real refusal looks like to it.
"""
from __future__ import annotations

import errno
import os
import pwd

import pytest

from torchenv import oserrors


@pytest.fixture
def refuse(monkeypatch):
    """Deny ``mode`` on ``path`` (as ``os.access`` reports it) and make us the file's owner."""
    real = os.access

    def deny(path, mode):
        def access(p, m, *a, **k):
            return False if (str(p) == str(path) and m & mode) else real(p, m, *a, **k)

        monkeypatch.setattr(oserrors.os, "access", access)
        monkeypatch.setattr(oserrors, "current_user", lambda: pwd.getpwuid(path.stat().st_uid).pw_name)
    return deny


def denied(path):
    return oserrors.explain(PermissionError(errno.EACCES, "Permission denied", str(path)))


@pytest.mark.parametrize("kind,mode,verb,bit", [
    ("file", os.R_OK, "cannot read", "u+r"),
    ("file", os.W_OK, "cannot write", "u+w"),
    ("exe", os.X_OK, "cannot run", "u+rx"),
    ("dir", os.X_OK, "cannot enter", "u+x"),
    ("dir", os.W_OK, "cannot create files in", "u+w"),
])
def test_your_own_file_gets_the_chmod_to_run(tmp_path, refuse, kind, mode, verb, bit):
    path = tmp_path / ("bin" if kind == "exe" else "x")
    if kind == "dir":
        path.mkdir()
    else:
        path.write_text("")
        path.chmod(0o755 if kind == "exe" else 0o644)
    refuse(path, mode)
    err = denied(path)
    owner = pwd.getpwuid(path.stat().st_uid).pw_name
    assert f"{verb} {path} (owner {owner}" in err.message and f"you are {owner}" in err.message, err.message
    assert err.hint.startswith(f"`chmod {bit} {path}`"), err.hint


def test_a_new_file_in_a_closed_folder_names_the_folder(tmp_path, refuse):
    refuse(tmp_path, os.W_OK)
    err = denied(tmp_path / "torchenv.lock")
    assert f"cannot create files in {tmp_path} " in err.message
    assert f"needed for {tmp_path / 'torchenv.lock'}" in err.message


def test_own_folders_say_which_variable_moves_them(tmp_path, refuse, monkeypatch):
    cache = tmp_path / "cache"
    cache.mkdir()
    monkeypatch.setenv("TORCHENV_CACHE_DIR", str(cache))
    refuse(cache, os.W_OK)
    assert "set TORCHENV_CACHE_DIR (or TORCHENV_HOME) to a folder you own" in denied(cache / "artifacts").hint
