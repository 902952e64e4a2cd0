"""Read back the YAML subset torchenv writes (block maps and lists, JSON-quoted scalars), strictly.

Why not a YAML library: none is a dependency; this reader rejects anything outside the subset
(tabs, flow collections, bare multi-word scalars), so a test fails if an export strays from it.
"""
from __future__ import annotations

import json
import re
from typing import Any

_KEY = re.compile(r'^(?P<key>[A-Za-z_][A-Za-z0-9_.\-]*|"(?:[^"\\]|\\.)*"):(?: (?P<rest>.*))?$')
_PLAIN = re.compile(r"^(?:-?\d+(?:\.\d+)?|true|false|null)$")


def _scalar(text: str, where: int) -> Any:
    text = text.strip()
    if text.startswith('"'):
        return json.loads(text)
    if text in ("{}", "[]"):
        return {} if text == "{}" else []
    if _PLAIN.match(text):
        return json.loads(text)
    if re.fullmatch(r"[A-Za-z0-9_./:${}@+-]+", text):
        return text                                # a plain one-word scalar
    raise ValueError(f"line {where}: not in the subset: {text!r}")


def loads(text: str) -> Any:
    lines = [(n, line) for n, line in enumerate(text.splitlines(), 1)
             if line.strip() and not line.lstrip().startswith("#")]
    for n, line in lines:
        if "\t" in line:
            raise ValueError(f"line {n}: tab")
    value, rest = _block(lines, 0, 0)
    if rest != len(lines):
        raise ValueError(f"line {lines[rest][0]}: unexpected indentation")
    return value


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _block(lines: list, i: int, indent: int) -> tuple[Any, int]:
    if lines[i][1].lstrip().startswith("- ") or lines[i][1].strip() == "-":
        return _list(lines, i, indent)
    return _map(lines, i, indent)


def _map(lines: list, i: int, indent: int) -> tuple[dict, int]:
    out: dict = {}
    while i < len(lines) and _indent(lines[i][1]) == indent:
        n, line = lines[i]
        match = _KEY.match(line.strip())
        if not match:
            raise ValueError(f"line {n}: expected 'key: value': {line!r}")
        key = json.loads(match["key"]) if match["key"].startswith('"') else match["key"]
        if key in out:
            raise ValueError(f"line {n}: duplicate key {key}")
        i += 1
        if match["rest"] is not None and match["rest"].strip():
            out[key] = _scalar(match["rest"], n)
        elif i < len(lines) and _indent(lines[i][1]) > indent:
            out[key], i = _block(lines, i, _indent(lines[i][1]))
        elif i < len(lines) and _indent(lines[i][1]) == indent and lines[i][1].lstrip().startswith("- "):
            out[key], i = _list(lines, i, indent)      # a list may sit at its key's indentation
        else:
            out[key] = None
    return out, i


def _list(lines: list, i: int, indent: int) -> tuple[list, int]:
    out: list = []
    while i < len(lines) and _indent(lines[i][1]) == indent and lines[i][1].lstrip().startswith("- "):
        n, line = lines[i]
        item = line.strip()[2:]
        if _KEY.match(item):                           # "- key: value" opens a map item
            sub = [(n, " " * (indent + 2) + item)]
            j = i + 1
            while j < len(lines) and _indent(lines[j][1]) > indent:
                sub.append(lines[j])
                j += 1
            value, used = _map(sub, 0, indent + 2)
            if used != len(sub):
                raise ValueError(f"line {sub[used][0]}: unexpected indentation")
            out.append(value)
            i = j
        else:
            out.append(_scalar(item, n))
            i += 1
    return out, i
