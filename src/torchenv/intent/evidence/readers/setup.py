"""``setup.py`` (a syntax tree, never run) and ``setup.cfg``: ``install_requires`` and the files it reads.

Why never run: running a stranger's ``setup.py`` to learn its torch pin would run their code.
"""
from __future__ import annotations

import ast
from typing import Any

from ..model import Record
from .specs import python_records, requirement_records


def setup_py_requirements(text: str) -> tuple[list[str], str | None] | None:
    """(the strings of ``install_requires``, ``python_requires``); None when the file does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    assigned = {t.id: node.value for node in ast.walk(tree) if isinstance(node, ast.Assign)
                for t in node.targets if isinstance(t, ast.Name)}
    strings: list[str] = []
    python = None
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and _called(node) == "setup"):
            continue
        for kw in node.keywords:
            value = assigned.get(kw.value.id, kw.value) if isinstance(kw.value, ast.Name) else kw.value
            if kw.arg == "install_requires":
                strings += _literal_strings(value)
            elif kw.arg == "python_requires" and isinstance(value, ast.Constant) and isinstance(value.value, str):
                python = value.value
    return strings, python


def read_setup_py(text: str, file: str = "setup.py") -> list[Record]:
    found = setup_py_requirements(text)
    if found is None:
        return []
    strings, python = found
    out = [r for s in strings for r in requirement_records(s, f"{file} install_requires", None, "pin")]
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
