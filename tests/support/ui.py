"""A quiet ``Ui`` that keeps what torchenv told the user, so tests can check the words and the progress.

Why one: ``up``, the conda backend, ``fetch`` and the ranged downloader all talk through ``torchenv.ui.Ui``;
a test double per area drifted (some kept warnings only, some steps only, some were no ``Ui`` at all).
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from torchenv.ui import Ui


class RecordingUi(Ui):
    """Prints nothing; ``lines`` holds info, steps and ``"warning: ..."`` in order, ``steps`` and ``warnings``
    each kind alone, ``advanced`` the sum a ``progress`` row was advanced by (bytes for downloads)."""

    def __init__(self) -> None:
        super().__init__(quiet=True)
        self.lines: list[str] = []
        self.steps: list[str] = []
        self.warnings: list[str] = []
        self.advanced: float = 0

    def info(self, text: str, *, markup: bool = True) -> None:
        self.lines.append(text)

    def step(self, text: str) -> None:
        self.steps.append(text)
        self.lines.append(text)

    def warn(self, text: str) -> None:
        self.warnings.append(text)
        self.lines.append(f"warning: {text}")

    @contextmanager
    def progress(self, description: str, total: float | None = None, *, bytes_: bool = False) -> Iterator[Any]:
        def advance(n: float = 1, total: float | None = None) -> None:
            self.advanced += n

        yield advance

    @property
    def text(self) -> str:
        return "\n".join(self.lines)
