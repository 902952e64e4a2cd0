"""What a user finds in a project after ``torchenv up``: the env, the lock, site-packages.

Why shared: the up, mirror end-to-end and fault suites all look at the same places; one
definition keeps "where does torchenv put things" in one spot of the tests.
"""
from __future__ import annotations

from pathlib import Path


class ProjectView:
    """Mixin for test harnesses that have a ``project: Path`` attribute (venv at .venv, Python 3.11)."""

    project: Path

    @property
    def env(self) -> Path:
        return self.project / ".venv"

    @property
    def lock(self) -> Path:
        return self.project / "torchenv.lock"

    def site(self) -> Path:
        return self.env / "lib" / "python3.11" / "site-packages"

    def dists(self) -> list[str]:
        return sorted(p.name for p in self.site().glob("*.dist-info"))
