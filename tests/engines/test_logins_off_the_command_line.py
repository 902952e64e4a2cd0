"""A mirror login reaches uv and pip, but never their command lines.

Why it matters: on a shared machine (a cluster login node) every user can read every
process's command line (``ps``, ``/proc/PID/cmdline``), while a process's environment is
readable only by its owner. So a source list that carries a login travels to the installer
as its environment variable (``UV_INDEX_URL``, ``PIP_EXTRA_INDEX_URL``, ...), and lists
without one stay flags. Each case resolves through a loopback index that answers 401 to any
request without the login, with the real uv and pip, and records every command they ran.
"""
from __future__ import annotations

import secrets
import subprocess

import pytest
from tests.support import build_index, make_wheel, serve_dir

from torchenv.engines import uv as uv_mod
from torchenv.engines.pip import PipEngine
from torchenv.engines.uv import UvEngine, source_flags
from torchenv.sources.credentials import remember
from torchenv.sources.model import PypiSide

USER = "deploy"


@pytest.fixture
def recorded(monkeypatch):
    """Every command line the engines start, with the environment it got."""
    calls: list[tuple[list[str], dict[str, str]]] = []
    real = subprocess.run

    def run(cmd, *args, **kwargs):
        calls.append(([str(part) for part in cmd], dict(kwargs.get("env") or {})))
        return real(cmd, *args, **kwargs)

    monkeypatch.setattr(uv_mod.subprocess, "run", run)
    return calls


def _sources(kind: str, base: str, token: str, empty_index: str) -> PypiSide:
    """The private mirror as the ``kind`` of source a user configured."""
    if kind == "find-links":
        return PypiSide(index_url=empty_index, find_links=(remember(f"http://{USER}:{token}@{base[7:]}/files/"),))
    logged = remember(f"http://{USER}:{token}@{base[7:]}/simple")
    if kind == "index-url":
        return PypiSide(index_url=logged)
    return PypiSide(index_url=empty_index, extra_index_urls=(logged,))


@pytest.mark.parametrize("engine", [UvEngine, PipEngine], ids=["uv", "pip"])
@pytest.mark.parametrize("kind", ["index-url", "extra-index-url", "find-links"])
def test_a_login_reaches_the_installer_through_its_environment_only(tmp_path, recorded, engine, kind):
    token = "tok" + secrets.token_hex(10)
    whl = make_wheel(tmp_path / "wheels", "alpha", "1.0", tag="py3-none-any")
    build_index(tmp_path / "mirror", {"alpha": [whl]})
    empty = build_index(tmp_path / "empty", {}).as_uri()
    with serve_dir(tmp_path / "mirror", auth=(USER, token)) as base:
        pypi = _sources(kind, base, token, empty)
        resolved = engine().resolve(requirements=["alpha"], python_version="3.11", platform="linux-x86_64",
                                    pypi=pypi, find_links=[])
    assert [w.name for w in resolved] == ["alpha"]          # the login worked: the mirror answers 401 without it
    assert recorded, "the engine ran no installer"
    assert not [cmd for cmd, _env in recorded if any(token in part for part in cmd)]
    assert any(token in value for _cmd, env in recorded for value in env.values())
    assert token not in repr(resolved)


def test_lists_without_a_login_stay_flags_in_their_order():
    pypi = PypiSide(index_url="https://mirror.example/simple", extra_index_urls=("https://a.example/simple",
                    "https://b.example/simple"), find_links=("/wheels",), constraints=("c.txt",))
    flags = source_flags(pypi, ["/more"], tool="uv")
    assert flags.env == {}
    assert list(flags.args) == ["--index-url", "https://mirror.example/simple",
                                "--extra-index-url", "https://a.example/simple",
                                "--extra-index-url", "https://b.example/simple",
                                "--find-links", "/wheels", "--find-links", "/more", "--constraint", "c.txt"]


def test_a_logged_list_moves_whole_and_keeps_its_order():
    token = "tok" + secrets.token_hex(10)
    logged = remember(f"https://{USER}:{token}@private.example/simple")
    pypi = PypiSide(index_url="https://mirror.example/simple",
                    extra_index_urls=("https://a.example/simple", logged), find_links=("/w1", "/w2"))
    uv_flags = source_flags(pypi, [], tool="uv")
    assert uv_flags.env == {"UV_EXTRA_INDEX_URL": f"https://a.example/simple https://{USER}:{token}@private.example/simple"}
    assert "--extra-index-url" not in uv_flags.args and "--index-url" in uv_flags.args
    assert source_flags(pypi, [], tool="pip").env.keys() == {"PIP_EXTRA_INDEX_URL"}
