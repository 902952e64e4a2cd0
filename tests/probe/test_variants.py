"""The probe's facts as wheel-variant properties (PEP 825/826 drafts; NVIDIA's provider names)."""
from __future__ import annotations

import json

from torchenv.cli import main
from torchenv.machine import Gpu, Machine, NvidiaInfo, RocmInfo
from torchenv.options import MachineSpec
from torchenv.probing.assume import machine_for
from torchenv.probing.variants import supported_properties, variants_block


def _nvidia(driver_cuda: str, *ccs: str) -> Machine:
    gpus = [Gpu(f"gpu{i}", cc, i) for i, cc in enumerate(ccs)]
    return Machine(os="linux", arch="x86_64", nvidia=NvidiaInfo(driver="575.51.03", cuda_driver_version=driver_cuda,
                                                                source="nvml", gpus=gpus))


def test_nvidia_properties_follow_the_provider_names_and_order():
    props = supported_properties(_nvidia("12.9", "6.1", "8.6"))["nvidia"]
    lower = props["cuda_version_lower_bound"]
    assert lower[:3] == ["12.9", "12.8", "12.7"] and lower[9:12] == ["12.0", "12", "11.20"] and lower[-1] == "11"
    assert "13.0" not in lower
    upper = props["cuda_version_upper_bound"]
    assert upper[0] == "15.20" and upper[-1] == "12.10" and "13" in upper and "12.9" not in upper
    assert props["sm_arch"] == ["86_real", "85_real", "84_real", "83_real", "82_real", "81_real", "80_real",
                                "80_virtual"]                      # the highest GPU, as the provider does


def test_blackwell_and_a_cuda_13_driver():
    props = supported_properties(_nvidia("13.0", "12.0"))["nvidia"]
    assert props["sm_arch"] == ["120_real", "120_virtual"]
    assert props["cuda_version_lower_bound"][:2] == ["13.0", "13"]


def test_amd_properties_and_no_gpu():
    m = Machine(os="linux", arch="x86_64", rocm=RocmInfo(version="6.4.1", gfx=["gfx942", "gfx942"]))
    assert supported_properties(m) == {"amd": {"gfx_arch": ["gfx942"], "rocm_version": ["6.4.1"]}}
    assert supported_properties(Machine(os="linux", arch="x86_64")) == {}
    block = variants_block(_nvidia("12.4", "8.9"))
    assert block["best"] == ["nvidia :: cuda_version_lower_bound :: 12.4",
                             "nvidia :: cuda_version_upper_bound :: 15.20", "nvidia :: sm_arch :: 89_real"]


def test_probe_json_has_an_additive_variants_block_and_the_saved_file_still_loads(tmp_path, capsys):
    target = tmp_path / "m.json"
    assert main(["probe", "--json", "--save", str(target)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert "PEP 825" in printed["variants"]["spec"] and isinstance(printed["variants"]["properties"], dict)
    assert json.loads(target.read_text()) == printed
    m = machine_for(MachineSpec(machine=str(target)))
    assert m.os == printed["os"]
