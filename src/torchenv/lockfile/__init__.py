"""torchenv.lock: model and reading/writing."""
from __future__ import annotations

from .model import LOCK_FILE, LOCK_VERSION, LockedCondaPackage, LockedWheel, Lockfile, LockTarget

__all__ = ["LOCK_FILE", "LOCK_VERSION", "LockTarget", "LockedCondaPackage", "LockedWheel", "Lockfile"]
