"""A small TOML writer for the exported files: stable key order, inline tables where tools write them.

Why not tomlkit: exported files should read like the ones uv and pixi write themselves
(``wheels = [{ url = "...", hashes = { sha256 = "..." } }]``), byte-stable for one lock, and
``torchenv export`` should not pay tomlkit's import for a few dozen lines.
"""
from __future__ import annotations

import json
import re
from typing import Any

_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def key(name: str) -> str:
    return name if _BARE_KEY.match(name) else json.dumps(name)


def value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v)            # a JSON string is a TOML basic string
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{key(k)} = {value(x)}" for k, x in v.items()) + " }" if v else "{}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(value(x) for x in v) + "]"
    raise TypeError(f"cannot write {type(v).__name__} as TOML")


def pairs(table: dict[str, Any]) -> list[str]:
    return [f"{key(k)} = {value(v)}" for k, v in table.items() if v is not None]


def multiline_list(items: list[Any]) -> str:
    """An array with one item per line (long wheel lists stay readable and diff well)."""
    if not items:
        return "[]"
    return "[\n" + "".join(f"    {value(x)},\n" for x in items) + "]"
