"""A backend makes and fills one environment kind (venv or conda prefix).

Why a small base class (pipx's backends/_base.py): ``up``, ``lock`` and ``bundle`` never
ask which backend they hold. Keyword-only methods keep call sites readable.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..lockfile.model import LockTarget
    from ..resolve.plan import Plan
    from ..ui import Ui


class Backend(ABC):
    name: str = "base"

    def __init__(self, *, plan: Plan, env_path: Path, ui: Ui) -> None:
        self.plan = plan
        self.env_path = env_path
        self.ui = ui

    @abstractmethod
    def lock_target(self, *, requirements: list[str]) -> LockTarget:
        """Resolve the plan (+ project requirements) to exact files, without installing."""

    @abstractmethod
    def create(self) -> None:
        """Create an empty environment at ``env_path`` with the planned Python."""

    @abstractmethod
    def install(self, *, target: LockTarget, reinstall: bool = False, files: list[Path] | None = None,
                keep_extra: bool = False) -> None:
        """Install exactly the target's files (hash-checked) into the environment.

        ``keep_extra``: leave packages the lock does not name (added by hand) in place instead of removing them.

        ``reinstall``: put every locked file back even where the env already has it (a repair);
        ``files``: what ``materialise`` fetched, so nothing is downloaded twice.
        """

    def remove(self, names: list[str]) -> None:  # noqa: B027 -- an optional hook, not abstract
        """Uninstall these distributions (``up --exact``: packages added by hand); nothing where the backend
        cannot tell its own packages from the user's."""

    def materialise(self, target: LockTarget, new_env: Callable[[], None] | None = None) -> list[Path] | None:
        """Fetch and hash-check every file of ``target`` before the env is touched; ``None``: the install fetches.

        ``new_env``: waits until the env being created beside the fetch stands (raises if its creation
        failed); a backend may start installing local files into it while the others download.
        """
        return None

    @property
    def engine_name(self) -> str:
        """The tool that fills the env (``uv``, ``pip``, ``rattler``, ``conda``...), recorded in the env's state."""
        return self.plan.installer

    @property
    def kept_packages(self) -> frozenset[str]:
        """Packages the engine keeps in the env though no lock lists them (pip keeps itself)."""
        return frozenset()

    def forget_cached(self, names: list[str]) -> None:  # noqa: B027 -- an optional hook, not abstract
        """Drop damaged packages from an installer cache that hardlinks into envs; nothing by default."""

    @abstractmethod
    def python(self) -> Path:
        """The environment's interpreter."""

    @abstractmethod
    def installed(self) -> dict[str, str]:
        """name -> version of what is installed now (cheap: reads metadata dirs, imports nothing)."""
