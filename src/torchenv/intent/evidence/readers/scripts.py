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
from .specs import python_records, requirement_records, tier_from_url, tier_or_none

_CONSTANTS = {"TORCH_VERSION": "version", "PYTORCH_VERSION": "version", "PYTHON_VERSION": "python",
              "CUDA_VERSION": "cuda", "TORCH_CUDA": "cuda", "CUDA": "cuda"}


def read_python_script(text: str, file: str) -> list[Record]:
    """String constants of a Python installer that are install commands, torch index URLs or named stack
    constants. Names and f-strings are filled in from the script's own string constants (and the defaults of
    ``os.environ.get("TORCH_COMMAND", "...")``), so ``f"pip install torch=={TORCH_VERSION}"`` reads as written."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    names = _string_names(tree)
    out: list[Record] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            out += _constant(node.targets[0].id, node.value, file, names)
        value = _render(node, names) if isinstance(node, (ast.Constant, ast.JoinedStr, ast.BinOp)) else None
        if value is None:
            continue
        line = getattr(node, "lineno", None)
        for m in INSTALL.finditer(value):
            out += read_command(m.group(0), file, line)
        if not INSTALL.search(value) and _INDEX.fullmatch(value.strip()):
            tier = tier_from_url(value.strip())
            if tier:
                out.append(Record(file, line, "cuda", tier, "command", value.strip()))
        if _REQ_FILE.fullmatch(value.strip()):
            out.append(Record(file, line, "requirements", value.strip(), "command", value.strip()))
    return list(dict.fromkeys(out))


_INDEX = re.compile(r"https?://\S*/whl/(?:cpu|cu\d{3}|rocm[\d.]+)/?")
_REQ_FILE = re.compile(r"[\w./-]*requirements[\w.-]*\.txt")


def _string_names(tree: ast.AST) -> dict[str, str]:
    """NAME -> its string value, for assignments of a constant, an f-string of known names, or
    ``os.environ.get("X", default)`` / ``os.getenv("X", default)`` (the default is what runs)."""
    names: dict[str, str] = {}
    for _round in range(2):
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                value = _render(node.value, names)
                if value is not None:
                    names.setdefault(node.targets[0].id, value)
    return names


def _render(node: ast.AST, names: dict[str, str]) -> str | None:
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.Name):
        return names.get(node.id)
    if isinstance(node, ast.JoinedStr):
        parts = []
        for piece in node.values:
            value = _render(piece.value if isinstance(piece, ast.FormattedValue) else piece, names)
            if value is None:
                return None
            parts.append(value)
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _render(node.left, names), _render(node.right, names)
        return left + right if left is not None and right is not None else None
    if isinstance(node, ast.Call) and len(node.args) == 2 and _is_env_get(node.func):
        return _render(node.args[1], names)
    return None


def _is_env_get(func: ast.expr) -> bool:
    return isinstance(func, ast.Attribute) and func.attr in ("get", "getenv") and \
        (isinstance(func.value, ast.Name) and func.value.id == "os" or
         isinstance(func.value, ast.Attribute) and func.value.attr == "environ")


def _constant(name: str, value: ast.expr, file: str, names: dict[str, str]) -> list[Record]:
    field = _CONSTANTS.get(name.upper())
    text = _render(value, names)
    if field is None or text is None:
        return []
    text, line = text.strip(), value.lineno
    seen = f"{name} = {text!r}"
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
