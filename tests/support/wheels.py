"""The session's fake-wheel shop: each distinct wheel is built once per test session and shared.

Why: the areas each had a ``wheels`` fixture building the same few fake wheels per test (zip writing and
hashing, some with megabytes of payload). ``wheels.make(...)`` takes ``make_wheel``'s arguments and a
``shelf`` (a folder of the session holding just the wheels made for it, for tests that serve or index a
whole folder); the same arguments give the same file.

    def test_x(wheels, tmp_path):
        torch = wheels.make("torch", "2.4.1+cpu", tag="cp311-cp311-linux_x86_64", shelf="mine")
        build_index(tmp_path / "m", {"torch": [torch]})     # copies: a test may change its own copy

The files are shared: never change one in place; copy it into ``tmp_path`` first.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from .packages import make_wheel


class WheelShop:
    def __init__(self, root: Path) -> None:
        self.root = root
        self._made: dict[tuple, Path] = {}
        self._by_file: dict[Path, tuple] = {}

    def make(self, name: str, version: str, tag: str = "py3-none-any", requires: list[str] | tuple[str, ...] = (),
             *, payload: int = 0, extra_files: dict[str, str] | None = None, shelf: str = "made") -> Path:
        key = (shelf, name, version, tag, tuple(requires), payload, tuple(sorted((extra_files or {}).items())))
        if key not in self._made:
            path = make_wheel(self.root / shelf, name, version, tag, requires, payload=payload,
                              extra_files=extra_files)
            other = self._by_file.setdefault(path, key)
            assert other == key, f"{path.name} on shelf {shelf!r} was made twice with different contents"
            self._made[key] = path
        return self._made[key]

    def shelf(self, shelf: str) -> Path:
        """The folder of ``shelf`` (holding exactly the wheels made for it so far)."""
        return self.root / shelf


@pytest.fixture(scope="session")
def wheels(tmp_path_factory) -> WheelShop:
    """The one fake-wheel fixture (tests/support/wheels.py): ``wheels.make(name, version, ...)``."""
    return WheelShop(tmp_path_factory.mktemp("wheel-shop"))
