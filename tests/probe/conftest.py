"""Fixtures for probe tests: a fake root, a Linux environment, and ``probe(...)`` bound to them."""
from __future__ import annotations

from typing import Any

import pytest
from probe_fakes import FakeTree, Recorded


@pytest.fixture
def tree(tmp_path) -> FakeTree:
    return FakeTree(tmp_path / "root")


@pytest.fixture
def linux_env() -> dict[str, str]:
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/home/user"}


@pytest.fixture
def probe(tree, linux_env):
    """``probe(run=..., nvml=..., env=...)``: probe_machine on the fake tree as a Linux x86_64 host."""
    from torchenv.probing import probe_machine

    def _probe(*, run: Recorded | None = None, nvml: Any = False, env: dict[str, str] | None = None,
               system: str = "Linux", machine: str = "x86_64"):
        tree.mkdir("/")
        environ = dict(linux_env)
        environ.update(env or {})
        return probe_machine(environ=environ, root=tree.root, run=run or Recorded(), system=system,
                             machine=machine, nvml=nvml)

    return _probe
