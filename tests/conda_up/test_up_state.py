"""What `up` remembers about a conda prefix: its Python, its packages, the fast no-op.

These pin down behaviour that lives in ``backends/state.py`` and ``flows/noop.py``: a conda prefix has no
pyvenv.cfg and keeps most packages in ``conda-meta``, not in dist-infos, and its engine is not ``[env] installer``.
"""
from __future__ import annotations

import json

from tests.conda_up.conftest import NO_GPU
from tests.conda_up.forge import CONDA_LIKE_PY


def test_python_version_of_a_conda_prefix_comes_from_conda_meta(tmp_path):
    from torchenv.backends.state import env_python_version

    prefix = tmp_path / "env"
    (prefix / "conda-meta").mkdir(parents=True)
    (prefix / "conda-meta" / "python-3.12.1-h0_0_cp312.json").write_text(
        json.dumps({"name": "python", "version": "3.12.1", "build": "h0_0_cp312"}))
    (prefix / "conda-meta" / "python_abi-3.12-8_cp312.json").write_text(
        json.dumps({"name": "python_abi", "version": "3.12", "build": "8_cp312"}))
    assert env_python_version(prefix) == "3.12"


def test_second_up_is_a_no_op_with_a_conda_forge_like_python(project, forge, calls):
    """A real conda-forge python has no pyvenv.cfg; `up` must not rebuild the prefix every time."""
    project.write(channel=forge, python=CONDA_LIKE_PY)
    assert project.up(*NO_GPU).status == "installed"
    assert not (project.env / "pyvenv.cfg").exists()
    again = project.up(*NO_GPU)
    assert again.status == "up-to-date" and len(calls.solve) == 1 and len(calls.install) == 1


def test_a_conda_package_removed_by_hand_is_restored(project, forge):
    project.write(channel=forge)
    project.up(*NO_GPU)
    (project.env / "conda-meta" / "libfoo-1.0-h0_0.json").unlink()     # what `conda remove --force libfoo` leaves
    (project.env / "etc" / "libfoo.conf").unlink()
    assert project.up(*NO_GPU).status == "repaired"
    assert (project.env / "conda-meta" / "libfoo-1.0-h0_0.json").is_file()
    assert (project.env / "etc" / "libfoo.conf").is_file()


def test_no_op_up_of_a_conda_env_skips_planning(project, forge, monkeypatch):
    """The fast path (flows/noop.py) answers without probing or resolving, as it does for a venv."""
    project.write(channel=forge)
    project.up(*NO_GPU)
    class Planned(Exception):
        pass

    def planning(request):
        raise Planned

    assert project.up(planner=planning).status == "up-to-date"        # no --assume-* flag: those always take the slow path
