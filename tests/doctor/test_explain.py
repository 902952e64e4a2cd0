"""``doctor --explain``: every catalogue message is recognised and answered with a checked cause and fix."""
from __future__ import annotations

import io

import pytest
from tests.doctor._fakes import by_id, make_fake_env, run_doctor

CU128 = "sm_70 sm_75 sm_80 sm_86 sm_90 sm_100 sm_120"

SAMPLES = {
    "cuda-not-available": "print(torch.cuda.is_available()) -> False",
    "not-compiled-with-cuda": "AssertionError: Torch not compiled with CUDA enabled",
    "driver-insufficient": "RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version",
    "driver-too-old-found": "RuntimeError: The NVIDIA driver on your system is too old (found version 11040). "
                            "Please update your GPU driver",
    "no-nvidia-driver": "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU",
    "no-kernel-image": "RuntimeError: CUDA error: no kernel image is available for execution on the device",
    "sm-not-compatible": "UserWarning: NVIDIA GeForce GTX 1080 with CUDA capability sm_61 is not compatible with the "
                         "current PyTorch installation.\nThe current PyTorch install supports CUDA capabilities "
                         "sm_70 sm_75 sm_80 sm_86 sm_90 sm_100 sm_120.",
    "libcudart-missing": "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory",
    "libtorch-cuda-import": "ImportError: libtorch_cuda.so: cannot open shared object file: No such file or directory",
    "torchvision-nms": "RuntimeError: operator torchvision::nms does not exist",
    "companion-undefined-symbol": "OSError: /venv/lib/python3.11/site-packages/torchaudio/lib/libtorchaudio.so: "
                                  "undefined symbol: _ZN3c104cuda9SetDeviceEi",
    "nvcc-unsupported-arch": "nvcc fatal   : Unsupported gpu architecture 'compute_120'",
    "cpp-extension-cuda-mismatch": "RuntimeError:\nThe detected CUDA version (11.8) mismatches the version that was "
                                   "used to compile\nPyTorch (12.8). Please make sure to use the same CUDA versions.",
    "no-cuda-device": "RuntimeError: CUDA error: no CUDA-capable device is detected",
    "cuda-oom": "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB",
}


def test_every_catalogue_entry_has_a_sample():
    from torchenv.diagnosis.explain import catalogue

    assert {e.id for e in catalogue()} == set(SAMPLES)
    for e in catalogue():
        assert e.source and e.cause and e.fix


@pytest.mark.parametrize("entry_id", sorted(SAMPLES))
def test_each_message_is_matched(entry_id, tmp_path, capsys):
    env = make_fake_env(tmp_path / "e", "2.8.0+cu128", cuda="12.8", archs=CU128)
    _, data = run_doctor(capsys, "--env", str(env), "--explain", SAMPLES[entry_id],
                         "--assume-gpu", "8.6", "--assume-driver", "570.86.10")
    [f] = by_id(data, entry_id)
    assert f["title"] and f["detail"] and f["fix"]
    if entry_id == "cuda-oom":
        assert f["severity"] == "info" and "not a configuration problem" in f["title"]


def test_no_kernel_image_on_pascal_with_cu128_env(tmp_path, capsys):
    env = make_fake_env(tmp_path / "e", "2.8.0+cu128", cuda="12.8", archs=CU128)
    rc, data = run_doctor(capsys, "--env", str(env), "--explain",
                          "RuntimeError: CUDA error: no kernel image is available for execution on the device",
                          "--assume-gpu", "6.1", "--assume-driver", "550.54.14")
    [f] = by_id(data, "no-kernel-image")
    text = f["title"] + f["detail"]
    assert f["severity"] == "error" and rc == 1
    assert "sm_61" in text and "Pascal" in text and "GTX 10" in text
    assert "cu126" in f["fix"] and "torch==2.8.0+cu126" in f["fix"]


def test_no_env_uses_the_build_named_in_the_text(tmp_path, capsys):
    empty = make_fake_env(tmp_path / "e", None)
    _, data = run_doctor(capsys, "--env", str(empty), "--assume-gpu", "6.1", "--assume-driver", "550.54.14",
                         "--explain", "torch 2.8.0+cu128: CUDA error: no kernel image is available for execution on the device")
    [f] = by_id(data, "no-kernel-image")
    assert f["severity"] == "error" and "sm_61" in f["title"] and "cu126" in f["fix"]


def test_sm_warning_without_any_gpu_facts_uses_the_message(tmp_path, capsys):
    empty = make_fake_env(tmp_path / "e", None)
    _, data = run_doctor(capsys, "--env", str(empty), "--assume-no-gpu", "--explain", SAMPLES["sm-not-compatible"])
    [f] = by_id(data, "sm-not-compatible")
    assert f["severity"] == "error" and "Pascal" in f["title"] and "cu126" in f["fix"]


def test_unconfirmed_cause_is_a_warning_with_the_template_fix(tmp_path, capsys):
    env = make_fake_env(tmp_path / "e", "2.8.0+cu128", cuda="12.8", archs=CU128)
    _, data = run_doctor(capsys, "--env", str(env), "--explain", SAMPLES["driver-insufficient"],
                         "--assume-gpu", "8.6", "--assume-driver", "570.86.10")
    [f] = by_id(data, "driver-insufficient")
    assert f["severity"] == "warning" and "not confirmed" in f["title"]


def test_traceback_from_stdin(tmp_path, capsys, monkeypatch):
    env = make_fake_env(tmp_path / "e", "2.13.0+cpu")
    monkeypatch.setattr("sys.stdin", io.StringIO("Traceback (most recent call last):\n  File \"x.py\", line 1\n"
                                                 + SAMPLES["not-compiled-with-cuda"] + "\n"))
    _, data = run_doctor(capsys, "--env", str(env), "--explain", "-", "--assume-gpu", "8.6",
                         "--assume-driver", "550.54.14")
    [f] = by_id(data, "not-compiled-with-cuda")
    assert f["severity"] == "error" and "torch==2.13.0+cu126" in f["fix"]


def test_unknown_text(tmp_path, capsys):
    env = make_fake_env(tmp_path / "e", "2.8.0+cu128", cuda="12.8", archs=CU128)
    _, data = run_doctor(capsys, "--env", str(env), "--explain", "SyntaxError: invalid syntax", "--assume-no-gpu")
    assert by_id(data, "no-match")
