"""Environment backends: venv and conda.

Why one factory: ``up``, ``lock`` and ``bundle`` never ask which backend they hold, so the
choice (``plan.backend``) is made in exactly one place, and each backend module (with its
engine imports) is loaded only when the plan needs it.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..i18n import _

if TYPE_CHECKING:
    from ..resolve.plan import Plan
    from ..ui import Ui
    from .base import Backend


def make_backend(*, plan: Plan, env_path: Path, ui: Ui) -> Backend:
    """The backend for ``plan.backend`` (``venv`` or ``conda``), bound to ``env_path``."""
    if plan.backend == "conda":
        from .conda import CondaBackend

        return CondaBackend(plan=plan, env_path=env_path, ui=ui)
    if plan.backend == "venv":
        from .venv import VenvBackend

        return VenvBackend(plan=plan, env_path=env_path, ui=ui)
    from ..errors import BackendError

    raise BackendError(_("unknown backend {backend!r} in the plan").format(backend=plan.backend),
                       hint=_("[env] backend in torchenv.toml is one of venv, conda"))
