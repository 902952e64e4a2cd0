"""torchenv.toml: the project's intent."""
from __future__ import annotations

from .model import INTENT_FILE, CondaIntent, EnvIntent, Intent, MirrorIntent, TorchIntent

__all__ = ["INTENT_FILE", "CondaIntent", "EnvIntent", "Intent", "MirrorIntent", "TorchIntent"]
