"""NVML first: exact driver, CUDA version and compute capability, and what happens when it breaks."""
from __future__ import annotations

from pathlib import Path

from probe_fakes import FakeNvml, FakeNVMLError, Recorded, smi_key, smi_out

GiB = 1024 ** 3


def _gpu(name, cc, mem_gib, uuid):
    return {"name": name, "cc": cc, "memory": mem_gib * GiB, "uuid": uuid}


def test_nvml_reports_driver_cuda_and_every_gpu(probe, tree):
    tree.write("/sys/module/nvidia/version", "550.144.03\n")
    nvml = FakeNvml(driver="550.144.03", cuda=12040, gpus=[
        _gpu(b"NVIDIA GeForce RTX 3090", (8, 6), 24, b"GPU-aaaa"),     # older pynvml returns bytes
        _gpu("NVIDIA A10", (8, 6), 24, "GPU-bbbb"),
    ])
    m = probe(nvml=nvml)
    assert m.nvidia.source == "nvml"
    assert m.driver == "550.144.03" and m.nvidia.cuda_driver_version == "12.4"
    assert [(g.name, g.compute_capability, g.memory_mib, g.uuid) for g in m.gpus] == [
        ("NVIDIA GeForce RTX 3090", "8.6", 24 * 1024, "GPU-aaaa"),
        ("NVIDIA A10", "8.6", 24 * 1024, "GPU-bbbb")]
    assert nvml.shutdown_called and m.findings == []


def test_nvml_cuda_version_formats_minor_versions(probe):
    m = probe(nvml=FakeNvml(driver="580.95.05", cuda=13000, gpus=[_gpu("NVIDIA H200", (9, 0), 141, "GPU-h")]))
    assert m.nvidia.cuda_driver_version == "13.0"


def test_nvml_mismatch_with_module_loaded_is_a_finding_naming_both(probe, tree):
    tree.write("/proc/driver/nvidia/version", (Path(__file__).parent / "data/proc/open-550.txt").read_text())
    nvml = FakeNvml(init_error=FakeNVMLError(18, "Driver/library version mismatch"))
    m = probe(nvml=nvml)
    assert m.driver == "550.144.03" and m.gpus == [] and m.nvidia.source == "proc"
    assert any(f.startswith("NVIDIA kernel module loaded (550.144.03) but NVML failed: "
                            "Driver/library version mismatch") for f in m.findings)


def test_nvml_failure_falls_back_to_nvidia_smi_and_says_so(probe, tree):
    tree.write("/sys/module/nvidia/version", "550.144.03\n")
    tree.exe("/usr/bin/nvidia-smi")
    nvml = FakeNvml(init_error=FakeNVMLError(999, "Unknown Error"))
    m = probe(nvml=nvml, run=Recorded({smi_key(): (0, smi_out("550-rtx4090.out"))}))
    assert m.nvidia.source == "nvidia-smi" and m.gpus[0].compute_capability == "8.9"
    assert any("NVML failed (Unknown Error)" in f for f in m.findings)


def test_missing_nvml_library_on_a_cpu_machine_is_silent(probe):
    nvml = FakeNvml(init_error=FakeNVMLError(12, "NVML Shared Library Not Found"))
    m = probe(nvml=nvml)
    assert m.nvidia is None and m.findings == []


def test_one_unreadable_gpu_field_costs_only_that_field(probe, monkeypatch):
    monkeypatch.setattr("torchenv.probing.kb_lookup._ask", lambda *a: None)     # no GPU-name table either
    nvml = FakeNvml(gpus=[_gpu("NVIDIA A100-SXM4-40GB", FakeNVMLError(3, "Not Supported"), 40, "GPU-x")])
    m = probe(nvml=nvml)
    assert m.gpus[0].name == "NVIDIA A100-SXM4-40GB" and m.gpus[0].compute_capability is None
    assert any("could not read the compute capability of GPU 0" in f for f in m.findings)
    assert any("compute capability of GPU 0" in f and "unknown" in f for f in m.findings)


def test_a_crashing_source_is_contained(probe):
    class Exploding(FakeNvml):
        def nvmlDeviceGetCount(self):
            raise RuntimeError("boom")

    m = probe(nvml=Exploding())
    assert m.nvidia is None
    assert any("NVML failed: nvmlDeviceGetCount: boom" in f for f in m.findings)
