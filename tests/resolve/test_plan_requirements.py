"""`torchenv plan` sees the project's requirement files as `up` will, and says how the PyPI side is searched."""
from __future__ import annotations

import json

from torchenv.cli import main

ASSUME = ["--assume-os", "linux", "--assume-arch", "x86_64", "--assume-python", "3.11",
          "--assume-driver", "550.54.14", "--assume-gpu", "8.6"]


def project(tmp_path, requirements: str) -> None:
    (tmp_path / "torchenv.toml").write_text('[torch]\nversion = "2.4"\n\n[env]\nrequirements = ["deps/run.txt"]\n')
    (tmp_path / "deps").mkdir()
    (tmp_path / "deps" / "run.txt").write_text(requirements)


def test_a_torch_pin_in_a_listed_file_that_contradicts_the_plan_is_refused_by_plan(tmp_path, capsys):
    project(tmp_path, "numpy\ntorch==1.13.1\n")
    assert main(["plan", "-C", str(tmp_path), *ASSUME]) == 2
    err = capsys.readouterr().err
    assert "run.txt" in err and "torch==1.13.1" in err


def test_agreeing_pins_and_the_index_rule_are_in_the_reasons(tmp_path, capsys, monkeypatch):
    conf = tmp_path / "pip.conf"
    conf.write_text("[global]\nindex-url = https://pip.example/simple\n"
                    "extra-index-url = https://extra.example/simple\n")
    monkeypatch.setenv("PIP_CONFIG_FILE", str(conf))
    project(tmp_path, "torch==2.4.1+cu121\ntorchvision\n")
    assert main(["plan", "-C", str(tmp_path), "--json", *ASSUME]) == 0
    reasons = json.loads(capsys.readouterr().out)["reasons"]
    assert any(r.startswith("run.txt:1: requirement `torch==2.4.1+cu121` agrees with torch 2.4.1") for r in reasons)
    assert any("2 indexes searched as pip does" in r and "unsafe-best-match" in r for r in reasons)


def test_plan_says_numpy_is_added_for_torchs_import(tmp_path, capsys):
    (tmp_path / "torchenv.toml").write_text('[torch]\nversion = "2.2"\ncuda = "cpu"\n')
    assert main(["plan", "-C", str(tmp_path), "--json", *ASSUME]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["import_requirements"] == ["numpy<2"]
    assert any(r.startswith("also installed: numpy<2") for r in data["reasons"])
    (tmp_path / "torchenv.toml").write_text('[torch]\nversion = "2.4"\ncuda = "cpu"\n')
    assert main(["plan", "-C", str(tmp_path), "--json", *ASSUME]) == 0
    assert json.loads(capsys.readouterr().out)["import_requirements"] == ["numpy"]
