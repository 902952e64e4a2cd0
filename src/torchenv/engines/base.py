"""An engine is one installer program (uv, pip+virtualenv, rattler, a conda binary).

Why: backends describe *what* env to build; engines know *how* one tool is driven.
uv is the default for wheels; pip is the fallback where uv is not allowed.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..lock.model import LockedWheel
    from ..sources.model import PypiSide


class WheelEngine(ABC):
    name: str = "base"
    keeps: frozenset[str] = frozenset()   # packages the engine leaves in every env it fills (pip: itself)

    def forget_cached(self, names: list[str]) -> None:  # noqa: B027 -- an optional hook, not abstract
        """Drop ``names`` from an installer cache that hardlinks into envs; nothing for engines that copy."""

    @abstractmethod
    def create_venv(self, *, python: str, path: Path) -> None:
        """Create a venv at ``path`` with interpreter ``python`` (a path or "3.11")."""

    @abstractmethod
    def resolve(self, *, requirements: list[str], python_version: str, platform: str,
                pypi: PypiSide, find_links: list[str]) -> list[LockedWheel]:
        """Resolve requirements to exact wheels (name, version, file, url, sha256)."""

    @abstractmethod
    def install_files(self, *, env_python: Path, files: list[Path], hashes: dict[str, str] | None = None,
                      reinstall: bool = False) -> None:
        """Install these already hash-checked wheel files, no dependency resolution.

        ``hashes`` (file name -> sha256): the engine checks them again where it can (uv's
        ``--require-hashes``), so a file swapped after torchenv's check is still refused.
        ``reinstall``: re-install every file even if the same version is present (``up``
        repairing an interrupted or hand-changed env).
        """
