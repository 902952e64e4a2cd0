"""Installer scripts: a web UI's ``TORCH_COMMAND`` default, a one-click installer's ``TORCH_VERSION`` /
``PYTHON_VERSION`` constants, and the pip lines of ``install.sh``/``*.bat``/``*.ps1``.

Why read them and never run them: those projects keep their stack in code, and running a
stranger's installer to learn it would install things. Python is read as a syntax tree (string
constants only); shell files are read word by word.
"""
from __future__ import annotations

import ast
import re

from ..model import Record
from .commands import _BACKEND, INSTALL, read_command
from .specs import python_records, requirement_records, tier_or_none

_CONSTANTS = {"TORCH_VERSION": "version", "PYTORCH_VERSION": "version", "PYTHON_VERSION": "python",
              "CUDA_VERSION": "cuda", "TORCH_CUDA": "cuda", "CUDA": "cuda"}


def read_python_script(text: str, file: str) -> list[Record]:
    """String constants of a Python installer that are install commands or named stack constants."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    out: list[Record] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            out += _constant(node.targets[0].id, node.value, file)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and INSTALL.search(node.value):
            for m in INSTALL.finditer(node.value):
                out += read_command(m.group(0), file, node.lineno)
    return out


def _constant(name: str, value: ast.expr, file: str) -> list[Record]:
    field = _CONSTANTS.get(name.upper())
    if field is None or not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
        return []
    text, line = value.value.strip(), value.lineno
    seen = f"{name} = {value.value!r}"
    if field == "version":
        return requirement_records(f"torch=={text.lstrip('=v')}", file, line, "command", seen)
    if field == "python":
        return python_records(text, file, line, "command", seen)
    tier = tier_or_none(text)
    return [Record(file, line, "cuda", tier, "command", seen)] if tier else []


def read_shell_script(text: str, file: str) -> list[Record]:
    """pip/conda lines of a ``.sh``/``.bat``/``.cmd``/``.ps1`` (comments skipped, continuations joined)."""
    text = re.sub(r"[\\^`]\r?\n", " ", text)
    out: list[Record] = []
    for no, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith(("#", "::", "REM ", "rem ")):
            continue
        for m in INSTALL.finditer(line):
            out += read_command(m.group(0), file, no)
        if _BACKEND.search(line) and not INSTALL.search(line):
            out += read_command(line, file, no)
    return out
