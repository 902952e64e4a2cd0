"""The code's own ``import torchvision`` / ``import torchaudio``: the weakest evidence, used only when no file
names the companion.

An import the code is ready to miss (inside ``try: ... except ImportError``, or under
``if TYPE_CHECKING:``) is not a requirement.
"""
from __future__ import annotations

import ast
import re

_IMPORT = re.compile(r"^[ \t]*(?:import|from)[ \t]+(torchvision|torchaudio)\b", re.MULTILINE)
_MISSING_OK = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}


def read_imports(text: str) -> list[tuple[str, int, str, bool]]:
    """(module, line, the import line, guarded) for each torchvision/torchaudio import of ``text``."""
    hits = list(_IMPORT.finditer(text))
    if not hits:
        return []
    guarded = _guarded_import_lines(text)
    out = []
    for m in hits:
        line = text.count("\n", 0, m.start()) + 1
        out.append((m.group(1), line, m.group(0).strip(), line in guarded))
    return out


def _guarded_import_lines(text: str) -> set[int]:
    """Lines of the imports ``text`` is ready to miss. Code that does not parse (Python 2, a file cut short)
    has none: its imports count as required."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return set()
    guards = [node for node in ast.walk(tree) if isinstance(node, (ast.Try, ast.If)) and _ready_to_miss(node)]
    return {line for node in guards for line in _import_lines(node.body)}


def _ready_to_miss(node: ast.Try | ast.If) -> bool:
    if isinstance(node, ast.Try):
        return any(_catches_missing(h.type) for h in node.handlers)
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _catches_missing(handler_type: ast.expr | None) -> bool:
    if handler_type is None:
        return True
    names = handler_type.elts if isinstance(handler_type, ast.Tuple) else [handler_type]
    return any((n.id if isinstance(n, ast.Name) else getattr(n, "attr", "")) in _MISSING_OK for n in names)


def _import_lines(body: list[ast.stmt]) -> set[int]:
    return {n.lineno for stmt in body for n in ast.walk(stmt) if isinstance(n, (ast.Import, ast.ImportFrom))}
