"""What a torch wheel's own dependency pins say about its build (its CUDA level).

Why in the knowledge base: the recipes' refresh (``resolve.refresh``) reads a wheel's Requires-Dist to learn a
tier's CUDA runtime, and ``doctor`` reads an installed torch's the same way; the rule lives below both.
"""
from __future__ import annotations

import re

_CUDA_PIN = re.compile(
    r"^(?:nvidia-cuda-runtime(?:-cu\d+)?|cuda-toolkit(?:\[[^\]]*\])?)\s*\(?\s*={2,3}\s*(\d+)\.(\d+)", re.I)


def cuda_from_requires(requires: list[str]) -> str | None:
    """CUDA level from the wheel's pins: nvidia-cuda-runtime-cuXX==A.B.* or cuda-toolkit==A.B.*."""
    for req in requires:
        m = _CUDA_PIN.match(req.strip())
        if m:
            return f"{m.group(1)}.{m.group(2)}"
    return None
