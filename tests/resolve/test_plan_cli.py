"""`torchenv plan --json` through torchenv.cli.main, on assumed machines."""
from __future__ import annotations

import json

from torchenv.cli import main

ASSUME = ["--assume-os", "linux", "--assume-arch", "x86_64", "--assume-python", "3.11"]


def run_plan(capsys, tmp_path, *extra):
    code = main(["plan", "-C", str(tmp_path), "--json", *ASSUME, *extra])
    out = capsys.readouterr().out
    return code, json.loads(out)


def test_plan_json_success_shape(capsys, tmp_path):
    code, data = run_plan(capsys, tmp_path, "--assume-driver", "550.54.14", "--assume-gpu", "8.6",
                          "--torch", "2.4", "--with", "torchvision")
    assert code == 0
    for key in ("torch", "tier", "python", "backend", "packages", "reasons", "warnings", "compiled_archs",
                "pypi_default_build", "sources", "platform"):
        assert key in data
    assert data["torch"] == "2.4.1" and data["tier"] == "cu121" and data["python"] == "3.11"
    assert data["packages"][0] == {"name": "torch", "version": "2.4.1", "source": "pypi",
                                   "reason": data["packages"][0]["reason"]}
    assert data["packages"][1]["version"] == "0.19.1"


def test_plan_json_gtx1080ti_gets_cu126(capsys, tmp_path):
    code, data = run_plan(capsys, tmp_path, "--assume-driver", "575.57.08", "--assume-gpu", "6.1", "--torch", "2.8")
    assert code == 0 and data["tier"] == "cu126"
    assert data["packages"][0]["version"] == "2.8.0+cu126" and data["packages"][0]["source"] == "torch-index"
    assert any(r.startswith("cu128 skipped") for r in data["reasons"])


def test_plan_json_refusal_exit_2(capsys, tmp_path):
    code, data = run_plan(capsys, tmp_path, "--assume-driver", "575.57.08", "--assume-gpu", "6.1",
                          "--torch", "2.8", "--cuda", "cu128")
    assert code == 2
    assert set(data) >= {"error", "alternatives", "reasons"}
    assert any(a["kind"] == "tier" and a["tier"] == "cu126" for a in data["alternatives"])


def test_plan_human_output_explains(capsys, tmp_path):
    code = main(["plan", "-C", str(tmp_path), *ASSUME, "--assume-driver", "575.57.08", "--assume-gpu", "6.1",
                 "--torch", "2.8"])
    out = capsys.readouterr().out
    assert code == 0
    assert "2.8.0+cu126" in out and "why" in out and "cu128 skipped" in out


def test_plan_for_an_assumed_amd_machine_picks_rocm(capsys, tmp_path):
    """cuda = "auto" on an AMD machine: the newest ROCm tier whose gfx list has the GPU (torch 2.14: ROCm 7.14)."""
    code, data = run_plan(capsys, tmp_path, "--assume-gfx", "gfx942")
    assert code == 0 and (data["torch"], data["tier"]) == ("2.14.1", "rocm7.14")
    assert data["packages"][0]["version"] == "2.14.1+rocm7.14"
    assert any("unverified" in w for w in data["warnings"])
    code, data = run_plan(capsys, tmp_path, "--assume-gfx", "gfx1151", "--torch", "2.10")
    assert code == 2 and any("this GPU is gfx1151" in r for r in data["reasons"])
