"""Fake machines for the probe tests: a file tree standing in for ``/``, recorded command outputs, a fake NVML.

(Named ``probe_fakes`` rather than ``fakes`` so it cannot collide with another test area's helpers.)
"""
from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data"
SMI_FIELDS_FULL = "--query-gpu=index,name,compute_cap,memory.total,uuid,driver_version"
SMI_FIELDS_NO_CC = "--query-gpu=index,name,memory.total,uuid,driver_version"


def smi_out(name: str) -> str:
    return (DATA / "nvidia-smi" / name).read_text()


class FakeTree:
    """A directory standing in for the machine's ``/``."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def write(self, path: str, text: str = "") -> Path:
        p = self.root / path.lstrip("/")
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
        return p

    def exe(self, path: str, text: str = "#!/bin/sh\n") -> Path:
        p = self.write(path, text)
        p.chmod(0o755)
        return p

    def mkdir(self, path: str) -> Path:
        p = self.root / path.lstrip("/")
        p.mkdir(parents=True, exist_ok=True)
        return p

    def symlink(self, path: str, target: str) -> Path:
        p = self.root / path.lstrip("/")
        p.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, p)
        return p


class Recorded:
    """A command runner answering from recorded outputs, keyed by ``basename arg1 arg2...``.

    Unknown commands behave like a missing executable. Every call's timeout is kept, so tests can
    assert that no subprocess runs without one.
    """

    def __init__(self, replies: dict[str, Any] | None = None) -> None:
        self.replies = dict(replies or {})
        self.calls: list[tuple[list[str], float]] = []

    def __call__(self, argv, timeout_s):
        argv = [str(a) for a in argv]
        self.calls.append((argv, timeout_s))
        key = " ".join([os.path.basename(argv[0])] + argv[1:])
        reply = self.replies.get(key)
        if reply is None:
            raise FileNotFoundError(2, "No such file or directory", argv[0])
        if isinstance(reply, BaseException):
            raise reply
        if callable(reply):
            reply = reply(argv)
        rc, out, *err = reply
        return subprocess.CompletedProcess(argv, rc, out, err[0] if err else "")


def smi_key(fields: str = SMI_FIELDS_FULL) -> str:
    return f"nvidia-smi {fields} --format=csv,noheader,nounits"


class FakeNVMLError(Exception):
    def __init__(self, value: int, text: str) -> None:
        super().__init__(text)
        self.value = value

    def __str__(self) -> str:
        return self.args[0]


class FakeNvml:
    """Enough of pynvml's surface for the probe, with scripted answers and failures."""

    NVML_ERROR_DRIVER_NOT_LOADED = 9
    NVML_ERROR_LIBRARY_NOT_FOUND = 12
    NVML_ERROR_NOT_SUPPORTED = 3

    def __init__(self, *, driver: str = "550.144.03", cuda: int = 12040,
                 gpus: list[dict[str, Any]] | None = None, init_error: FakeNVMLError | None = None) -> None:
        self.driver, self.cuda, self.gpus, self.init_error = driver, cuda, gpus or [], init_error
        self.shutdown_called = False

    def nvmlInit(self):
        if self.init_error:
            raise self.init_error

    def nvmlShutdown(self):
        self.shutdown_called = True

    def nvmlSystemGetDriverVersion(self):
        return self.driver

    def nvmlSystemGetCudaDriverVersion(self):
        return self.cuda

    def nvmlDeviceGetCount(self):
        return len(self.gpus)

    def nvmlDeviceGetHandleByIndex(self, i):
        return self.gpus[i]

    def _field(self, handle, key):
        value = handle[key]
        if isinstance(value, BaseException):
            raise value
        return value

    def nvmlDeviceGetName(self, h):
        return self._field(h, "name")

    def nvmlDeviceGetCudaComputeCapability(self, h):
        return self._field(h, "cc")

    def nvmlDeviceGetMemoryInfo(self, h):
        class Mem:
            total = self._field(h, "memory")
        return Mem()

    def nvmlDeviceGetUUID(self, h):
        return self._field(h, "uuid")


