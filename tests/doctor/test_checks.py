"""Each broken GPU state doctor must recognise, built as a fake env + assumed machine, through the CLI."""
from __future__ import annotations

import json

from tests.doctor._fakes import by_id, make_fake_env, run_doctor

CU128 = "sm_70 sm_75 sm_80 sm_86 sm_90 sm_100 sm_120"
CU130 = "sm_75 sm_80 sm_86 sm_90 sm_100 sm_120"


def test_json_shape(tmp_path, capsys):
    env = make_fake_env(tmp_path / "e", "2.13.0+cpu")
    rc, data = run_doctor(capsys, "--env", str(env), "--no-import", "--assume-gpu", "8.6", "--assume-driver", "550.54.14")
    assert rc == 1 and data["ok"] is False
    for f in data["findings"]:
        assert f["severity"] in ("error", "warning", "info")
        assert {"title", "detail", "fix"} <= set(f)
    assert data["env"]["torch_version"] == "2.13.0+cpu"


def test_cpu_build_on_gpu_machine_gets_a_cuda_build_that_fits(tmp_path, capsys):
    env = make_fake_env(tmp_path / "e", "2.13.0+cpu")
    _, data = run_doctor(capsys, "--env", str(env), "--no-import", "--assume-gpu", "8.6", "--assume-driver", "550.54.14")
    [f] = by_id(data, "cpu-build")
    assert f["severity"] == "error"
    # driver 550 is below the cu130/cu132 floor (580), so the fix must be cu126
    assert "torch==2.13.0+cu126" in f["fix"] and "https://download.pytorch.org/whl/cu126" in f["fix"]


def test_cu130_build_with_driver_550(tmp_path, capsys):
    env = make_fake_env(tmp_path / "e", "2.13.0+cu130", cuda="13.0", archs=CU130)
    _, data = run_doctor(capsys, "--env", str(env), "--no-import", "--assume-gpu", "8.6", "--assume-driver", "550.54.14")
    [f] = by_id(data, "driver-too-old")
    assert "580" in f["detail"] and "cu126" in f["fix"]
    assert any("torchenv up --torch 2.13.0 --cuda cu126" in a for a in f["alternatives"])


def test_cu128_build_on_pascal_names_the_arch_and_cu126(tmp_path, capsys):
    env = make_fake_env(tmp_path / "e", "2.8.0+cu128", cuda="12.8", archs=CU128)
    _, data = run_doctor(capsys, "--env", str(env), "--no-import", "--assume-gpu", "6.1", "--assume-driver", "550.54.14")
    [f] = by_id(data, "arch-missing")
    text = f["title"] + f["detail"]
    assert "sm_61" in text and "Pascal" in text and "GTX 10" in text
    assert "torch==2.8.0+cu126" in f["fix"] and "/whl/cu126" in f["fix"]


def test_cuda_visible_devices_empty_hides_all(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    env = make_fake_env(tmp_path / "e", "2.8.0+cu128", cuda="12.8", archs=CU128)
    _, data = run_doctor(capsys, "--env", str(env), "--no-import", "--assume-gpu", "8.6", "--assume-driver", "570.86.10")
    [f] = by_id(data, "cuda-visible-devices")
    assert f["fix"] == "unset CUDA_VISIBLE_DEVICES"
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0")
    _, data = run_doctor(capsys, "--env", str(env), "--no-import", "--assume-gpu", "8.6", "--assume-driver", "570.86.10")
    assert not by_id(data, "cuda-visible-devices") and data["ok"]


def test_nvcc_12_1_vs_torch_cu128(tmp_path, capsys, monkeypatch):
    bindir = tmp_path / "cuda-12.1" / "bin"
    bindir.mkdir(parents=True)
    nvcc = bindir / "nvcc"
    nvcc.write_text("#!/bin/sh\necho 'Cuda compilation tools, release 12.1, V12.1.105'\n")
    nvcc.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}:/usr/bin:/bin")
    env = make_fake_env(tmp_path / "e", "2.8.0+cu128", cuda="12.8", archs=CU128)
    _, data = run_doctor(capsys, "--env", str(env), "--no-import", "--assume-gpu", "8.6", "--assume-driver", "570.86.10")
    [f] = by_id(data, "nvcc-mismatch")
    assert f["severity"] == "warning" and "12.1" in f["title"] and "12.8" in f["title"]
    assert "12.8" in f["fix"] and any("cuda-nvcc=12.8" in a for a in f["alternatives"])


def test_pip_and_conda_torch_mixed(tmp_path, capsys):
    env = make_fake_env(tmp_path / "e", "2.4.1+cu121", cuda="12.1", installer="pip",
                        conda_records=["pytorch-2.4.1-py3.11_cuda12.1_cudnn9.1.0_0"])
    _, data = run_doctor(capsys, "--env", str(env), "--no-import", "--assume-gpu", "8.6", "--assume-driver", "550.54.14")
    [f] = by_id(data, "pip-conda-mixed")
    assert "conda remove" in f["fix"] and "pytorch-2.4.1" in f["detail"]


def test_ld_library_path_shadowing_with_cuda11_runtime(tmp_path, capsys, monkeypatch):
    old = tmp_path / "cuda-11.8" / "lib64"
    old.mkdir(parents=True)
    (old / "libcudart.so.11.0").write_bytes(b"\x7fELF")
    keep = tmp_path / "mylibs"
    keep.mkdir()
    monkeypatch.setenv("LD_LIBRARY_PATH", f"{old}:{keep}")
    env = make_fake_env(tmp_path / "e", "2.8.0+cu128", cuda="12.8", archs=CU128)
    _, data = run_doctor(capsys, "--env", str(env), "--no-import", "--assume-gpu", "8.6", "--assume-driver", "570.86.10")
    [f] = by_id(data, "ld-shadowed")
    assert "libcudart.so.11.0" in f["detail"]
    assert f["fix"] == f"export LD_LIBRARY_PATH={keep}"


def test_several_toolkits(tmp_path, capsys, monkeypatch):
    dirs = []
    for v in ("11.8", "12.8"):
        b = tmp_path / f"cuda-{v}" / "bin"
        b.mkdir(parents=True)
        (b / "nvcc").write_text(f"#!/bin/sh\necho 'Cuda compilation tools, release {v}, V{v}.1'\n")
        (b / "nvcc").chmod(0o755)
        dirs.append(str(b))
    monkeypatch.setenv("PATH", ":".join(dirs[::-1] + ["/usr/bin", "/bin"]))
    env = make_fake_env(tmp_path / "e", "2.8.0+cu128", cuda="12.8", archs=CU128)
    _, data = run_doctor(capsys, "--env", str(env), "--no-import", "--assume-gpu", "8.6", "--assume-driver", "570.86.10")
    [f] = by_id(data, "several-toolkits")
    assert "11.8" in f["title"] and "12.8" in f["title"] and "cuda/12.8" in f["fix"]


def test_wsl2_without_driver_libraries(tmp_path, capsys):
    from torchenv.diagnosis.checks_system import check_wsl
    from torchenv.diagnosis.model import Context
    from torchenv.machine import Gpu, Machine, NvidiaInfo

    machine = Machine(os="linux", arch="x86_64", wsl=True,
                      nvidia=NvidiaInfo(driver=None, cuda_driver_version=None, gpus=[Gpu("RTX 3080", "8.6")]))
    saved = tmp_path / "wsl.json"
    saved.write_text(machine.dumps())
    env = make_fake_env(tmp_path / "e", "2.8.0+cu128", cuda="12.8", archs=CU128)
    _, data = run_doctor(capsys, "--env", str(env), "--no-import", "--machine", str(saved))
    [f] = by_id(data, "wsl-no-driver-libs")
    assert "Windows" in f["fix"] and "wsl --shutdown" in f["fix"]
    root = tmp_path / "root"
    (root / "usr/lib/wsl/lib").mkdir(parents=True)
    (root / "usr/lib/wsl/lib/libcuda.so.1").write_bytes(b"")
    assert check_wsl(machine, None, Context(environ={}, root=str(root))) == []


def test_healthy_fake_env_has_no_errors(tmp_path, capsys):
    env = make_fake_env(tmp_path / "e", "2.8.0+cu128", cuda="12.8", archs=CU128,
                        companions={"torchvision": ("0.23.0+cu128", "==2.8.0")})
    rc, data = run_doctor(capsys, "--env", str(env), "--no-import", "--assume-gpu", "8.9", "--assume-driver", "570.86.10")
    assert rc == 0 and data["ok"], json.dumps(data["findings"], indent=1)


def test_companion_for_other_release(tmp_path, capsys):
    env = make_fake_env(tmp_path / "e", "2.8.0+cu128", cuda="12.8", archs=CU128,
                        companions={"torchvision": ("0.22.1+cu128", "==2.7.1")})
    _, data = run_doctor(capsys, "--env", str(env), "--no-import", "--assume-gpu", "8.9", "--assume-driver", "570.86.10")
    [f] = by_id(data, "companion-mismatch")
    assert "torchvision==0.23.0+cu128" in f["fix"] and "/whl/cu128" in f["fix"]


def test_crashing_import_is_evidence(tmp_path, capsys):
    env = make_fake_env(tmp_path / "e", "2.8.0+cu128", cuda="12.8", archs=CU128)
    (env / "bin").mkdir()
    py = env / "bin" / "python"
    py.write_text("#!/bin/sh\nkill -SEGV $$\n")
    py.chmod(0o755)
    rc, data = run_doctor(capsys, "--env", str(env), "--assume-gpu", "8.6", "--assume-driver", "570.86.10")
    [f] = by_id(data, "import-crash")
    assert rc == 1 and "SIGSEGV" in f["detail"]
