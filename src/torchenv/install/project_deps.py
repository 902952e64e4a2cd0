"""The dependencies of a ``setup.py``/``setup.cfg`` project, read without running anything.

Why: the project itself is installed with ``--no-deps`` (``install.project_install``), so what
it declares in ``install_requires`` must be locked with the rest, as ``[project].dependencies``
of a pyproject is. ``setup.py`` is parsed (``ast``), never executed: a string list given to
``install_requires`` (directly or through a module-level name) is taken, and ``.txt`` names in
it are the requirement files it reads. A computed list the parser cannot see is not guessed.
"""
from __future__ import annotations

import ast
import configparser
from pathlib import Path

_NOT_REQUIREMENTS = ("r", "rt", "utf-8", "utf8", "\n")   # open(..., "r", encoding="utf-8") around a .txt


def setup_py_requirements(path: Path) -> tuple[list[str], list[str]]:
    """(requirement strings, requirement files named) of ``setup(install_requires=...)``."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, SyntaxError, ValueError):
        return [], []
    assigned = {t.id: node.value for node in ast.walk(tree) if isinstance(node, ast.Assign)
                for t in node.targets if isinstance(t, ast.Name)}
    reqs: list[str] = []
    files: list[str] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and _name(node.func) == "setup"):
            continue
        for kw in node.keywords:
            if kw.arg != "install_requires":
                continue
            value = assigned.get(kw.value.id, kw.value) if isinstance(kw.value, ast.Name) else kw.value
            for n in ast.walk(value):
                if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.strip():
                    text = n.value.strip()
                    if text.endswith(".txt") and (path.parent / text).is_file():
                        files.append(text)
                    elif text[0].isalnum() and not text.endswith(".txt") and text not in _NOT_REQUIREMENTS:
                        reqs.append(text)
    return reqs, files


def setup_cfg_requirements(path: Path) -> list[str]:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, configparser.Error):
        return []
    lines = (line.split("#", 1)[0].strip() for line in
             parser.get("options", "install_requires", fallback="").splitlines())
    return [line for line in lines if line]


def _name(func: ast.expr) -> str:
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
