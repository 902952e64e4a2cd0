"""How many connections one run's downloads share, read without importing the HTTP client.

Why a module of its own: the warm ``up`` sizes its pool of file lookups by this budget although
every file is already on disk; asking ``sources.http`` for it imported ``http.client``, ``ssl``
and ``socket`` (~20 ms) on a path that opens no connection.
"""
from __future__ import annotations

import os


def env_number(name: str, default: float) -> float:
    """A positive number from the environment variable ``name``, else ``default``."""
    try:
        value = float(os.environ.get(name, default))
    except ValueError:
        return default
    return value if value > 0 else default


def budget_size() -> int:
    """Connections all downloads of one run share (``TORCHENV_CONNECTIONS`` overrides)."""
    return max(1, int(env_number("TORCHENV_CONNECTIONS", 16)))
