"""`torchenv export uv|pixi`: valid against the tools' published schemas, and uv locks what torchenv locked."""
from __future__ import annotations

import copy
import json
import sys
from importlib.resources import files

import pytest
from tests.export.conftest import export, records, uv

from torchenv.fileio import tomllib_module

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


def test_pixi_toml_passes_pixi_schema(locked, tmp_path):
    out = tmp_path / "pixi.toml"
    assert export(locked.project, "pixi", "-o", str(out), "--name", "demo") == 0
    doc = tomllib.loads(out.read_text())
    _schema("pixi")(copy.deepcopy(doc))                # the schema pixi publishes (via SchemaStore)
    assert doc["workspace"] == {"name": "demo", "channels": ["conda-forge"], "platforms": ["linux-64"]}
    assert doc["pypi-dependencies"]["torch"] == {"version": "==2.4.1+cpu",
                                                 "index": "https://download.pytorch.org/whl/cpu"}
    assert doc["dependencies"] == {"python": "3.11.*"}
    assert "system-requirements" not in doc           # cpu tier: no CUDA driver needed


def test_pixi_states_the_cuda_driver_need_of_a_cuda_tier(tmp_path):
    import fastjsonschema
    from tests.export.conftest import write_cuda_lock

    project = write_cuda_lock(tmp_path)
    out = tmp_path / "pixi.toml"
    assert export(project, "pixi", "-o", str(out)) == 0
    doc = tomllib.loads(out.read_text())
    _schema("pixi")(copy.deepcopy(doc))
    assert doc["system-requirements"] == {"cuda": "12.6"}
    doc["system-requirements"] = {"cuda": {"unknown": 1}}     # the schema does bite
    with pytest.raises(fastjsonschema.JsonSchemaException):
        _schema("pixi")(doc)
