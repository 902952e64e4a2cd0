"""The one TOML printer: the lock, the exported files and the refreshed recipes are written through it.

Why our own and not tomlkit: these files are written on every ``up``/``lock``/``export`` and should read
like the ones uv and pixi write themselves (``wheels = [{ url = "...", hashes = { sha256 = "..." } }]``),
byte-stable for one input, without paying tomlkit's import for a few dozen lines. Why one: a second
printer that escaped only some characters wrote a lock ``tomllib`` could not read back.

A string is a TOML basic string: ``"`` and ``\\`` escaped, every control character escaped (TOML forbids
them raw: U+0000-U+001F and U+007F), and so are the C1 controls and U+2028/U+2029, which TOML allows
but which editors and ``str.splitlines`` take for line breaks. Everything else is written as itself
(TOML files are UTF-8), so a name with an accent stays readable.
"""
from __future__ import annotations

import math
import re
from typing import Any

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}
_NEEDS_ESCAPE = re.compile('["\\\\\x00-\x1f\x7f-\x9f\u2028\u2029]')


def _escape(match: re.Match[str]) -> str:
    char = match.group(0)
    return _SHORT_ESCAPES.get(char) or f"\\u{ord(char):04X}"


def string(text: str) -> str:
    """``text`` as a TOML basic string that ``tomllib`` reads back unchanged."""
    return '"' + _NEEDS_ESCAPE.sub(_escape, text) + '"'


def key(name: str) -> str:
    """A bare key where TOML allows one (letters, digits, ``_``, ``-``), else a quoted one."""
    return name if _BARE_KEY.fullmatch(name) else string(name)


def _number(v: int | float) -> str:
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    return repr(v) if isinstance(v, float) else str(v)


def value(v: Any) -> str:
    """A TOML value: booleans, numbers, strings, arrays (lists, tuples) and inline tables (dicts)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return _number(v)
    if isinstance(v, str):
        return string(v)
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{key(k)} = {value(x)}" for k, x in v.items()) + " }" if v else "{}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(value(x) for x in v) + "]"
    raise TypeError(f"cannot write {type(v).__name__} as TOML")


def pairs(table: dict[str, Any]) -> list[str]:
    """``key = value`` lines of a table, in its order; ``None`` values left out (TOML has no null)."""
    return [f"{key(k)} = {value(v)}" for k, v in table.items() if v is not None]


def multiline_list(items: list[Any]) -> str:
    """An array with one item per line (long wheel lists stay readable and diff well)."""
    if not items:
        return "[]"
    return "[\n" + "".join(f"    {value(x)},\n" for x in items) + "]"
