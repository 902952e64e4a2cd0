"""Which CUDA version a driver supports, when NVML cannot say it (nvidia-smi, sysfs, --assume-driver).

Why a table here and not in recipes: the probe must answer without the knowledge base
(another module, loaded from TOML) and ``--assume-driver`` must stay import-cheap. The rows
are the *toolkit GA* drivers of NVIDIA's "CUDA Toolkit and Corresponding Driver Versions"
(CUDA 13.2 Update 2 release notes, Table 3, copied in docs reference compat.md §3a):
a driver at least as new as a toolkit's GA driver supports that CUDA. This is what
``nvidia-smi`` prints as "CUDA Version" — not the looser minor-version-compatibility floors,
which belong to the resolver's driver policy.

A driver newer than the newest row reports the newest CUDA known here: a floor, never a guess.
Windows rows for 13.x are not in NVIDIA's table (no driver bundled since 13.1); they are
inferred from the Linux driver branch (580 → 13.0, 590 → 13.1, 595 → 13.2) [unverified].
"""
from __future__ import annotations

import re

SOURCE = ("NVIDIA CUDA 13.2 Update 2 release notes, Table 3 "
          "(https://docs.nvidia.com/cuda/archive/13.2.2/cuda-toolkit-release-notes/index.html)")

# (CUDA, minimum Linux x86_64 driver, minimum Windows driver) — GA releases, newest first.
_TABLE: tuple[tuple[str, str, str], ...] = (
    ("13.2", "595.45.04", "595"),      # Windows: inferred from branch
    ("13.1", "590.44.01", "590"),      # Windows: inferred from branch
    ("13.0", "580.65.06", "580"),      # Windows: inferred from branch
    ("12.9", "575.51.03", "576.02"),
    ("12.8", "570.26", "570.65"),
    ("12.6", "560.28.03", "560.76"),
    ("12.5", "555.42.02", "555.85"),
    ("12.4", "550.54.14", "551.61"),
    ("12.3", "545.23.06", "545.84"),
    ("12.2", "535.54.03", "536.25"),
    ("12.1", "530.30.02", "531.14"),
    ("12.0", "525.60.13", "527.41"),
    ("11.8", "520.61.05", "520.06"),
    ("11.7", "515.43.04", "516.01"),
    ("11.6", "510.39.01", "511.23"),
    ("11.5", "495.29.05", "496.04"),
    ("11.4", "470.42.01", "471.11"),
    ("11.3", "465.19.01", "465.89"),
    ("11.2", "460.27.03", "460.82"),
    ("11.1", "455.23", "456.38"),
    ("11.0", "450.51.05", "451.48"),
    ("10.2", "440.33", "441.22"),
    ("10.1", "418.39", "418.96"),
)

_DRIVER_RE = re.compile(r"^\d{2,4}(?:\.\d{1,3}){0,2}$")


def is_driver_version(text: str) -> bool:
    """``550.144.03``, ``570.26``, ``580`` — the shapes NVIDIA driver versions take."""
    return bool(_DRIVER_RE.match(text.strip()))


def version_key(version: str) -> tuple[int, ...]:
    """Numeric key: ``450.80.02`` sorts as (450, 80, 2, 0); compares like PEP 440 release parts."""
    parts = [int(p) for p in re.findall(r"\d+", version)[:3]]
    return tuple(parts + [0] * (3 - len(parts)))


def cuda_for_driver(driver: str | None, os_name: str = "linux") -> str | None:
    """Highest CUDA the driver supports ("12.4"), or None for an unknown/too-old driver."""
    if not driver or not is_driver_version(driver):
        return None
    key = version_key(driver)
    column = 2 if os_name == "windows" else 1
    for row in _TABLE:
        if key >= version_key(row[column]):
            return row[0]
    return None


def format_nvml_cuda(value: int) -> str:
    """NVML encodes CUDA 12.4 as 12040."""
    return f"{value // 1000}.{(value % 1000) // 10}"
