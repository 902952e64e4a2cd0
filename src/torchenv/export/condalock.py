"""``conda-lock`` and ``explicit`` kinds: thin adapters over ``torchenv.conda.export``."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .base import ExportRequest


def conda_lock(request: ExportRequest) -> str:
    from ..conda.export import conda_lock_text

    return conda_lock_text(request.lock, request.targets)


def explicit(request: ExportRequest) -> str:
    from ..conda.channels import conda_subdir
    from ..conda.export import explicit_text

    t = request.target
    return explicit_text(t.conda, header=f"exported by torchenv from torchenv.lock, target {t.name}",
                         platform=conda_subdir(f"{t.os}-{t.arch}"), wheels=t.wheels)
