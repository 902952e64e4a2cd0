"""``nvidia-smi --query-gpu ... --format=csv,noheader,nounits``: the fallback when NVML is unusable.

Why only the query interface: its fields are a stable contract, while the human table's header
changed wording in R610 ("Driver Version" became "KMD Version"). Older tools (R470) reject
``compute_cap`` with ``Field "compute_cap" is not a valid field to query.`` (exit 2); any field a
given nvidia-smi rejects is dropped and the query retried, so the probe keeps what it can get.
"""
from __future__ import annotations

import csv
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from ...machine import Gpu
from ...reasons import MACHINE, Reason, reason
from ..context import DEFAULT_TIMEOUT_S, ProbeContext, describe_failure

FIELDS = ("index", "name", "compute_cap", "memory.total", "uuid", "driver_version")
_REQUIRED = {"index", "name"}
_INVALID_FIELD = re.compile(r'Field "([^"]+)" is not a valid field to query')
_CC = re.compile(r"^\d{1,2}\.\d{1,2}$")

# Where the tool lives when it is not on PATH (WSL2 mounts the Windows driver's copy).
_WSL_SMI = "/usr/lib/wsl/lib/nvidia-smi"
_WINDOWS_SMI = (r"C:\Windows\System32\nvidia-smi.exe",
                r"C:\Program Files\NVIDIA Corporation\NVSMI\nvidia-smi.exe")


@dataclass
class SmiReport:
    driver: str | None
    gpus: list[Gpu]
    missing_fields: list[str] = field(default_factory=list)   # fields this nvidia-smi cannot report
    problems: list[str] = field(default_factory=list)


class SmiFailed(Exception):
    def __init__(self, reason: Reason) -> None:
        super().__init__(reason)
        self.reason = reason


def find_nvidia_smi(ctx: ProbeContext) -> Path | None:
    found = ctx.which("nvidia-smi")
    if found:
        return found
    candidates = [_WSL_SMI] if ctx.system == "Linux" else list(_WINDOWS_SMI) if ctx.system == "Windows" else []
    for cand in candidates:
        path = ctx.path(cand)
        if path.is_file():
            return path
    return None


def query_gpus(ctx: ProbeContext, smi: Path, *, timeout_s: float = DEFAULT_TIMEOUT_S) -> SmiReport:
    """Run the CSV query, dropping fields this nvidia-smi does not know. Raises SmiFailed."""
    fields = list(FIELDS)
    missing: list[str] = []
    while True:
        argv = [str(smi), f"--query-gpu={','.join(fields)}", "--format=csv,noheader,nounits"]
        try:
            proc = ctx.run(argv, timeout_s)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise SmiFailed(describe_failure("nvidia-smi", exc, timeout_s)) from None
        output = f"{proc.stdout or ''}\n{proc.stderr or ''}"
        if proc.returncode == 0:
            return _parse(proc.stdout or "", fields, missing)
        rejected = _INVALID_FIELD.search(output)
        if rejected and rejected.group(1) in fields and rejected.group(1) not in _REQUIRED:
            fields.remove(rejected.group(1))
            missing.append(rejected.group(1))
            continue
        if "No devices were found" in output:
            return SmiReport(driver=None, gpus=[], missing_fields=missing)
        first = next((ln.strip() for ln in output.splitlines() if ln.strip()), None) or reason("probe.no_output", MACHINE)
        if proc.returncode < 0:
            raise SmiFailed(reason("probe.smi_crashed", MACHINE, code=-proc.returncode, output=first))
        raise SmiFailed(reason("probe.smi_status", MACHINE, code=proc.returncode, output=first))


def _value(raw: str) -> str | None:
    """``[N/A]``, ``[Not Supported]``, ``[Insufficient Permissions]``... mean "no value"."""
    value = raw.strip()
    if not value or value in ("N/A", "Unknown") or value.startswith("["):
        return None
    return value


def _parse(stdout: str, fields: list[str], missing: list[str]) -> SmiReport:
    gpus: list[Gpu] = []
    problems: list[str] = []
    driver: str | None = None
    lines = [ln for ln in stdout.splitlines() if ln.strip()]
    for position, row in enumerate(csv.reader(lines, skipinitialspace=True)):
        if len(row) != len(fields):
            problems.append(reason("probe.smi_bad_line", MACHINE, line=repr(",".join(row)[:80])))
            continue
        rec = {name: _value(raw) for name, raw in zip(fields, row)}
        raw_index = rec.get("index")
        index = int(raw_index) if raw_index and raw_index.isdigit() else position
        cc = rec.get("compute_cap")
        if cc is not None and not _CC.match(cc):
            problems.append(reason("probe.smi_bad_cc", MACHINE, cc=repr(cc), index=index))
            cc = None
        memory = rec.get("memory.total")
        gpus.append(Gpu(name=rec.get("name") or f"GPU {index}", compute_capability=cc, index=index,
                        memory_mib=int(float(memory)) if memory and _is_number(memory) else None,
                        uuid=rec.get("uuid")))
        driver = driver or rec.get("driver_version")
    return SmiReport(driver=driver, gpus=gpus, missing_fields=missing, problems=problems)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
