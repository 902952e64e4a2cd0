"""Reading a torch build from files only: version.py, METADATA pins, the arch string inside the library."""
from __future__ import annotations

from tests.doctor._fakes import make_fake_env

from torchenv.diagnosis import archscan, envscan

CU128_ARCHS = "sm_70 sm_75 sm_80 sm_86 sm_90 sm_100 sm_120"


def test_reads_version_tier_cuda_and_archs_without_importing(tmp_path):
    env = make_fake_env(tmp_path / "e", "2.8.0+cu128", cuda="12.8", archs=CU128_ARCHS,
                        requires=["nvidia-cuda-runtime-cu12==12.8.90; platform_system == 'Linux'",
                                  "nvidia-cudnn-cu12==9.10.2.21"],
                        companions={"torchvision": ("0.23.0+cu128", "==2.8.0")})
    facts = envscan.read_env(env)
    assert facts.torch_version == "2.8.0+cu128" and facts.tier == "cu128" and facts.torch_cuda == "12.8"
    assert facts.cuda_from_metadata == "12.8"
    assert facts.archs == tuple(CU128_ARCHS.split()) and facts.archs_source.startswith("binary ")
    assert facts.companions[0].build_version == "0.23.0+cu128" and facts.companions[0].torch_requirement == "==2.8.0"
    assert facts.python == "3.11" and facts.kind == "venv"


def test_cuda_level_from_cuda_toolkit_pin_of_pypi_wheel():
    assert envscan.cuda_from_requires(['cuda-toolkit[cublas,cudart]==13.0.3; platform_system == "Linux"']) == "13.0"
    assert envscan.cuda_from_requires(["filelock", "sympy>=1.13"]) is None


def test_without_binary_the_kb_table_gives_the_archs(tmp_path):
    env = make_fake_env(tmp_path / "e", "2.7.1+cu126", cuda="12.6")
    facts = envscan.read_env(env)
    assert "sm_60" in facts.archs and facts.archs_source.startswith("kb ")


def test_scan_handles_gencode_flags_and_ptx(tmp_path):
    lib = tmp_path / "libtorch_python.so"
    lib.write_bytes(b"\x7fELF" + b"x" * 1000 + b"-gencode;arch=compute_90,code=[sm_90,compute_90]\x00")
    assert archscan.scan_file(lib) == ("sm_90", "compute_90")


def test_runs_on_follows_sass_and_ptx_rules():
    cu126 = ("sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90")
    assert archscan.runs_on(cu126, (6, 1))                     # GTX 1080 runs sm_60
    assert archscan.runs_on(cu126, (8, 9))                     # Ada runs sm_86
    assert not archscan.runs_on(cu126, (12, 0))                # RTX 50xx needs cu128+
    assert not archscan.runs_on(tuple(CU128_ARCHS.split()), (6, 1))
    assert archscan.runs_on(("sm_75", "compute_120"), (12, 1))  # PTX JIT forward
    assert not archscan.runs_on(("sm_90a",), (9, 1))


def test_torch_dist_info_is_not_confused_with_torchvision(tmp_path):
    env = make_fake_env(tmp_path / "e", None, companions={"torchvision": ("0.23.0", "==2.8.0")})
    facts = envscan.read_env(env)
    assert facts.torch_version is None and facts.companions
