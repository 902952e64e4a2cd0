"""Kernel-module version files and the driver → CUDA table."""
from __future__ import annotations

from pathlib import Path

import pytest

from torchenv.probing.nvidia.driver_cuda import cuda_for_driver, format_nvml_cuda
from torchenv.probing.nvidia.kernel import parse_proc_version, parse_sysfs_version

PROC = Path(__file__).parent / "data" / "proc"


@pytest.mark.parametrize("fixture, version", [
    ("open-550.txt", "550.144.03"), ("legacy-470.txt", "470.82.01"), ("aarch64-535.txt", "535.104.05")])
def test_proc_driver_version_formats(fixture, version):
    assert parse_proc_version((PROC / fixture).read_text()) == version


def test_proc_version_single_spaced_and_garbage():
    assert parse_proc_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module 570.86.15 Thu Jan 1\n") == "570.86.15"
    assert parse_proc_version("NVRM version: something else entirely\n") is None
    assert parse_proc_version("") is None


def test_sysfs_version():
    assert parse_sysfs_version("550.144.03\n") == "550.144.03"
    assert parse_sysfs_version("garbage\n") is None


def test_unparsable_sysfs_is_a_finding_and_proc_is_still_read(probe, tree):
    tree.write("/sys/module/nvidia/version", "???\n")
    tree.write("/proc/driver/nvidia/version", (PROC / "legacy-470.txt").read_text())
    m = probe()
    assert m.driver == "470.82.01" and m.nvidia.source == "proc"
    assert any("/sys/module/nvidia/version exists but" in f for f in m.findings)


@pytest.mark.parametrize("driver, os_name, cuda", [
    ("550.54.14", "linux", "12.4"),           # exactly 12.4 GA
    ("550.54.13", "linux", "12.3"),
    ("550.144.03", "linux", "12.4"),
    ("580.65.06", "linux", "13.0"),
    ("575.57.08", "linux", "12.9"),
    ("470.82.01", "linux", "11.4"),
    ("450.80.02", "linux", "11.0"),
    ("610.43.02", "linux", "13.2"),           # newer than the table: the newest known, a floor
    ("576.02", "windows", "12.9"),
    ("551.61", "windows", "12.4"),
    ("400.1", "linux", None),
    ("not-a-driver", "linux", None),
    (None, "linux", None),
])
def test_cuda_supported_by_driver(driver, os_name, cuda):
    assert cuda_for_driver(driver, os_name) == cuda


def test_nvml_cuda_encoding():
    assert format_nvml_cuda(12040) == "12.4" and format_nvml_cuda(13020) == "13.2" and format_nvml_cuda(11080) == "11.8"
