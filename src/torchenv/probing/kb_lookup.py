"""The two questions the probe asks the knowledge base, tolerating its absence.

Why optional: ``torchenv.kb`` (recipes as data) is owned elsewhere and may not offer these yet;
the probe must still work, reporting an unknown compute capability instead of guessing.
Expected API: ``torchenv.kb.gpu_cc(name) -> "8.6" | None`` and
``torchenv.kb.representative_gpu(cc) -> "NVIDIA A10" | None``.
"""
from __future__ import annotations

import re
from typing import Any

_CC = re.compile(r"^\d{1,2}\.\d$")


def _ask(function: str, *args: Any) -> Any:
    try:
        from .. import kb
    except ImportError:
        return None
    fn = getattr(kb, function, None)
    if not callable(fn):
        return None
    try:
        return fn(*args)
    except Exception:
        return None


def gpu_cc(name: str) -> str | None:
    """Compute capability for a GPU name, from the knowledge base's GPU table."""
    value = _ask("gpu_cc", name)
    return value if isinstance(value, str) and _CC.match(value) else None


def representative_gpu(cc: str) -> str | None:
    """A typical GPU name for a compute capability (``--assume-gpu 8.6`` → "NVIDIA A10")."""
    value = _ask("representative_gpu", cc)
    return value if isinstance(value, str) and value.strip() else None
