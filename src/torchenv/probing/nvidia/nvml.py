"""NVML through ``pynvml`` (package nvidia-ml-py): the driver's own answer, no subprocess.

Why first: it is what nvidia-smi itself calls, it gives the CUDA version the driver supports
(``nvmlSystemGetCudaDriverVersion``) and each GPU's compute capability on every driver that
torch can use, and it takes milliseconds. ``pynvml`` is imported only here, only when probing.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, cast

from ...machine import Gpu
from ...reasons import MACHINE, reason
from .driver_cuda import format_nvml_cuda


@dataclass
class NvmlReport:
    driver: str | None
    cuda_driver_version: str | None
    gpus: list[Gpu]
    problems: list[str] = field(default_factory=list)   # per-GPU fields NVML could not give


class NvmlFailed(Exception):
    """NVML could not be used. ``absent`` means no library/driver at all (not worth a finding alone)."""

    def __init__(self, reason: str, *, absent: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.absent = absent


def load_pynvml() -> ModuleType:
    try:
        import pynvml  # type: ignore[import-untyped]  # nvidia-ml-py ships no type hints
    except ImportError as exc:
        raise NvmlFailed(f"pynvml is not importable ({exc})", absent=True) from None
    return cast(ModuleType, pynvml)


def _text(value: Any) -> str:
    return value.decode(errors="replace") if isinstance(value, bytes) else str(value)


def _error_code(nvml: Any, name: str) -> int | None:
    value = getattr(nvml, name, None)
    return value if isinstance(value, int) else None


def _is_absent(nvml: Any, exc: BaseException) -> bool:
    """Library missing or driver not loaded: the machine simply has no usable NVIDIA stack."""
    code = getattr(exc, "value", None)
    return code is not None and code in (_error_code(nvml, "NVML_ERROR_LIBRARY_NOT_FOUND"),
                                         _error_code(nvml, "NVML_ERROR_DRIVER_NOT_LOADED"))


def read_nvml(nvml: Any) -> NvmlReport:
    """Driver, CUDA driver version and all GPUs. Raises NvmlFailed if NVML cannot start."""
    try:
        nvml.nvmlInit()
    except Exception as exc:  # NVMLError subclasses, OSError from ctypes, anything a broken install throws
        raise NvmlFailed(_text(exc) or type(exc).__name__, absent=_is_absent(nvml, exc)) from None
    try:
        return _read_initialised(nvml)
    finally:
        try:
            nvml.nvmlShutdown()
        except Exception:
            pass


def _read_initialised(nvml: Any) -> NvmlReport:
    problems: list[str] = []
    try:
        driver: str | None = _text(nvml.nvmlSystemGetDriverVersion()).strip()
    except Exception as exc:
        raise NvmlFailed(f"nvmlSystemGetDriverVersion: {_text(exc)}") from None
    try:
        cuda: str | None = format_nvml_cuda(int(nvml.nvmlSystemGetCudaDriverVersion()))
    except Exception as exc:
        cuda = None
        problems.append(reason("probe.nvml_no_cuda", MACHINE, driver=driver, error=_text(exc)))
    try:
        count = int(nvml.nvmlDeviceGetCount())
    except Exception as exc:
        raise NvmlFailed(f"nvmlDeviceGetCount: {_text(exc)}") from None
    gpus = [_read_gpu(nvml, index, problems) for index in range(count)]
    return NvmlReport(driver=driver or None, cuda_driver_version=cuda, gpus=gpus, problems=problems)


def _read_gpu(nvml: Any, index: int, problems: list[str]) -> Gpu:
    try:
        handle = nvml.nvmlDeviceGetHandleByIndex(index)
    except Exception as exc:
        problems.append(reason("probe.nvml_no_gpu", MACHINE, index=index, error=_text(exc)))
        return Gpu(name=f"GPU {index} (unreadable)", compute_capability=None, index=index)

    def ask(what: str, fn_name: str, *args: Any) -> Any:
        try:
            return getattr(nvml, fn_name)(handle, *args)
        except Exception as exc:
            problems.append(reason("probe.nvml_no_field", MACHINE, what=what, index=index, error=_text(exc)))
            return None

    name = ask("name", "nvmlDeviceGetName")
    cc = ask("compute capability", "nvmlDeviceGetCudaComputeCapability")
    memory = ask("memory size", "nvmlDeviceGetMemoryInfo")
    uuid = ask("UUID", "nvmlDeviceGetUUID")
    total = getattr(memory, "total", None)
    return Gpu(name=_text(name).strip() if name is not None else f"GPU {index}",
               compute_capability=f"{int(cc[0])}.{int(cc[1])}" if cc else None,
               index=index,
               memory_mib=int(total) // (1024 * 1024) if total is not None else None,
               uuid=_text(uuid).strip() if uuid is not None else None)
