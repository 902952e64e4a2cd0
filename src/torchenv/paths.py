"""Where torchenv keeps its own files (cache, config), via platformdirs; overridable for tests.

TORCHENV_HOME (or TORCHENV_CACHE_DIR / TORCHENV_CONFIG_DIR) moves everything, which is how
tests get an empty cache and CI keeps runs apart.
"""
from __future__ import annotations

import os
from pathlib import Path

STATE_DIR = ".torchenv"   # per project: reports, logs, the in-progress marker


def cache_dir() -> Path:
    if os.environ.get("TORCHENV_CACHE_DIR"):
        return Path(os.environ["TORCHENV_CACHE_DIR"])
    if os.environ.get("TORCHENV_HOME"):
        return Path(os.environ["TORCHENV_HOME"]) / "cache"
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("torchenv"))


def config_dir() -> Path:
    if os.environ.get("TORCHENV_CONFIG_DIR"):
        return Path(os.environ["TORCHENV_CONFIG_DIR"])
    if os.environ.get("TORCHENV_HOME"):
        return Path(os.environ["TORCHENV_HOME"]) / "config"
    from platformdirs import user_config_dir

    return Path(user_config_dir("torchenv"))


def wheel_cache() -> Path:
    """Content-addressed store of downloaded artifacts: <sha256[:2]>/<sha256>/<filename>."""
    return cache_dir() / "artifacts"


def uv_cache() -> Path:
    return cache_dir() / "uv"
