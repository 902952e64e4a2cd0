"""`torchenv probe` on this real machine, --save, and the human report."""
from __future__ import annotations

import json
import time

from torchenv.cli import main
from torchenv.machine import Gpu, Machine, NvidiaInfo
from torchenv.options import MachineSpec
from torchenv.probing.assume import machine_for


def test_probe_json_on_this_machine_exits_0(capsys):
    assert main(["probe", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"os", "arch", "nvidia", "pythons", "findings"} <= set(data)
    assert data["os"] in ("linux", "windows", "macos")
    if data["nvidia"] is None:                       # a CPU machine (like the dev box): no GPU, no error
        assert not any("unexpectedly" in f for f in data["findings"])
    else:
        assert "driver" in data["nvidia"]
        assert all({"name", "compute_capability"} <= set(g) for g in data["nvidia"]["gpus"])


def test_probe_human_output_exits_0(capsys):
    assert main(["probe"]) == 0
    captured = capsys.readouterr()
    assert "NVIDIA" in captured.out and "error" not in captured.err.lower()


def test_save_then_machine_round_trip(tmp_path, capsys):
    target = tmp_path / "machines" / "this.json"
    assert main(["probe", "--json", "--save", str(target)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert json.loads(target.read_text()) == printed
    assert [p.name for p in target.parent.iterdir()] == ["this.json"]           # no temp file left behind
    m = machine_for(MachineSpec(machine=str(target)))
    assert m.assumed is True and m.os == printed["os"] and m.to_json()["pythons"] == printed["pythons"]


def test_save_to_an_unwritable_place_is_exit_2_naming_the_file(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["probe", "--save", str(blocker / "m.json")]) == 2
    assert "m.json" in capsys.readouterr().err.replace("\n", "")    # long temp paths (xdist's) wrap the line


def test_gpu_table_shows_compute_capability_and_what_a_build_needs(capsys):
    from torchenv.commands.probe import render
    from torchenv.ui import Ui

    m = Machine(os="linux", arch="x86_64", glibc="2.35", cuda_visible_devices="1",
                nvidia=NvidiaInfo(driver="550.144.03", cuda_driver_version="12.4", source="nvml",
                                  gpus=[Gpu("NVIDIA GeForce RTX 3090", "8.6", 1, 24576, "GPU-b")],
                                  hidden_by_cuda_visible_devices=1),
                findings=["CUDA_VISIBLE_DEVICES=1 hides 1 of 2 GPUs"])
    render(Ui(), m)
    out, err = capsys.readouterr()
    assert "driver 550.144.03" in out and "CUDA up to 12.4" in out
    assert "8.6" in out and "sm_80…sm_86" in out and "24 GiB" in out
    assert "1 more hidden by CUDA_VISIBLE_DEVICES=1" in out
    assert "warning:" in err and "hides 1 of 2 GPUs" in err


def test_probe_is_fast_here():
    from torchenv.probing import probe_machine

    start = time.perf_counter()
    probe_machine()
    assert time.perf_counter() - start < 3.0         # ~0.1 s on the dev box; generous for shared CPUs
