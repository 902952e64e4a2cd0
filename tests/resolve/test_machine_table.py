"""Real-world machines x intents -> the expected torch/tier, or a refusal. Each row cites the fact that decides it.

`expect` is ("2.8.0", "cu126") for a plan, or ("refuse", <alternative kind that must be offered>).
"""
from __future__ import annotations

import pytest
from resolve_machines import (
    A100,
    B200,
    B300,
    GB10,
    GH200,
    GTX1080TI,
    H100,
    K80,
    L4,
    ORIN,
    RTX3080,
    RTX3090,
    RTX4090,
    RTX5090,
    T4,
    V100,
    intent,
    machine,
)

from torchenv.errors import PlanRefused
from torchenv.resolve.resolver import resolve

LINUX = dict(os="linux", arch="x86_64")
WIN = dict(os="windows", arch="x86_64")
ARM = dict(os="linux", arch="aarch64")

ROWS = [
    # id, machine kwargs, intent kwargs, expect, why
    ("1080ti-575-torch2.8", dict(driver="575.57.08", gpus=[GTX1080TI]), dict(version="2.8"), ("2.8.0", "cu126"),
     "§2c: Maxwell/Pascal removed from cu128 in 2.8; §2d: 6.1 runs the sm_60 of cu126"),
    ("1080ti-575-latest", dict(driver="575.57.08", gpus=[GTX1080TI]), {}, ("2.14.1", "cu126"),
     "§3c: cu130/cu132 need 580; §2c: only cu126 keeps Pascal 2.8-2.14"),
    ("1080ti-580-latest", dict(driver="580.65.06", gpus=[GTX1080TI]), {}, ("2.14.1", "cu126"),
     "§2a: 2.15 exists only as cu132 (sm_75+), no PTX"),
    ("1080ti-470-latest", dict(driver="470.82.01", gpus=[GTX1080TI]), {}, ("2.7.1", "cu118"),
     "§3c: cu12x need 525.60.13; cu118 (450.80.02 floor) carries sm_60 and was dropped in 2.8"),
    ("1080ti-470-torch2.8", dict(driver="470.82.01", gpus=[GTX1080TI]), dict(version="2.8"), ("refuse", "driver"),
     "§1a: 2.8 has no cu11x tier; every tier needs 525.60.13"),
    ("1080ti-575-cu128-pinned", dict(driver="575.57.08", gpus=[GTX1080TI]), dict(version="2.8", cuda="cu128"),
     ("refuse", "tier"), "§2c: 2.8 cu128 has no sm_6x: explicit tier refused, cu126 offered"),
    ("1080ti-560-cu121-pinned", dict(driver="560.35.03", gpus=[GTX1080TI]), dict(version="2.4", cuda="12.1"),
     ("2.4.1", "cu121"), "§2a: 2.4 cu121 carries sm_60; explicit tier honoured"),
    ("k80-418-latest", dict(driver="418.39", gpus=[K80]), {}, ("1.8.1", "cu101"),
     "§3a: 10.1 needs 418.39, 10.2 needs 440.33; only 1.8.1 has cu101"),
    ("k80-470-latest", dict(driver="470.82.01", gpus=[K80]), {}, ("2.7.1", "cu118"),
     "§2c: cu118 kept sm_37 until cu118 was dropped in 2.8"),
    ("v100-535-latest", dict(driver="535.104.05", gpus=[V100]), {}, ("2.14.1", "cu126"),
     "§2c: Volta only in cu126 from 2.11; cu13x need 580"),
    ("v100-580-latest", dict(driver="580.95.05", gpus=[V100]), {}, ("2.14.1", "cu126"),
     "§2b: CUDA 13 builds are Turing+; PTX 12.0 cannot JIT for 7.0"),
    ("v100-575-torch2.10", dict(driver="575.57.08", gpus=[V100]), dict(version="2.10"), ("2.10.0", "cu128"),
     "§2c: Volta kept in cu128 for 2.8-2.10"),
    ("v100-575-torch2.11", dict(driver="575.57.08", gpus=[V100]), dict(version="2.11"), ("2.11.0", "cu126"),
     "§2c: Volta removed from cu128 in 2.11"),
    ("t4-550-latest", dict(driver="550.54.14", gpus=[T4]), {}, ("2.14.1", "cu126"),
     "§3c: cu130 needs 580; cu126 carries sm_75"),
    ("t4-580-latest", dict(driver="580.65.06", gpus=[T4]), {}, ("2.15.0", "cu132"),
     "§2a: 2.15 PyPI cu132 carries sm_75; 13.x floor 580"),
    ("a100-470-latest", dict(driver="470.82.01", gpus=[A100]), {}, ("2.7.1", "cu118"),
     "§3b: 11.x minor compat >= 450.80.02; cu118 has sm_80"),
    ("a100-525-torch2.4", dict(driver="525.60.13", gpus=[A100]), dict(version="2.4"), ("2.4.1", "cu121"),
     "§1a: 2.4 cu124 is experimental, cu121 stable newest"),
    ("a100-525-torch2.4-exp", dict(driver="525.60.13", gpus=[A100]), dict(version="2.4", experimental=True),
     ("2.4.1", "cu124"), "§1a: cu124 experimental for 2.4, allowed"),
    ("a100-525-torch2.4-strict", dict(driver="525.60.13", gpus=[A100]), dict(version="2.4", policy="strict"),
     ("2.4.1", "cu118"), "§3a: 12.1 GA needs 530.30.02; 11.8 GA 520.61.05"),
    ("a100-525-torch2.8-strict", dict(driver="525.85.12", gpus=[A100]), dict(version="2.8", policy="strict"),
     ("refuse", "policy"), "§3a: 12.6 GA needs 560.28.03, 12.8 GA 570.26; compat would accept"),
    ("3090-550-latest", dict(driver="550.54.14", gpus=[RTX3090]), {}, ("2.14.1", "cu126"),
     "§3c: cu13x need 580; cu126 has sm_86"),
    ("3090-535-torch2.1", dict(driver="535.54.03", gpus=[RTX3090]), dict(version="2.1"), ("2.1.2", "cu118"),
     "§1a: 2.1 cu121 experimental (REL-old) although PyPI default; cu118 stable"),
    ("4090-570-latest", dict(driver="570.124.06", gpus=[RTX4090]), {}, ("2.14.1", "cu126"),
     "§2d: 8.9 runs sm_86; §3c cu13x need 580"),
    ("4090-win-572", dict(driver="572.16", gpus=[RTX4090], **WIN), {}, ("2.14.1", "cu126"),
     "§3c: Windows 12.x floor 527.41, 13.x 580"),
    ("5090-570-latest", dict(driver="570.133.07", gpus=[RTX5090]), {}, ("2.13.0", "cu129"),
     "§2c: sm_120 needs cu128+; cu13x need 580; §8b: 2.13.0+cu129 exists on whl/cu129 (not in RELEASE.md)"),
    ("5090-575-torch2.6", dict(driver="575.57.08", gpus=[RTX5090]), dict(version="2.6"), ("refuse", "torch"),
     "§2d: no cu124/cu126 build has sm_120, PyPI wheels carry no PTX"),
    ("5090-win-576-torch2.7", dict(driver="576.02", gpus=[RTX5090], **WIN), dict(version="2.7"), ("2.7.1", "cu128"),
     "§1a: 2.7 cu128 experimental but the only build with sm_120 (3P Windows list)"),
    ("5090-580-latest", dict(driver="580.65.06", gpus=[RTX5090]), {}, ("2.15.0", "cu132"),
     "§2a: 2.15 cu132 has sm_120"),
    ("l4-580-latest", dict(driver="580.95.05", gpus=[L4]), {}, ("2.15.0", "cu132"),
     "§2d: 8.9 runs sm_86 of cu132"),
    ("h100-550-latest", dict(driver="550.54.15", gpus=[H100]), {}, ("2.14.1", "cu126"),
     "§3c: cu13x need 580; cu126 has sm_90"),
    ("h100-590-latest", dict(driver="590.44.01", gpus=[H100]), {}, ("2.15.0", "cu132"), "§2a: cu132 has sm_90"),
    ("h100-470-latest", dict(driver="470.82.01", gpus=[H100]), {}, ("2.7.1", "cu118"),
     "§2b: cu118 carries 9.0 from 2.0"),
    ("b200-580-latest", dict(driver="580.65.06", gpus=[B200]), {}, ("2.15.0", "cu132"), "§2a: cu132 has sm_100"),
    ("b200-570-latest", dict(driver="570.86.15", gpus=[B200]), {}, ("2.13.0", "cu129"),
     "§8b: 2.13.0+cu129 (12.x floor 525.60.13) has sm_100; cu13x need 580"),
    ("b300-580-latest", dict(driver="580.82.07", gpus=[B300]), {}, ("2.15.0", "cu132"), "§2d: 10.3 runs sm_100"),
    ("gb10-arm-580", dict(driver="580.95.05", gpus=[GB10], **ARM), {}, ("2.15.0", "cu132"),
     "§2b aarch64: 13.x carries 12.0; §2d 12.1 runs sm_120"),
    ("gh200-arm-575", dict(driver="575.57.08", gpus=[GH200], **ARM), {}, ("2.14.1", "cu126"),
     "§2b aarch64 12.6: 8.0, 9.0 [U]; cu13x need 580"),
    ("jetson-orin", dict(driver="540.4.0", gpus=[ORIN], **ARM), {}, ("refuse", "tier"),
     "§4: Jetson needs JetPack builds; PyPI aarch64 wheels are SBSA; cpu offered"),
    ("jetson-orin-cpu", dict(driver="540.4.0", gpus=[ORIN], **ARM), dict(cuda="cpu"), ("2.15.0", "cpu"),
     "§6c: aarch64 PyPI is CUDA from 2.11; the cpu index carries every release (2.15 cpu [U])"),
    ("mixed-1080ti-3090", dict(driver="575.57.08", gpus=[GTX1080TI, RTX3090]), {}, ("2.14.1", "cu126"),
     "§2d: every GPU must run it; cu126 has sm_60 and sm_86"),
    ("mixed-1080ti-5090", dict(driver="575.57.08", gpus=[GTX1080TI, RTX5090]), {}, ("refuse", "tier"),
     "§2c: no Linux build has both sm_6x and sm_120 (cu128 from 2.8 drops Pascal; 2.7 cu128 is 7.5+)"),
    ("mixed-v100-a100-580", dict(driver="580.65.06", gpus=[V100, A100]), {}, ("2.14.1", "cu126"),
     "§2c: V100 needs cu126"),
    ("win-1080ti-560-torch2.4", dict(driver="560.94", gpus=[GTX1080TI], **WIN), dict(version="2.4"),
     ("2.4.1", "cu121"), "§2b Windows: cu121 carries 6.1 (builder)"),
    ("wsl-3080-566", dict(driver="566.36", gpus=[RTX3080], wsl=True), {}, ("2.14.1", "cu126"),
     "§3c: WSL reports the Windows driver: floor 527.41 (12.x), 580 (13.x)"),
    ("glibc-2.17-t4", dict(driver="535.104.05", gpus=[T4], glibc="2.17"), {}, ("2.6.0", "cu124"),
     "§1a: manylinux_2_28 from 2.7; 2.6 cu126 experimental"),
    ("python-3.8-t4", dict(driver="535.104.05", gpus=[T4]), dict(python="3.8"), ("2.4.1", "cu121"),
     "§1a: cp38 last in 2.4 (2.5 has no cp38)"),
    ("python-3.15-t4-580", dict(driver="580.65.06", gpus=[T4]), dict(python="3.15"), ("2.15.0", "cu132"),
     "§1a: only 2.15 has cp315"),
    ("python-3.15-t4-575", dict(driver="575.57.08", gpus=[T4]), dict(python="3.15"), ("refuse", "python"),
     "§1a: cp315 only in 2.15, which needs 580 (§3c)"),
    ("mac-arm64", dict(os="macos", arch="arm64", pythons=("3.12.4",)), {}, ("2.15.0", "cpu"),
     "§6c: macOS wheels are CPU/MPS, PyPI default"),
    ("mac-x86", dict(os="macos", arch="x86_64"), {}, ("2.2.2", "cpu"), "§1a: macOS x86_64 wheels stop after 2.2.2"),
    ("win-nogpu", dict(**WIN), {}, ("2.15.0", "cpu"), "§6c: Windows PyPI wheels are CPU"),
    ("linux-nogpu", dict(), {}, ("2.15.0", "cpu"), "§8d: 2.15 released; the cpu index carries every release [U]"),
    ("linux-hidden-gpus", dict(driver="575.57.08", gpus=[RTX3090], nvidia_hidden=True), {}, ("2.15.0", "cpu"),
     "CUDA_VISIBLE_DEVICES hides GPUs: plan like no-GPU, with a warning"),
    ("rocm-gfx90a", dict(rocm=("gfx90a",)), {}, ("2.14.1", "rocm7.14"),
     "§8b: 2.14 ships rocm7.2 and rocm7.14 ('7.14' is a real ROCm release); 2.15 ROCm unknown"),
    ("rocm-gfx1030-torch2.5", dict(rocm=("gfx1030",)), dict(version="2.5"), ("2.5.1", "rocm6.2"),
     "§1a: 2.5 wheels rocm6.1, rocm6.2 (gfx from uv's table [U])"),
    ("unknown-version", dict(driver="575.57.08", gpus=[RTX3090]), dict(version="2.16"), ("refuse", "torch"),
     "no 2.16 in compat.md"),
]


@pytest.mark.parametrize("mkw,ikw,expect,why", [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_machine_table(mkw, ikw, expect, why):
    m = machine(**mkw)
    if expect[0] == "refuse":
        with pytest.raises(PlanRefused) as info:
            resolve(intent(**ikw), m)
        kinds = [a["kind"] for a in info.value.alternatives]
        assert expect[1] in kinds, (why, info.value.message, info.value.alternatives)
        assert "would work instead" in info.value.message, why
        return
    plan = resolve(intent(**ikw), m)
    assert (plan.torch_version, plan.tier) == expect, (why, plan.reasons)


def test_table_is_big_enough():
    assert len(ROWS) >= 40
