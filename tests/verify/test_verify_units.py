"""Pure logic of verify: version matching, arch coverage, lock expectations, report file."""
from __future__ import annotations

import ast
import json
import sys
import types

import pytest

from torchenv.lockfile.model import LockedWheel, Lockfile, LockTarget
from torchenv.verification import Check, VerifyReport, checks_script, write_report
from torchenv.verification.expect import expectations, tier_cuda


def test_checks_script_is_python38_syntax():
    source = checks_script.__file__
    with open(source, encoding="utf-8") as fh:
        ast.parse(fh.read(), feature_version=(3, 8))


@pytest.mark.parametrize("expected, actual, ok", [
    ("2.14.1", "2.14.1+cu130", True),        # PyPI default build: lock has no tag
    ("2.13.0+cpu", "2.13.0+cpu", True),
    ("2.13.0+cpu", "2.13.0+cu126", False),
    ("2.13.0+cpu", "2.13.0", False),
    ("2.4", "2.4.0", True),
    ("2.13.0", "2.12.0+cpu", False),
    ("0.29.1", None, False),
])
def test_version_matches(expected, actual, ok):
    assert checks_script.version_matches(expected, actual) is ok


@pytest.mark.parametrize("cc, archs, covered", [
    ((8, 6), ["sm_80", "sm_86"], "sm_86 is in the build's arch list"),
    ((8, 9), ["sm_80", "sm_86", "sm_90"], "sm_89 runs the build's sm_86 code"),
    ((10, 3), ["sm_90", "sm_100", "sm_120"], "sm_103 runs the build's sm_100 code"),
    ((12, 1), ["sm_90", "compute_120"], "PTX compute_120"),
    ((6, 1), ["sm_70", "sm_75", "sm_80"], None),
    ((9, 1), ["sm_90a"], None),              # arch-specific code is not portable
    ((7, 5), ["sm_80", "compute_80"], None),  # PTX newer than the GPU
])
def test_arch_coverage(cc, archs, covered):
    got = checks_script.arch_coverage(cc, archs)
    assert (got is None) if covered is None else (covered in got)


def test_tier_cuda():
    assert tier_cuda("cu121") == {"cuda": "12.1"}
    assert tier_cuda("cu130") == {"cuda": "13.0"}
    assert tier_cuda("cpu") == {"cuda": "none"}
    assert tier_cuda("rocm6.2") == {"hip": "6.2"}


def _target(name: str, tier: str, torch: str) -> LockTarget:
    wheels = (LockedWheel("torch", torch, "t.whl", "https://x/t.whl", "0" * 64, "https://x"),
              LockedWheel("torchvision", "0.29.1", "v.whl", "https://x/v.whl", "0" * 64, "https://x"),
              LockedWheel("numpy", "2.1.0", "n.whl", "https://x/n.whl", "0" * 64, "https://x"))
    os_name, arch, _ = name.split("-", 2)
    return LockTarget(name=name, os=os_name, arch=arch, tier=tier, python="3.11", backend="venv",
                      torch=torch, wheels=wheels)


@pytest.fixture
def fake_lock_io(monkeypatch, tmp_path):
    lock = Lockfile(intent_hash="sha256:x", targets=(_target("linux-x86_64-cu130", "cu130", "2.14.1"),
                                                     _target("linux-aarch64-cpu", "cpu", "2.14.1+cpu")))
    io = types.ModuleType("torchenv.lockfile.io")
    io.read_lock = lambda path: lock
    monkeypatch.setitem(sys.modules, "torchenv.lockfile.io", io)
    (tmp_path / "torchenv.lock").write_text("# fake\n")
    return lock


def test_expectations_follow_the_env_state_target(fake_lock_io, tmp_path):
    env = tmp_path / ".venv"
    (env / ".torchenv").mkdir(parents=True)
    (env / ".torchenv" / "state.json").write_text(json.dumps({"target": "linux-aarch64-cpu"}))
    exp = expectations(tmp_path, env)
    assert exp.target == "linux-aarch64-cpu"
    assert exp.expected == {"torch": "2.14.1+cpu", "torchvision": "0.29.1", "cuda": "none"}


def test_expectations_without_state_pick_this_platform(fake_lock_io, tmp_path, monkeypatch):
    from torchenv.verification import expect

    monkeypatch.setattr(expect, "_this_platform", lambda: ("linux", "x86_64"))
    exp = expectations(tmp_path, tmp_path / ".venv")
    assert exp.target == "linux-x86_64-cu130" and exp.expected["cuda"] == "13.0"


def test_no_lock_means_no_expectations(tmp_path):
    exp = expectations(tmp_path, tmp_path / ".venv")
    assert exp.expected == {} and "no torchenv.lock" in exp.notes[0]


def test_report_ok_rules_and_atomic_write(tmp_path):
    passed = VerifyReport.from_checks([Check("import torch", True, "ok"),
                                       Check("accelerator", True, "no device", "warning")])
    assert passed.ok
    failed = VerifyReport.from_checks([Check("import torch", False, "boom", "error"),
                                       Check("compute", False, "skipped: import torch failed", "skipped")])
    assert not failed.ok and failed.verdict() == "verify failed: import torch: boom"
    assert not VerifyReport.from_checks([]).ok
    path = write_report(tmp_path, failed)
    assert path == tmp_path / ".torchenv" / "verify.json"
    assert json.loads(path.read_text())["checks"][1]["severity"] == "skipped"
    assert [p.name for p in path.parent.iterdir()] == ["verify.json"]   # no temp file left
    assert VerifyReport.from_json(json.loads(path.read_text())).checks == failed.checks


def test_a_saved_check_whose_text_data_was_edited_reads_back_as_its_text():
    """verify.json edited by hand: data that no longer renders (a placeholder without a value) or renders other
    words gives way to the saved text; reading the report never fails on it."""
    from torchenv.verification.report import Check

    broken = {"name": "accelerator", "ok": True, "detail": "CPU only",
              "texts": {"detail": {"msg": "{count} CUDA devices visible", "values": {"other": 1}},
                        "name": {"msg": "devices", "values": {}}}}
    check = Check.from_json(broken)
    assert (check.name, check.detail) == ("accelerator", "CPU only")
