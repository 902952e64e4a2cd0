"""Finding the line a TOML key is on, for error messages only.

Why a line scan and not tomlkit: ``tomllib`` (fast, stdlib) gives values without
positions, and this code runs only after something is already wrong, so a small scan
over the text is enough and costs no import. It understands ``[table]`` headers,
``[[array]]`` headers, dotted and quoted keys, and skips multi-line strings; a key
inside an inline table is reported at its parent's line.
"""
from __future__ import annotations

import re
from typing import cast

_PART_RE = r"""[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*'"""
_DOTTED = rf"(?:{_PART_RE})(?:\s*\.\s*(?:{_PART_RE}))*"
_HEADER = re.compile(rf"\s*\[\[?\s*({_DOTTED})\s*\]\]?\s*(?:#.*)?$")
_KEY = re.compile(rf"\s*({_DOTTED})\s*=")
_PART = re.compile(_PART_RE)
_TOML_POS = re.compile(r"\(at line (\d+), column (\d+)\)")


def _split_key(text: str) -> tuple[str, ...]:
    return tuple(_unquote(p) for p in _PART.findall(text))


def _unquote(part: str) -> str:
    if part[:1] == "'":
        return part[1:-1]
    if part[:1] != '"':
        return part
    from ..fileio import tomllib_module  # error path only: let TOML itself decode the escapes

    tomllib = tomllib_module()
    try:
        return cast(str, tomllib.loads(f"k = {part}")["k"])   # a TOML basic string
    except tomllib.TOMLDecodeError:
        return part[1:-1]


def key_lines(text: str) -> dict[tuple[str, ...], int]:
    """Map each key path (and table header) to the first line (1-based) it appears on."""
    lines: dict[tuple[str, ...], int] = {}
    table: tuple[str, ...] = ()
    in_string: str | None = None
    for no, line in enumerate(text.split("\n"), start=1):
        if in_string:
            if line.count(in_string) % 2 == 1:
                in_string = None
            continue
        header = _HEADER.match(line)
        if header:
            table = _split_key(header.group(1))
            for depth in range(1, len(table) + 1):   # [a.b] also defines [a]
                lines.setdefault(table[:depth], no)
            continue
        key = _KEY.match(line)
        if key:
            path = table + _split_key(key.group(1))
            for depth in range(len(table) + 1, len(path) + 1):
                lines.setdefault(path[:depth], no)
            rest = line[key.end():]
            for quote in ('"""', "'''"):
                if rest.count(quote) % 2 == 1:
                    in_string = quote
    return lines


def line_of(text: str, path: tuple[str, ...]) -> int | None:
    """Line of ``path``, or of its nearest enclosing key/table that is written in the file."""
    lines = key_lines(text)
    for depth in range(len(path), 0, -1):
        if path[:depth] in lines:
            return lines[path[:depth]]
    return None


def toml_error_line(message: str, text: str) -> int | None:
    """The line a ``tomllib.TOMLDecodeError`` points at ("at end of document" = the last line)."""
    m = _TOML_POS.search(message)
    if m:
        return int(m.group(1))
    if "end of document" in message:
        return max(1, len(text.rstrip("\n").split("\n")))
    return None


def strip_position(message: str) -> str:
    """The TOML error with "(at line L, column C)" cut to "(column C)": the line is in our prefix."""
    m = _TOML_POS.search(message)
    where = f" (column {m.group(2)})" if m else ""
    return _TOML_POS.sub("", message).replace("(at end of document)", "(at end of file)").strip() + where
