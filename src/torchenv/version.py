"""torchenv's version, in a module of its own at the bottom floor.

Why not only in ``torchenv/__init__.py``: that module is the public API and reaches every stage; the
lock writer, the HTTP client's User-Agent and the env marker read the version from below it.
"""
from __future__ import annotations

__version__ = "0.1.0"
