"""What verify reports for GPU situations this machine cannot produce, played by fake torches."""
from __future__ import annotations

from torchenv.verification import run_verify

ARCHS_CU128 = ["sm_70", "sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]


def test_cuda_build_without_device_is_informational_when_no_gpu_expected(fake_env):
    report = run_verify(fake_env(cuda="13.0", gpus=()), expects_gpu=False)
    acc = report.check("accelerator")
    assert acc.ok and acc.severity == "warning"
    assert acc.detail.startswith("CUDA 13.0 build, no visible CUDA device "
                                 "(driver not loaded or CUDA_VISIBLE_DEVICES hides them)")
    assert report.check("torch build").detail == "CUDA 13.0 build, cuDNN 9.1.0"


def test_cuda_build_without_device_fails_when_gpu_expected(fake_env):
    report = run_verify(fake_env(cuda="13.0", gpus=()), expects_gpu=True)
    acc = report.check("accelerator")
    assert not report.ok and not acc.ok and acc.severity == "error"
    assert acc.detail == ("CUDA 13.0 build, no visible CUDA device "
                          "(driver not loaded or CUDA_VISIBLE_DEVICES hides them)")
    compute = [c for c in report.checks if c.name.startswith(("matmul", "backward", "conv2d"))]
    assert compute and all(c.skipped and "accelerator failed" in c.detail for c in compute)
    assert report.verdict().startswith("verify failed: accelerator: CUDA 13.0 build, no visible CUDA device")


def test_gpu_arch_not_in_build_names_sm_and_the_list(fake_env):
    python = fake_env(version="2.8.0+cu128", cuda="12.8", gpus=[("NVIDIA GeForce GTX 1080", (6, 1))],
                      archs=ARCHS_CU128)
    report = run_verify(python, expects_gpu=True)
    arch = report.check("arch cuda:0")
    assert not report.ok and not arch.ok
    assert "sm_61" in arch.detail and "GTX 1080" in arch.detail
    assert "sm_70 sm_75 sm_80 sm_86 sm_90 sm_100 sm_120" in arch.detail
    assert "sm_61" in arch.hint
    assert report.check("matmul cuda:0").skipped
    assert report.check("devices").detail.startswith("cuda:0 NVIDIA GeForce GTX 1080 (cc 6.1")


def test_same_major_lower_minor_and_ptx_cover_a_gpu(fake_env):
    python = fake_env(cuda="12.9", archs=["sm_75", "sm_80", "sm_90", "compute_90"],
                      gpus=[("NVIDIA RTX 4090", (8, 9)), ("NVIDIA RTX PRO 6000", (12, 0))])
    report = run_verify(python, expects_gpu=True)
    ada, blackwell = report.check("arch cuda:0"), report.check("arch cuda:1")
    assert ada.ok and "sm_89 runs the build's sm_80 code" in ada.detail
    assert blackwell.ok and "PTX compute_90" in blackwell.detail
    assert report.check("accelerator").detail == "2 CUDA devices visible"


def test_ptx_newer_than_the_gpu_does_not_cover_it(fake_env):
    python = fake_env(cuda="12.8", archs=["sm_90", "compute_90"], gpus=[("NVIDIA A10", (8, 6))])
    arch = run_verify(python, expects_gpu=True).check("arch cuda:0")
    assert not arch.ok and "sm_86" in arch.detail and "sm_90 compute_90" in arch.detail


def test_import_crash_libcudart_is_a_failed_import_check(fake_env):
    python = fake_env(source='raise ImportError("libcudart.so.11.0: cannot open shared object file: '
                             'No such file or directory")\n')
    report = run_verify(python, expected={"torch": "2.0.1"})
    imp = report.check("import torch")
    assert not report.ok and not imp.ok
    assert "libcudart.so.11.0: cannot open shared object file" in imp.detail
    assert "CUDA library" in imp.hint
    assert all(c.skipped for c in report.checks[1:]) and len(report.checks) > 1


def test_segfault_while_importing_keeps_stderr_tail(fake_env):
    python = fake_env(source='import os, signal, sys\n'
                             'sys.stderr.write("loading libtorch_cuda.so\\n"); sys.stderr.flush()\n'
                             'os.kill(os.getpid(), signal.SIGSEGV)\n')
    report = run_verify(python)
    imp = report.check("import torch")
    assert not report.ok and not imp.ok
    assert "SIGSEGV" in imp.detail and "loading libtorch_cuda.so" in imp.detail


def test_timeout_names_the_timeout_and_the_running_check(fake_env):
    python = fake_env(source=FAKE_HANG)
    report = run_verify(python, timeout=2)
    failed = report.failures[-1]
    assert not report.ok
    assert failed.name == "accelerator" and "timed out after 2 s" in failed.detail
    assert report.check("import torch").ok   # what passed before the hang is kept


FAKE_HANG = '''
__version__ = "2.14.1+cu130"
class version:
    cuda = "13.0"
    hip = None
class backends:
    class cudnn:
        @staticmethod
        def version():
            return 91000
class cuda:
    @staticmethod
    def is_available():
        import time
        time.sleep(60)
'''


def test_mismatched_torchvision_ops_are_reported(fake_env):
    nms_broken = '''
    __version__ = "0.20.0"
    class ops:
        @staticmethod
        def nms(boxes, scores, iou):
            raise RuntimeError("operator torchvision::nms does not exist")
    '''
    python = fake_env(cuda="13.0", extra={"torchvision/__init__.py": nms_broken})
    report = run_verify(python, expected={"torchvision": "0.29.1"})
    tv, ops = report.check("torchvision"), report.check("torchvision ops")
    assert not tv.ok and tv.detail == "installed torchvision 0.20.0, lock expects 0.29.1"
    assert not ops.ok and "operator torchvision::nms does not exist" in ops.detail
    assert "mismatched pair" in ops.hint


def test_lock_cuda_level_is_checked_and_pypi_tag_accepted(fake_env):
    python = fake_env(version="2.14.1+cu130", cuda="13.0")
    good = run_verify(python, expected={"torch": "2.14.1", "cuda": "13.0"})
    assert good.check("torch version").ok and good.check("torch build").ok
    bad = run_verify(python, expected={"torch": "2.14.1", "cuda": "12.6"})
    assert "CUDA 13.0 build, lock expects CUDA 12.6" in bad.check("torch build").detail


def test_missing_interpreter_is_a_failed_check(tmp_path):
    report = run_verify(tmp_path / "nope" / "bin" / "python")
    assert not report.ok and "no Python interpreter" in report.checks[0].detail


def _shown_in_chinese(report) -> str:
    """``report`` as ``torchenv verify`` prints it under ``LANG=zh_CN``, un-wrapped."""
    import io

    from rich.console import Console
    from tests.support.console import unwrapped

    from torchenv import i18n
    from torchenv.ui import Ui
    from torchenv.verification import render_report

    ui = Ui()
    out = io.StringIO()
    ui._console = Console(file=out, width=200, no_color=True)
    i18n.activate({"TORCHENV_LANG": "zh_CN"})
    try:
        render_report(ui, report)
    finally:
        i18n.deactivate()
    return unwrapped(out.getvalue())


def test_every_sentence_of_a_report_reads_in_chinese_and_the_saved_report_stays_english(fake_env):
    """The checks' words are data (a template and values) made in the env's interpreter, so a Chinese report has
    no English sentence left; before, the "no visible CUDA device" line and others had no template torchenv
    could match back and were shown in English."""
    import json

    from torchenv.verification.report import VerifyReport

    report = run_verify(fake_env(cuda="13.0", gpus=()), expects_gpu=False)
    again = VerifyReport.from_json(json.loads(json.dumps(report.to_json())))    # as doctor reads verify.json
    for shown in (_shown_in_chinese(report), _shown_in_chinese(again)):
        assert "没有可见的 CUDA 设备" in shown and "计划并不要求这里有 GPU" in shown, shown
        for english in ("no visible CUDA device", "the plan does not expect", "imported in", "verify failed",
                        "skipped:"):
            assert english not in shown, (english, shown)
    saved = json.dumps(report.to_json(), ensure_ascii=False)
    assert "no visible CUDA device" in saved and not any("\u4e00" <= ch <= "\u9fff" for ch in saved)


def test_a_timeout_names_the_running_check_in_chinese(fake_env):
    """The check that was running when the interpreter hung is named from the script's begin line, which
    carries the name as data too, so the failed line and the verdict read in Chinese."""
    report = run_verify(fake_env(source=FAKE_HANG), timeout=2)
    assert report.failures[-1].name == "accelerator"
    shown = _shown_in_chinese(report)
    assert "加速器" in shown and "超时" in shown and "timed out" not in shown, shown
