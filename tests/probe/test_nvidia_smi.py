"""GPUs read from nvidia-smi's CSV query, across driver generations and failure modes."""
from __future__ import annotations

import subprocess

import pytest
from probe_fakes import SMI_FIELDS_NO_CC, Recorded, smi_key, smi_out


@pytest.fixture
def smi_on_path(tree):
    tree.exe("/usr/bin/nvidia-smi")


@pytest.mark.parametrize("fixture, driver, cuda, names, ccs, memory", [
    ("535-a100x4.out", "535.104.05", "12.2", ["NVIDIA A100-SXM4-80GB"] * 4, ["8.0"] * 4, 81920),
    ("550-rtx4090.out", "550.144.03", "12.4", ["NVIDIA GeForce RTX 4090"], ["8.9"], 24564),
    ("575-rtx5090.out", "575.57.08", "12.9", ["NVIDIA GeForce RTX 5090"], ["12.0"], 32607),
    ("595-b200x2.out", "595.58.03", "13.2", ["NVIDIA B200"] * 2, ["10.0"] * 2, 183359),
    ("535-mixed-1080ti-3090.out", "535.183.01", "12.2",
     ["NVIDIA GeForce GTX 1080 Ti", "NVIDIA GeForce RTX 3090"], ["6.1", "8.6"], 11264),
])
def test_each_driver_generation_reports_gpus_and_compute_capability(
        probe, smi_on_path, fixture, driver, cuda, names, ccs, memory):
    run = Recorded({smi_key(): (0, smi_out(fixture))})
    m = probe(run=run)
    assert m.nvidia is not None and m.nvidia.source == "nvidia-smi"
    assert m.driver == driver
    assert m.nvidia.cuda_driver_version == cuda          # derived from NVIDIA's driver table
    assert [g.name for g in m.gpus] == names
    assert [g.compute_capability for g in m.gpus] == ccs
    assert [g.index for g in m.gpus] == list(range(len(names)))
    assert m.gpus[0].memory_mib == memory and m.gpus[0].uuid.startswith("GPU-")
    assert m.findings == []
    assert all(timeout and timeout <= 10 for _, timeout in run.calls)


def test_r470_without_compute_cap_field_is_requeried_and_cc_left_unknown(probe, smi_on_path, monkeypatch):
    monkeypatch.setattr("torchenv.probing.kb_lookup._ask", lambda *a: None)     # no knowledge base answer
    run = Recorded({smi_key(): (2, smi_out("470-no-compute-cap.out")),
                    smi_key(SMI_FIELDS_NO_CC): (0, smi_out("470-t4x2.out"))})
    m = probe(run=run)
    assert len(run.calls) == 2
    assert m.driver == "470.82.01" and m.nvidia.cuda_driver_version == "11.4"
    assert [g.name for g in m.gpus] == ["Tesla T4", "Tesla T4"]
    assert [g.compute_capability for g in m.gpus] == [None, None]
    assert any("compute capability of GPU 0 (Tesla T4) is unknown" in f and "compute_cap" in f
               for f in m.findings)


def test_r470_compute_capability_comes_from_the_knowledge_base_when_it_knows_the_name(
        probe, smi_on_path, monkeypatch):
    import types

    fake_kb = types.SimpleNamespace(gpu_cc=lambda name: {"Tesla T4": "7.5"}.get(name))
    monkeypatch.setitem(__import__("sys").modules, "torchenv.kb", fake_kb)
    monkeypatch.setattr("torchenv.kb", fake_kb, raising=False)
    run = Recorded({smi_key(): (2, smi_out("470-no-compute-cap.out")),
                    smi_key(SMI_FIELDS_NO_CC): (0, smi_out("470-t4x2.out"))})
    m = probe(run=run)
    assert [g.compute_capability for g in m.gpus] == ["7.5", "7.5"]
    assert not any("unknown" in f for f in m.findings)


def test_r470_compute_capability_from_the_real_knowledge_base(probe, smi_on_path):
    run = Recorded({smi_key(): (2, smi_out("470-no-compute-cap.out")),
                    smi_key(SMI_FIELDS_NO_CC): (0, smi_out("470-t4x2.out"))})
    assert [g.compute_capability for g in probe(run=run).gpus] == ["7.5", "7.5"]


def test_mig_and_permission_placeholders_become_unknown_values_not_garbage(probe, smi_on_path):
    m = probe(run=Recorded({smi_key(): (0, smi_out("580-h100-mig.out"))}))
    assert m.driver == "580.95.05" and m.nvidia.cuda_driver_version == "13.0"
    second = m.gpus[1]
    assert second.compute_capability == "9.0"
    assert second.memory_mib is None and second.uuid is None


def test_wsl2_finds_nvidia_smi_under_usr_lib_wsl_and_reads_a_windows_driver_number(probe, tree):
    tree.write("/proc/version", "Linux version 5.15.153.1-microsoft-standard-WSL2 (root@1a2b) #1 SMP\n")
    tree.exe("/usr/lib/wsl/lib/nvidia-smi")               # not on PATH
    m = probe(run=Recorded({smi_key(): (0, smi_out("wsl2-546-rtx3060.out"))}))
    assert m.wsl is True
    assert m.driver == "546.80"
    assert m.nvidia.cuda_driver_version == "12.3"          # Windows column: 546.80 >= 545.84 (12.3 GA)
    assert m.gpus[0].compute_capability == "8.6"


def test_wsl2_without_a_windows_driver_says_where_the_driver_belongs(probe, tree):
    tree.write("/proc/version", "Linux version 5.15.153.1-microsoft-standard-WSL2\n")
    tree.mkdir("/usr/lib/wsl/lib")
    m = probe()
    assert m.wsl is True and m.nvidia is None
    assert any("driver on Windows" in f for f in m.findings)


def test_driver_not_loaded_is_a_finding_not_a_crash(probe, smi_on_path):
    m = probe(run=Recorded({smi_key(): (9, smi_out("no-driver.out"))}))
    assert m.nvidia is None
    assert any("couldn't communicate with the NVIDIA driver" in f and "status 9" in f for f in m.findings)


def test_library_mismatch_with_module_loaded_keeps_the_module_version(probe, tree, smi_on_path):
    tree.write("/proc/driver/nvidia/version", (__import__("pathlib").Path(__file__).parent
                                               / "data/proc/open-550.txt").read_text())
    m = probe(run=Recorded({smi_key(): (18, smi_out("mismatch.out"))}))
    assert m.nvidia is not None
    assert m.driver == "550.144.03" and m.nvidia.source == "proc" and m.gpus == []
    assert m.nvidia.cuda_driver_version == "12.4"
    finding = next(f for f in m.findings if f.startswith("NVIDIA kernel module loaded (550.144.03)"))
    assert "Driver/library version mismatch" in finding


def test_hung_nvidia_smi_times_out_with_a_finding(probe, smi_on_path):
    run = Recorded({smi_key(): subprocess.TimeoutExpired("nvidia-smi", 5)})
    m = probe(run=run)
    assert m.nvidia is None
    assert any("nvidia-smi timed out after 5 s" in f for f in m.findings)
    assert run.calls[0][1] == 5


def test_crashing_nvidia_smi_is_reported_as_a_crash(probe, smi_on_path):
    m = probe(run=Recorded({smi_key(): (-11, "")}))
    assert any("nvidia-smi crashed (signal 11)" in f for f in m.findings)


def test_driver_with_no_gpu(probe, tree, smi_on_path):
    tree.write("/sys/module/nvidia/version", "550.144.03\n")
    m = probe(run=Recorded({smi_key(): (6, smi_out("no-devices.out"))}))
    assert m.nvidia is not None and m.gpus == [] and m.driver == "550.144.03"
    assert any("reports no GPU" in f for f in m.findings)


def test_gpu_on_pci_bus_without_any_driver_is_called_out(probe, tree):
    tree.write("/sys/bus/pci/devices/0000:01:00.0/vendor", "0x10de\n")
    tree.write("/sys/bus/pci/devices/0000:01:00.0/class", "0x030000\n")
    tree.write("/sys/bus/pci/devices/0000:01:00.1/vendor", "0x10de\n")      # its HDMI audio function
    tree.write("/sys/bus/pci/devices/0000:01:00.1/class", "0x040300\n")
    m = probe()
    assert m.nvidia is None
    assert any("1 NVIDIA GPU(s) on the PCI bus but no NVIDIA driver is loaded" in f for f in m.findings)


def test_no_nvidia_anything_means_no_gpu_and_no_findings(probe):
    m = probe()
    assert m.nvidia is None and m.findings == []
