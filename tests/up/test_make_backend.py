"""``backends.make_backend`` is the one place a plan's backend kind becomes an object."""
from __future__ import annotations

import dataclasses

import pytest

from torchenv.backends import make_backend
from torchenv.errors import BackendError
from torchenv.intent.load import load_project_intent
from torchenv.ui import Ui


def _plan(world, backend: str):
    return dataclasses.replace(world.plan(load_project_intent(world.project)), backend=backend)


def test_venv_plan_gets_a_venv_backend(world, tmp_path):
    from torchenv.backends.venv import VenvBackend

    b = make_backend(plan=_plan(world, "venv"), env_path=tmp_path / "env", ui=Ui(quiet=True))
    assert isinstance(b, VenvBackend) and b.env_path == tmp_path / "env"


def test_conda_plan_gets_a_conda_backend(world, tmp_path):
    from torchenv.backends.conda import CondaBackend

    b = make_backend(plan=_plan(world, "conda"), env_path=tmp_path / "env", ui=Ui(quiet=True))
    assert isinstance(b, CondaBackend)


def test_unknown_backend_is_a_clear_error(world, tmp_path):
    with pytest.raises(BackendError, match="unknown backend 'nix'"):
        make_backend(plan=_plan(world, "nix"), env_path=tmp_path / "env", ui=Ui(quiet=True))
