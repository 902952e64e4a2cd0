"""A failing uv run gets the hint for what went wrong, not one generic guess.

Each case makes uv really fail in that way (live output of the uv torchenv ships with, driven through
``UvEngine`` exactly as ``up``/``lock`` drive it): a read-only cache, a host name that does not resolve,
a refused port on 127.0.0.1, a corrupt wheel in a find-links folder, a site-packages the user may not
write, a package no index has, no wheel for this Python, and two pins that contradict each other.
"""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from tests.support import build_index
from tests.support.skips import unavailable

from torchenv.engines import uv as uvmod
from torchenv.engines.failures import classify
from torchenv.engines.pip import PipEngine
from torchenv.engines.uv import UvEngine
from torchenv.errors import BackendError
from torchenv.sources.model import PypiSide

GENERIC = "a requirement has no wheel for this Python/platform, or your requirements contradict each other"


@pytest.fixture
def uv_env(monkeypatch, tmp_path):
    """uv with a private cache and no retries (a dead host fails in a fraction of a second)."""
    monkeypatch.setenv("UV_CACHE_DIR", str(tmp_path / "uv-cache"))
    monkeypatch.setenv("UV_HTTP_RETRIES", "0")
    return tmp_path


@pytest.fixture
def hint_wheels(wheels) -> Path:
    """A folder of alpha (needs beta==1.0), beta 1.0 and 2.0, and delta (cp312 only), from the wheel shop."""
    shelf = "failure-hints"
    wheels.make("alpha", "1.0", requires=["beta==1.0"], shelf=shelf)
    wheels.make("beta", "1.0", shelf=shelf)
    wheels.make("beta", "2.0", shelf=shelf)
    wheels.make("delta", "1.0", tag="cp312-cp312-manylinux_2_28_x86_64", shelf=shelf)
    return wheels.shelf(shelf)


@pytest.fixture
def local_index(hint_wheels, tmp_path) -> PypiSide:
    """A PEP 503 index on disk holding ``hint_wheels`` (no network: uv asks nothing else)."""
    files = sorted(hint_wheels.glob("*.whl"))
    projects: dict[str, list[Path]] = {}
    for f in files:
        projects.setdefault(f.name.split("-")[0], []).append(f)
    return PypiSide(index_url=build_index(tmp_path / "index", projects).as_uri())


def _resolve(requirements, pypi: PypiSide, find_links=()) -> BackendError:
    with pytest.raises(BackendError) as info:
        UvEngine().resolve(requirements=list(requirements), python_version="3.11", platform="linux-x86_64",
                           pypi=pypi, find_links=list(find_links))
    return info.value


def _refused_port() -> int:
    with socket.socket() as s:      # bound, never listening: connecting is refused
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _kind(err: BackendError) -> str:
    first = err.message.splitlines()[0]
    return first.rsplit("; ", 1)[-1].rstrip("):") if "; " in first else ""


def test_unresolvable_host_says_dns(uv_env):
    err = _resolve(["alpha"], PypiSide(index_url="http://nonexistent.invalid/simple"))
    assert _kind(err) == "host name not found", err.message
    assert "does not resolve" in err.hint and GENERIC not in err.hint


def test_refused_port_says_nothing_answers(uv_env):
    port = _refused_port()
    err = _resolve(["alpha"], PypiSide(index_url=f"http://127.0.0.1:{port}/simple"))
    assert _kind(err) == "connection refused", err.message
    assert "nothing answers" in err.hint


def test_missing_package_says_no_index_has_it(uv_env, local_index):
    err = _resolve(["nosuchpkg"], local_index)
    assert _kind(err) == "package not found", err.message
    assert "spelling" in err.hint


def test_conflicting_pins_say_relax_one(uv_env, local_index):
    err = _resolve(["alpha", "beta==2.0"], local_index)
    assert _kind(err) == "conflicting requirements", err.message
    assert "beta==2.0" in err.message and "relax" in err.hint


def test_no_wheel_for_this_python(uv_env, local_index):
    err = _resolve(["delta"], local_index)
    assert _kind(err) == "no matching wheel", err.message
    assert "--python X.Y" in err.hint


def test_corrupt_local_wheel_says_delete_it(uv_env, tmp_path):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "gamma-1.0-py3-none-any.whl").write_bytes(b"not a zip at all" * 10)
    err = _resolve(["gamma"], PypiSide(index_url=build_index(tmp_path / "empty", {}).as_uri(),
                                       find_links=(str(bad),)))
    assert _kind(err) == "corrupt wheel", err.message
    assert "damaged" in err.hint


def test_read_only_cache_names_the_cache(uv_env, local_index, tmp_path, monkeypatch):
    from tests.faults.tools.mounts import read_only

    cache = tmp_path / "ro-cache"
    cache.mkdir()
    monkeypatch.setenv("UV_CACHE_DIR", str(cache))
    with read_only(cache):
        err = _resolve(["alpha"], local_index)
    assert _kind(err) == "read-only filesystem", err.message
    assert str(cache) in err.hint and "TORCHENV_CACHE_DIR" in err.hint


def _without_root_override() -> list[str]:
    """Root ignores file modes: drop its override capabilities (setpriv) so a 0555 folder refuses writes."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        unavailable("running as root without setpriv: file modes cannot be made to apply to uv")
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search"]


def test_unwritable_site_packages_says_permission(monkeypatch, uv_env, hint_wheels, tmp_path):
    """A site-packages the user may not write: the hint names that folder and says who may."""
    env = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True)
    site = next(env.glob("lib/python*/site-packages"))
    wrapper = tmp_path / "uv-without-override"
    wrapper.write_text("#!/bin/sh\nexec " + " ".join([*_without_root_override(), uvmod.uv_bin()]) + ' "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setattr(uvmod, "uv_bin", lambda: str(wrapper))
    site.chmod(0o555)
    try:
        with pytest.raises(BackendError) as info:
            UvEngine().install_files(env_python=env / "bin" / "python", files=[hint_wheels / "beta-1.0-py3-none-any.whl"])
    finally:
        site.chmod(0o755)
    err = info.value
    assert _kind(err) == "permission denied", err.message
    assert str(site) in err.hint and "owns it" in err.hint


@pytest.mark.parametrize("requirements, kind, words", [
    (["nosuchpkg"], "no matching distribution", "carries it"),
    (["alpha", "beta==2.0"], "conflicting requirements", "relax"),
], ids=["missing package", "conflicting pins"])
def test_pip_failures_get_their_hint_too(local_index, requirements, kind, words):
    with pytest.raises(BackendError) as info:
        PipEngine().resolve(requirements=requirements, python_version="3.11", platform="linux-x86_64",
                            pypi=local_index, find_links=[])
    assert _kind(info.value) == kind, info.value.message
    assert words in info.value.hint


def test_unknown_failure_keeps_the_callers_hint():
    assert classify("error: something nobody has seen before") is None


def test_a_path_uv_wrapped_onto_the_next_line_is_still_named():
    """uv wraps long messages; the path then sits on an indented line before or after the matched words."""
    from torchenv.engines.failures import classify

    long = "/tmp/" + "x" * 70 + "/env/lib/python3.11/site-packages"
    after = f'error: Failed to create temporary file\n  Caused by: Read-only file system (os error 30) at path\n         "{long}/.tmpAb12"\n'
    before = f"error: Failed to install: beta\n  Caused by: failed to create directory `{long}/beta`:\n         Permission denied (os error 13)\n"
    assert long in classify(after).hint
    assert f"{long}/beta" in classify(before).hint


def test_the_kind_of_failure_is_named_in_chinese(uv_env, local_index):
    """The words torchenv adds to an installer's failure (what failed, its kind, the hint) in Chinese; the
    installer's own output below them is quoted as it is."""
    from tests.support.english import english_left

    from torchenv import i18n

    i18n.activate({"TORCHENV_LANG": "zh_CN"})
    try:
        err = _resolve(["nosuchpkg"], local_index)
    finally:
        i18n.deactivate()
    first = err.message.splitlines()[0]
    assert "; 找不到包" in first, first
    assert not english_left(first + "\n" + (err.hint or "")), (first, err.hint)


def test_the_uv_beside_torchenv_is_found_without_the_uv_package_lookup():
    """In a venv the uv package's binary sits in the venv's scripts folder, where ``find_uv_bin`` looks first:
    ``uv_bin`` finds the same binary there without importing ``uv`` (and ``sysconfig``) on every run."""
    import subprocess
    import sys

    code = ("import sys; from torchenv.engines.uv import uv_bin; from pathlib import Path; p = uv_bin(); "
            "print('uv' in sys.modules); from uv import find_uv_bin; print(Path(p) == Path(find_uv_bin()))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["False", "True"], out.stderr
