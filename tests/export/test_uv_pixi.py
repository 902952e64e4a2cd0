"""`torchenv export uv|pixi`: valid against the tools' published schemas, and uv locks what torchenv locked."""
from __future__ import annotations

import copy
import json
import sys
from importlib.resources import files

import pytest

from tests.export.conftest import export, records, uv
from torchenv.lock.io import tomllib_module

pytestmark = pytest.mark.parametrize("installer", ["uv"])
tomllib = tomllib_module()


def _merge(into: dict, block: dict) -> dict:
    for k, v in block.items():
        into[k] = _merge(into.get(k, {}), v) if isinstance(v, dict) else v
    return into


def _schema(name: str):
    import fastjsonschema

    text = (files("validate_pyproject_schema_store") / "resources" / f"{name}.schema.json").read_text()
    return fastjsonschema.compile(json.loads(text))


def _pyproject_with(block_text: str) -> dict:
    user = {"project": {"name": "demo", "version": "0.1.0", "requires-python": "==3.11.*"}}
    return _merge(user, tomllib.loads(block_text))


def test_uv_block_passes_uv_schema_and_validate_pyproject(locked, capsys):
    from validate_pyproject import api

    assert export(locked.project, "uv") == 0
    block = capsys.readouterr().out
    doc = _pyproject_with(block)
    _schema("uv")(copy.deepcopy(doc["tool"]["uv"]))    # SchemaStore's uv.json (validators fill defaults in)
    api.Validator()(copy.deepcopy(doc))                # PEP 621 + every tool.* plugin installed
    assert doc["tool"]["uv"]["index"] == [{"name": "pytorch-cpu", "url": "https://download.pytorch.org/whl/cpu",
                                           "explicit": True}]
    assert doc["tool"]["uv"]["sources"] == {"torch": {"index": "pytorch-cpu"}}
    assert doc["project"]["dependencies"] == ["torch==2.4.1+cpu"]
    assert doc["tool"]["uv"]["constraint-dependencies"] == ["filelock==3.1.0"]


def test_uv_lock_of_the_block_pins_the_same_torch_file(locked, tmp_path):
    import tomlkit

    proj = tmp_path / "demo"
    proj.mkdir()
    out = proj / "torchenv-uv.toml"
    assert export(locked.project, "uv", "-o", str(out), "--wheels", str(locked.root / "torchidx" / "files")) == 0
    (proj / "pyproject.toml").write_text(tomlkit.dumps(_pyproject_with(out.read_text())))
    done = uv("lock", "--no-config", "--offline", "--default-index", locked.pypi_index, cwd=proj)
    assert done.returncode == 0, done.stderr
    uv_lock = {p["name"]: p for p in tomllib.loads((proj / "uv.lock").read_text())["package"]}
    assert uv_lock["torch"]["version"] == "2.4.1+cpu"
    assert uv_lock["torch"]["source"] == {"registry": "../torchidx/files"}     # the tier's index, not PyPI
    assert uv_lock["filelock"]["version"] == "3.1.0"                           # held by the constraints
    synced = uv("sync", "--no-config", "--offline", "--frozen", "--python", sys.executable, cwd=proj)
    assert synced.returncode == 0, synced.stderr
    assert records(proj / ".venv" / "lib" / "python3.11" / "site-packages") == records(locked.site())
