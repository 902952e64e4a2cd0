"""What the conda backend needs from an engine: solve to records, install records. Nothing more.

Why a base class of two methods: the embedded py-rattler engine and a user's conda, mamba or
micromamba are interchangeable to the backend (pipx's backends/_base.py shape), and tests
can hand the backend a fake.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from pathlib import Path

from .records import CondaRecord


class CondaEngine(ABC):
    name: str = "base"

    @abstractmethod
    def solve(self, *, channels: Sequence[str], specs: Sequence[str], platform: str,
              virtual_packages: Sequence[str], mirrors: Mapping[str, Sequence[str]]) -> list[CondaRecord]:
        """Exact records (canonical URLs, sha256, md5) for ``specs`` on conda subdir ``platform``."""

    @abstractmethod
    def install(self, *, records: Sequence[CondaRecord], prefix: Path,
                mirrors: Mapping[str, Sequence[str]], reinstall: bool = False) -> None:
        """Make ``prefix`` a conda env holding exactly ``records``, hash-checked, without a solve.

        ``reinstall``: re-link every record even where ``conda-meta`` says it is there (repair).
        """
