"""--machine FILE and --assume-* flags: planning for a machine that is not this one."""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import types

import pytest

from torchenv.commands._options import add_machine_assumptions, machine_spec
from torchenv.errors import MachineFileError
from torchenv.machine import Gpu, Machine, NvidiaInfo, PythonInstall
from torchenv.options import MachineSpec
from torchenv.probing.assume import machine_for as machine_from_args


def parse(*argv: str) -> MachineSpec:
    p = argparse.ArgumentParser()
    add_machine_assumptions(p)
    return machine_spec(p.parse_args(list(argv)))


@pytest.fixture(autouse=True)
def host_pythons(monkeypatch):
    """The host's interpreters, as probe_pythons_only would list them (kept fixed for the tests)."""
    found = [PythonInstall(version="3.11.7", path="/usr/bin/python3.11", source="path")]
    calls = []
    monkeypatch.setattr("torchenv.probing.probe_pythons_only", lambda **kw: calls.append(kw) or list(found))
    return calls


def test_assumed_driver_and_gpus(host_pythons):
    m = machine_from_args(parse("--assume-driver", "550.54.14", "--assume-gpu", "8.6", "--assume-gpu", "9.0"))
    assert m.assumed is True
    assert (m.os, m.arch, m.glibc, m.wsl) == ("linux", "x86_64", None, False)
    assert m.nvidia.source == "assumed" and m.driver == "550.54.14" and m.nvidia.cuda_driver_version == "12.4"
    assert [(g.index, g.compute_capability) for g in m.gpus] == [(0, "8.6"), (1, "9.0")]
    assert m.gpus[0].name == "assumed GPU (sm_86, like A40)"
    assert [p.version for p in m.pythons] == ["3.11.7"] and len(host_pythons) == 1   # this host's Pythons


def test_gpu_names_come_from_the_knowledge_base_when_it_offers_them(monkeypatch):
    fake_kb = types.SimpleNamespace(representative_gpu=lambda cc: {"8.6": "NVIDIA A10"}.get(cc))
    monkeypatch.setitem(sys.modules, "torchenv.kb", fake_kb)
    monkeypatch.setattr("torchenv.kb", fake_kb, raising=False)
    m = machine_from_args(parse("--assume-driver", "580.95.05", "--assume-gpu", "8.6", "--assume-gpu", "12.0"))
    assert [g.name for g in m.gpus] == ["assumed GPU (sm_86, like NVIDIA A10)", "assumed GPU (sm_120)"]
    assert m.nvidia.cuda_driver_version == "13.0"


def test_assumed_pythons_replace_the_hosts(host_pythons):
    m = machine_from_args(parse("--assume-no-gpu", "--assume-python", "3.10", "--assume-python", "3.12"))
    assert [(p.version, p.source, p.path) for p in m.pythons] == [("3.10", "assumed", ""), ("3.12", "assumed", "")]
    assert m.nvidia is None and host_pythons == []


def test_assumed_amd_gpus_by_gfx_target():
    """An AMD machine is planned from its gfx targets (what ROCm wheels are compiled for)."""
    m = machine_from_args(parse("--assume-gfx", "gfx942", "--assume-gfx", "GFX90A"))
    assert m.assumed and m.rocm.gfx == ["gfx942", "gfx90a"] and m.nvidia is None


def test_driver_without_gpus_plans_on_the_driver_alone_and_says_so():
    m = machine_from_args(parse("--assume-driver", "535.104.05"))
    assert m.gpus == [] and m.nvidia.cuda_driver_version == "12.2"
    assert any("checks the driver only" in f for f in m.findings)


def test_macos_defaults_to_apple_silicon():
    m = machine_from_args(parse("--assume-os", "macos"))
    assert (m.os, m.arch, m.glibc) == ("macos", "arm64", None)
    assert m.apple.mps is True and m.nvidia is None


def test_arch_spelling_follows_the_os():
    assert machine_from_args(parse("--assume-arch", "arm64")).arch == "aarch64"
    assert machine_from_args(parse("--assume-os", "macos", "--assume-arch", "aarch64")).arch == "arm64"


def test_glibc_assumption():
    assert machine_from_args(parse("--assume-glibc", "2.28", "--assume-no-gpu")).glibc == "2.28"


@pytest.mark.parametrize("argv, named", [
    (["--assume-gpu", "8.6"], "--assume-gpu 8.6 needs a driver"),
    (["--assume-driver", "550", "--assume-gpu", "86"], "--assume-gpu 86: not a compute capability"),
    (["--assume-driver", "550", "--assume-gpu", "sm_86"], "--assume-gpu sm_86"),
    (["--assume-driver", "latest"], "--assume-driver latest: not an NVIDIA driver version"),
    (["--assume-driver", "390.12"], "--assume-driver 390.12: older than"),
    (["--assume-python", "3"], "--assume-python 3: not a Python 3 version"),
    (["--assume-python", "2.7"], "--assume-python 2.7"),
    (["--assume-glibc", "two"], "--assume-glibc two: not a glibc version"),
    (["--assume-os", "windows", "--assume-glibc", "2.28"], "--assume-glibc 2.28: glibc only exists on Linux"),
    (["--assume-no-gpu", "--assume-gpu", "8.6"], "--assume-no-gpu contradicts --assume-gpu"),
    (["--assume-os", "macos", "--assume-driver", "550.54.14"], "--assume-driver: macOS has no NVIDIA CUDA"),
    (["--assume-gfx", "90a"], "--assume-gfx 90a: not an AMD gfx target"),
    (["--assume-os", "windows", "--assume-gfx", "gfx90a"], "--assume-gfx gfx90a: ROCm torch wheels exist for Linux"),
    (["--assume-no-gpu", "--assume-gfx", "gfx942"], "--assume-gfx gfx942: contradicts --assume-no-gpu"),
])
def test_bad_assumptions_exit_2_naming_the_flag_and_value(argv, named):
    with pytest.raises(MachineFileError) as info:
        machine_from_args(parse(*argv))
    assert info.value.exit_code == 2
    assert named in info.value.message
    assert info.value.hint


def _gpu_box() -> Machine:
    return Machine(os="linux", arch="x86_64", glibc="2.35",
                   nvidia=NvidiaInfo(driver="535.183.01", cuda_driver_version="12.2", source="nvml",
                                     gpus=[Gpu("NVIDIA GeForce GTX 1080 Ti", "6.1", 0, 11264, "GPU-a")]),
                   pythons=[PythonInstall("3.10.12", "/usr/bin/python3.10", "path")])


def test_machine_file_is_used_as_is_but_marked_assumed(tmp_path, host_pythons):
    f = tmp_path / "server.json"
    f.write_text(_gpu_box().dumps())
    m = machine_from_args(parse("--machine", str(f)))
    assert m.assumed is True and m.gpus[0].compute_capability == "6.1" and m.glibc == "2.35"
    assert [p.version for p in m.pythons] == ["3.10.12"] and host_pythons == []     # the target's, not ours


def test_assumptions_layer_over_a_machine_file(tmp_path):
    f = tmp_path / "server.json"
    f.write_text(_gpu_box().dumps())
    m = machine_from_args(parse("--machine", str(f), "--assume-driver", "580.95.05"))
    assert m.driver == "580.95.05" and m.nvidia.cuda_driver_version == "13.0"
    assert m.gpus[0].name == "NVIDIA GeForce GTX 1080 Ti"                        # GPUs kept from the file
    m = machine_from_args(parse("--machine", str(f), "--assume-gpu", "12.0"))     # driver from the file
    assert m.driver == "535.183.01" and [g.compute_capability for g in m.gpus] == ["12.0"]
    assert machine_from_args(parse("--machine", str(f), "--assume-no-gpu")).nvidia is None


def test_missing_or_broken_machine_file_is_exit_2(tmp_path):
    with pytest.raises(MachineFileError) as info:
        machine_from_args(parse("--machine", str(tmp_path / "nope.json")))
    assert info.value.exit_code == 2 and "nope.json" in info.value.message
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(MachineFileError):
        machine_from_args(parse("--machine", str(bad)))


def test_no_flags_means_probing(monkeypatch):
    sentinel = Machine(os="linux", arch="x86_64")
    monkeypatch.setattr("torchenv.probing.probe_machine", lambda **kw: sentinel)
    assert machine_from_args(parse()) is sentinel
    assert machine_from_args(MachineSpec()) is sentinel         # callers that describe no machine


def test_assumed_path_stays_cheap_no_gpu_library_no_rich():
    code = ("import argparse, sys, json\n"
            "from torchenv.options import MachineSpec\n"
            "from torchenv.probing.assume import machine_for\n"
            "m = machine_for(MachineSpec(assume_driver='550.54.14', assume_gpu=('8.6',), assume_python=('3.11',)))\n"
            "print(json.dumps([m.driver, sorted(k for k in sys.modules if k.split('.')[0] in "
            "('pynvml', 'rich') or k.startswith('torchenv.probing.nvidia.detect'))]))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    driver, heavy = json.loads(out.stdout)
    assert driver == "550.54.14" and heavy == []


@pytest.mark.parametrize("argv, starts", [
    (["--assume-driver", "550", "--assume-gpu", "86"], "--assume-gpu 86: not a compute capability"),
    (["--assume-gpu", "8.6"], "--assume-gpu 8.6 needs a driver"),
    (["--assume-python", "three"], "--assume-python three"),
])
def test_bad_assumption_through_the_cli_is_exit_2_with_the_flag_named(tmp_path, capsys, argv, starts):
    from torchenv.cli import main

    assert main(["plan", "-C", str(tmp_path), "--json", *argv]) == 2
    data = json.loads(capsys.readouterr().out)
    assert data["error"].startswith(starts) and data["hint"]


def test_a_free_threaded_python_can_be_assumed_and_a_314t_plan_uses_it(monkeypatch):
    from torchenv.intent.model import Intent, TorchIntent
    from torchenv.resolve.resolver import resolve

    monkeypatch.setenv("TORCHENV_OFFLINE", "1")
    m = machine_from_args(parse("--assume-driver", "580.65.06", "--assume-gpu", "9.0",
                                "--assume-python", "3.14t", "--assume-python", "3.12"))
    assert m.python_versions() == ["3.12", "3.14t"]
    plan = resolve(Intent(torch=TorchIntent(python="3.14t")), m)
    assert plan.python == "3.14t" and any("3.14t: set by the caller; on the (assumed) machine" in r
                                          for r in plan.reasons)
    probed = Machine(os="linux", arch="x86_64", pythons=[PythonInstall("3.14.0t", "/usr/bin/python3.14t", "path"),
                                                         PythonInstall("3.14.0", "/usr/bin/python3.14", "path")])
    plan = resolve(Intent(torch=TorchIntent(python="3.14t", cuda="cpu")), probed)
    assert plan.python_path == "/usr/bin/python3.14t"
