"""Shared fixtures: local conda channels (built once per session), machines and plans."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
from tests.conda.channel_builder import python_package, torch_channel


@pytest.fixture(scope="session")
def channel(tmp_path_factory) -> Path:
    """conda-forge-shaped channel, python 3.12 stand-in without an interpreter."""
    return torch_channel(tmp_path_factory.mktemp("chan") / "fake-forge")


@pytest.fixture(scope="session")
def py_channel(tmp_path_factory) -> Path:
    """Same layout, but its ``python`` package ships a working venv-style interpreter (this one's base)."""
    base = getattr(sys, "_base_executable", sys.executable)
    version = ".".join(map(str, sys.version_info[:3]))
    return torch_channel(tmp_path_factory.mktemp("pychan") / "py-forge",
                         python=python_package(version, real_interpreter=str(Path(base).resolve())))
