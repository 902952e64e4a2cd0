"""OS/arch normalisation, AMD ROCm via kfd topology, Apple silicon."""
from __future__ import annotations

import pytest
from probe_fakes import Recorded

from torchenv.probing.osinfo import normalise_arch, normalise_os
from torchenv.probing.rocm import gfx_name


@pytest.mark.parametrize("system, machine, os_name, arch", [
    ("Linux", "x86_64", "linux", "x86_64"),
    ("Linux", "aarch64", "linux", "aarch64"),
    ("Windows", "AMD64", "windows", "x86_64"),
    ("Windows", "ARM64", "windows", "aarch64"),
    ("Darwin", "arm64", "macos", "arm64"),
    ("Darwin", "x86_64", "macos", "x86_64"),
])
def test_os_and_arch_are_normalised(system, machine, os_name, arch):
    assert normalise_os(system) == os_name
    assert normalise_arch(machine, os_name) == arch


def test_plain_linux_is_not_wsl(probe, tree):
    tree.write("/proc/version", "Linux version 6.8.0-45-generic (buildd@lcy02) #45-Ubuntu SMP\n")
    assert probe().wsl is False


def test_wsl1_without_wsl_libraries_is_not_wsl2(probe, tree):
    tree.write("/proc/version", "Linux version 4.4.0-19041-Microsoft (Microsoft@Microsoft.com)\n")
    assert probe().wsl is False


@pytest.mark.parametrize("value, name", [(110000, "gfx1100"), (90010, "gfx90a"), (90402, "gfx942"),
                                         (100300, "gfx1030"), (120001, "gfx1201"), (90008, "gfx908"), (0, None)])
def test_gfx_target_version_to_name(value, name):
    assert gfx_name(value) == name


def _kfd_node(tree, n, gfx_target_version):
    tree.write(f"/sys/class/kfd/kfd/topology/nodes/{n}/properties",
               f"cpu_cores_count {0 if gfx_target_version else 16}\nsimd_count 0\n"
               f"gfx_target_version {gfx_target_version}\nvendor_id 4098\n")


def test_rocm_gpus_from_kfd_topology_and_version(probe, tree):
    _kfd_node(tree, 0, 0)                     # the CPU node
    _kfd_node(tree, 1, 110000)
    _kfd_node(tree, 2, 90010)
    tree.write("/opt/rocm/.info/version", "6.2.4-120\n")
    m = probe()
    assert m.rocm.gfx == ["gfx1100", "gfx90a"] and m.rocm.version == "6.2.4"
    assert m.nvidia is None


def test_rocm_gfx_override_is_reported(probe, tree):
    _kfd_node(tree, 1, 100301)
    m = probe(env={"HSA_OVERRIDE_GFX_VERSION": "10.3.0"})
    assert m.rocm.gfx == ["gfx1031"]
    assert any("HSA_OVERRIDE_GFX_VERSION=10.3.0" in f for f in m.findings)


def test_no_amd_gpu_means_no_rocm(probe):
    assert probe().rocm is None


def test_apple_silicon(probe):
    run = Recorded({"sysctl -n machdep.cpu.brand_string": (0, "Apple M2 Pro\n")})
    m = probe(run=run, system="Darwin", machine="arm64", env={"PATH": "/usr/bin"})
    assert (m.os, m.arch) == ("macos", "arm64")
    assert m.apple.chip == "Apple M2 Pro" and m.apple.mps is True
    assert m.nvidia is None and m.glibc is None


def test_intel_mac_has_no_mps(probe):
    m = probe(system="Darwin", machine="x86_64")
    assert m.apple is None and m.arch == "x86_64"
