"""Property tests: any mutation of a valid torchenv.lock is either read (with every artifact still
sha256-pinned) or refused with ``LockError``; never another exception (a traceback for the user).

Version and tier parsing already have property tests in tests/intent/test_intent_properties.py.
"""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from torchenv.errors import LockError
from torchenv.fileio import tomllib_module
from torchenv.lockfile.io import dumps_lock, loads_lock
from torchenv.lockfile.model import LockedCondaPackage, LockedWheel, Lockfile, LockTarget

SHA = "ab" * 32


def _valid_lock_text() -> str:
    wheels = (LockedWheel("filelock", "3.1.0", "filelock-3.1.0-py3-none-any.whl",
                          "https://files.example/filelock-3.1.0-py3-none-any.whl", SHA, "https://pypi.org/simple"),
              LockedWheel("torch", "2.4.1+cpu", "torch-2.4.1+cpu-cp311-cp311-linux_x86_64.whl",
                          "https://download.pytorch.org/whl/cpu/torch-2.4.1%2Bcpu-cp311-cp311-linux_x86_64.whl",
                          "cd" * 32, "https://download.pytorch.org/whl/cpu", source="torch-index", size=123))
    conda = (LockedCondaPackage("python", "3.11.9", "h1_0", "linux-64", "https://conda.anaconda.org/cf/python.conda",
                                "ef" * 32, md5="0" * 32, channel="conda-forge"),)
    targets = (LockTarget("linux-x86_64-cpu", "linux", "x86_64", "cpu", "3.11", "venv", "2.4.1+cpu", wheels=wheels),
               LockTarget("linux-x86_64-cu121", "linux", "x86_64", "cu121", "3.11", "conda", "2.4.1",
                          conda=conda, channels=("conda-forge",), virtual_packages=("__cuda=12.4",)))
    return dumps_lock(Lockfile(intent_hash="sha256:" + SHA, targets=targets, machine={"os": "linux"},
                               torchenv_version="0.1.0"))


VALID = _valid_lock_text()


def _read_or_refuse(text: str) -> None:
    try:
        lock = loads_lock(text, path="torchenv.lock")
    except LockError as exc:
        assert "torchenv.lock" in exc.message
        return
    for target in lock.targets:
        for artifact in (*target.wheels, *target.conda):
            assert len(artifact.sha256) == 64, "a lock was read with an artifact that is not hash-pinned"


def test_the_valid_lock_reads_back():
    assert loads_lock(VALID).target("linux-x86_64-cpu").wheel("torch").size == 123


# -- text-level damage: a bad merge, a truncated write, an editor accident -------------------------

lines = VALID.splitlines(keepends=True)
text_mutation = st.one_of(
    st.integers(0, len(VALID)).map(lambda n: VALID[:n]),                                    # truncated
    st.integers(0, len(lines) - 1).map(lambda i: "".join(lines[:i] + lines[i + 1:])),      # line deleted
    st.tuples(st.integers(0, len(lines) - 1), st.integers(0, len(lines) - 1))
    .map(lambda ij: "".join(lines[:ij[0]] + [lines[ij[1]]] + lines[ij[0]:])),              # line duplicated
    st.tuples(st.integers(0, len(VALID)), st.integers(0, 20), st.text(max_size=20))
    .map(lambda t: VALID[:t[0]] + t[2] + VALID[t[0] + t[1]:]),                              # span replaced
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text_mutation)
@pytest.mark.fault("random text damage to a valid lock (hypothesis, 300 cases)", where="`read_lock`",
                   expect="read with every artifact hash-pinned, or LockError naming the lock; nothing else")
def test_damaged_lock_text_is_read_or_refused(text):
    _read_or_refuse(text)


# -- structure-level damage: right TOML, wrong shapes ----------------------------------------------

toml_value = st.recursive(
    st.one_of(st.booleans(), st.integers(-5, 5), st.text(max_size=8), st.just(SHA)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["name", "x", "sha256"]),
                                                                         inner, max_size=3)),
    max_leaves=6)


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, prefix + (i,))


DATA = tomllib_module().loads(VALID)
ALL_PATHS = [p for p in _paths(DATA) if p]


def _mutated(path, value, delete):
    import copy

    data = copy.deepcopy(DATA)
    node = data
    for step in path[:-1]:
        node = node[step]
    if delete:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return data


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(ALL_PATHS), toml_value, st.booleans())
@pytest.mark.fault("random type/shape changes in a valid lock (hypothesis, 300 cases)", where="`read_lock`",
                   expect="read with every artifact hash-pinned, or LockError naming the lock; nothing else")
def test_reshaped_lock_is_read_or_refused(path, value, delete):
    import tomlkit

    _read_or_refuse(tomlkit.dumps(_mutated(path, value, delete)))
