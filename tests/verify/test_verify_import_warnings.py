"""An env whose `import torch` prints a warning is not silently "verified"."""
from __future__ import annotations

from tests.verify.conftest import FAKE_TORCH

from torchenv.verification import run_verify

NUMPY_WARNING = '''
import warnings
warnings.warn("Failed to initialize NumPy: No module named 'numpy' "
              "(Triggered internally at /__w/pytorch/pytorch/torch/csrc/utils/tensor_numpy.cpp:84.)", UserWarning)
'''


def fake_torch_source(prefix: str = "") -> str:
    return prefix + FAKE_TORCH.format(version="2.13.0+cpu", cuda=None, gpus=[], archs=[])


def test_a_warning_printed_by_import_torch_is_a_finding(fake_env):
    report = run_verify(fake_env(source=fake_torch_source(NUMPY_WARNING)), expects_gpu=False)
    check = report.check("import torch")
    assert check.ok and check.severity == "warning"
    assert "Failed to initialize NumPy: No module named 'numpy'" in check.detail
    assert "add numpy to the project's requirements" in check.detail
    assert "Triggered internally" not in check.detail


def test_a_silent_import_stays_informational(fake_env):
    report = run_verify(fake_env(source=fake_torch_source()), expects_gpu=False)
    assert report.check("import torch").severity == "info"


def test_real_torch_without_numpy_warns(cpu_env, cpu_report):
    """The real CPU torch, installed without numpy (as its wheel allows), prints the NumPy warning."""
    import subprocess

    has_numpy = subprocess.run([str(cpu_env), "-c", "import numpy"], capture_output=True).returncode == 0
    check = cpu_report.check("import torch")     # verify of that env, expecting no GPU
    assert (check.severity == "warning") == (not has_numpy)
    if not has_numpy:
        assert "NumPy" in check.detail
