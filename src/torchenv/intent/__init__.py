"""torchenv.toml: the project's intent.

``model`` (the dataclasses), ``load`` (file + flags -> Intent), ``versions`` (torch spec, tier
and Python normalisers shared with the resolver), ``schema`` (keys and types), ``locate``
(line numbers for errors), ``detect`` + ``init_writer`` (``torchenv init``). Only ``model`` is
imported here, so ``import torchenv.intent`` stays cheap.
"""
from __future__ import annotations

from .model import INTENT_FILE, CondaIntent, EnvIntent, Intent, MirrorIntent, TorchIntent

__all__ = ["INTENT_FILE", "CondaIntent", "EnvIntent", "Intent", "MirrorIntent", "TorchIntent"]
