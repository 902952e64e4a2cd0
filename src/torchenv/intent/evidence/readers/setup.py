"""``setup.py`` (a syntax tree, never run) and ``setup.cfg``: ``install_requires`` and the files it reads.

Why never run: running a stranger's ``setup.py`` to learn its torch pin would run their code.
"""
from __future__ import annotations

import ast
from typing import Any

from ..model import Record
from .specs import extra_records, python_records, requirement_records


def setup_py_requirements(text: str) -> tuple[list[str], str | None] | None:
    """(the strings of ``install_requires``, ``python_requires``); None when the file does not parse."""
    found = _setup_call(text)
    return None if found is None else (found[0], found[1])


def _setup_call(text: str) -> tuple[list[str], str | None, dict[str, list[str]], list[str]] | None:
    """(install_requires, python_requires, extras_require, every string constant of the file)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    assigned = {t.id: node.value for node in ast.walk(tree) if isinstance(node, ast.Assign)
                for t in node.targets if isinstance(t, ast.Name)}
    strings: list[str] = []
    python = None
    extras: dict[str, list[str]] = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and _called(node) == "setup"):
            continue
        for kw in node.keywords:
            value = assigned.get(kw.value.id, kw.value) if isinstance(kw.value, ast.Name) else kw.value
            if kw.arg == "install_requires":
                strings += _literal_strings(value)
            elif kw.arg == "python_requires" and isinstance(value, ast.Constant) and isinstance(value.value, str):
                python = value.value
            elif kw.arg == "extras_require" and isinstance(value, ast.Dict):
                for key, item in zip(value.keys, value.values):
                    if isinstance(key, ast.Constant) and isinstance(key.value, str):
                        item = assigned.get(item.id, item) if isinstance(item, ast.Name) else item
                        extras[key.value] = _literal_strings(item)
    constants = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    return strings, python, extras, constants


def read_setup_py(text: str, file: str = "setup.py") -> list[Record]:
    """install_requires, extras_require (each extra for the machine its name says), python_requires, and torch
    index URLs the file names (``dependency_links``, a ``PYTORCH_INDEX_URL`` constant)."""
    from ..files import target_of_name
    from .pyproject import NOT_RUNTIME_EXTRA
    from .scripts import index_records

    found = _setup_call(text)
    if found is None:
        return []
    strings, python, extras, constants = found
    out = [r for s in strings for r in requirement_records(s, f"{file} install_requires", None, "pin")]
    for extra, items in extras.items():
        if not NOT_RUNTIME_EXTRA.search(extra):
            out += extra_records(extra, items, f"{file} extras_require[{extra!r}]", target_of_name(extra))
    out += [r for c in constants for r in index_records(c, file, None, "pin")]
    if python:
        out += python_records(python, f"{file} python_requires", None, "pin", f"python_requires={python!r}")
    return out


def _called(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _literal_strings(node: Any) -> list[str]:
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def read_setup_cfg(text: str, file: str = "setup.cfg") -> list[Record] | None:
    import configparser

    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    out: list[Record] = []
    for line in parser.get("options", "install_requires", fallback="").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            out += requirement_records(line, f"{file} [options] install_requires", None, "pin")
    python = parser.get("options", "python_requires", fallback="").strip()
    if python:
        out += python_records(python, f"{file} [options] python_requires", None, "pin", python)
    return out
