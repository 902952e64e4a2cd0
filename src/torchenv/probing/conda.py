"""conda, mamba and micromamba executables the conda backend could drive.

Why no ``conda --version`` here: starting conda costs a third of a second or more; the version
is read from the base prefix's ``conda-meta`` when it is there, and left None otherwise.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

from ..machine import CondaExe
from .context import ProbeContext

KINDS = ("conda", "mamba", "micromamba")
_ENV_VARS = ("CONDA_EXE", "MAMBA_EXE")


def _kind(path: Path) -> str | None:
    stem = path.name.lower()
    for suffix in (".exe", ".bat", ".cmd"):
        stem = stem.removesuffix(suffix)
    return stem if stem in KINDS else None


def base_prefix(exe: Path) -> Path:
    """``<base>/bin/conda``, ``<base>/condabin/conda`` and ``<base>/Scripts/conda.exe`` all live in a base prefix."""
    return exe.parent.parent


def _version_from_meta(exe: Path, kind: str) -> str | None:
    if kind == "micromamba":
        return None
    try:
        for meta in (base_prefix(exe) / "conda-meta").glob(f"{kind}-[0-9]*.json"):
            match = re.match(rf"{kind}-(\d+(?:\.\d+)+)-", meta.name)
            if match:
                return match.group(1)
    except OSError:
        return None
    return None


def probe_conda(ctx: ProbeContext) -> list[CondaExe]:
    candidates: list[Path] = []
    for var in _ENV_VARS:
        if ctx.environ.get(var):
            candidates.append(ctx.path(ctx.environ[var]))
    for name in KINDS:
        candidates.extend(ctx.which_all(name))
    found: list[CondaExe] = []
    seen: set[str] = set()
    for exe in candidates:
        kind = _kind(exe)
        if kind is None or not exe.is_file():
            continue
        # condabin/conda and bin/conda of one installation are one conda
        real = os.path.realpath(exe if kind == "micromamba" else base_prefix(exe)) + f"#{kind}"
        if real in seen:
            continue
        seen.add(real)
        found.append(CondaExe(kind=kind, path=str(exe), version=_version_from_meta(exe, kind)))
    return found
