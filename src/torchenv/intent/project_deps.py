"""The dependencies of a ``setup.py``/``setup.cfg`` project, read without running anything.

One reader for both verbs: ``up`` locks what it finds here and ``init`` (``intent.evidence``) reads its
torch and Python pins from the same ``SetupPy``/``SetupCfg``, so the two cannot disagree about a file.

Why: the project itself is installed with ``--no-deps`` (``flows.project_install``), so what
it declares in ``install_requires`` must be locked with the rest, as ``[project].dependencies``
of a pyproject is. ``setup.py`` is parsed (``ast``), never executed: a string list given to
``install_requires`` (directly or through a module-level name) is taken, and ``.txt`` names in
it are the requirement files it reads, and ``deps["name"]`` is looked up in the module's lists of
requirement strings. A computed list the parser cannot see is not guessed.
"""
from __future__ import annotations

import ast
import configparser
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

_NOT_REQUIREMENTS = ("r", "rt", "utf-8", "utf8", "\n")   # open(..., "r", encoding="utf-8") around a .txt


@dataclass(frozen=True)
class SetupPy:
    """What a ``setup.py`` declares, read from its syntax tree: the one reading ``init`` and ``up`` share."""

    install_requires: tuple[str, ...]           # requirement strings, through names and lookup tables
    named_files: tuple[str, ...]                # ``.txt`` names in install_requires: the files it reads
    python_requires: str | None = None
    extras_require: dict[str, tuple[str, ...]] = field(default_factory=dict)
    constants: tuple[str, ...] = ()             # every string of the file (an index URL it names)


@dataclass(frozen=True)
class SetupCfg:
    install_requires: tuple[str, ...]
    python_requires: str | None = None


def read_setup_py(text: str) -> SetupPy | None:
    """``setup(...)``'s keywords, never run; None when the file does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    assigned = _assigned(tree)
    table = _by_name(assigned)
    keywords = _setup_keywords(tree)
    texts = _keyword_strings(keywords, "install_requires", assigned, table)
    python = _keyword_strings(keywords, "python_requires", assigned, table)
    constants = tuple(n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str))
    return SetupPy(install_requires=tuple(_requirements_only(texts)),
                   named_files=tuple(t for t in texts if t.endswith(".txt")),
                   python_requires=python[0] if python else None,
                   extras_require=_extras(keywords, assigned, table), constants=constants)


def _assigned(tree: ast.AST) -> dict[str, ast.expr]:
    """Module names and what was assigned to them (the last assignment of a name wins)."""
    return {t.id: node.value for node in ast.walk(tree) if isinstance(node, ast.Assign)
            for t in node.targets if isinstance(t, ast.Name)}


def _setup_keywords(tree: ast.AST) -> list[ast.keyword]:
    """The keywords of every ``setup(...)`` call in the file."""
    return [kw for node in ast.walk(tree) if isinstance(node, ast.Call) and _name(node.func) == "setup"
            for kw in node.keywords]


def _keyword_strings(keywords: list[ast.keyword], arg: str, assigned: dict[str, ast.expr],
                     table: dict[str, str]) -> list[str]:
    """The non-empty strings given to ``setup(arg=...)``, through names and lookup tables."""
    return [t for kw in keywords if kw.arg == arg for t in _strings(kw.value, assigned, table) if t]


def _requirements_only(texts: list[str]) -> list[str]:
    """The strings that are requirements: not a file name, not an ``open()`` argument around one."""
    return [t for t in texts if t[0].isalnum() and not t.endswith(".txt") and t not in _NOT_REQUIREMENTS]


def _extras(keywords: list[ast.keyword], assigned: dict[str, ast.expr], table: dict[str, str]
            ) -> dict[str, tuple[str, ...]]:
    out: dict[str, tuple[str, ...]] = {}
    for kw in keywords:
        value = assigned.get(kw.value.id, kw.value) if isinstance(kw.value, ast.Name) else kw.value
        if kw.arg != "extras_require" or not isinstance(value, ast.Dict):
            continue
        for key, item in zip(value.keys, value.values):
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                out[key.value] = tuple(_requirements_only([t for t in _strings(item, assigned, table) if t]))
    return out


def setup_py_requirements(path: Path) -> tuple[list[str], list[str]]:
    """(requirement strings, requirement files named) of ``setup(install_requires=...)``."""
    try:
        found = read_setup_py(path.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return [], []
    if found is None:
        return [], []
    return list(found.install_requires), [f for f in found.named_files if (path.parent / f).is_file()]


def _strings(node: ast.AST, assigned: dict[str, ast.expr], table: dict[str, str],
             depth: int = 0) -> Iterator[str]:
    """The string constants under ``node``, through module-level names (``list(install_requires)``)
    and lookups in a table of requirements by name (``deps["huggingface-hub"]``, as diffusers and
    transformers build ``install_requires`` from one ``_deps`` list). An f-string is not guessed."""
    if depth > 8 or isinstance(node, ast.JoinedStr):
        return
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value.strip()
    elif isinstance(node, ast.Name) and node.id in assigned:
        yield from _strings(assigned[node.id], assigned, table, depth + 1)
    elif _table_lookup(node):
        key, mapping = node.slice.value, assigned.get(node.value.id)   # type: ignore[attr-defined]
        if isinstance(mapping, ast.Dict):
            found = [v for k, v in zip(mapping.keys, mapping.values)
                     if isinstance(k, ast.Constant) and k.value == key]
            yield from (t for v in found for t in _strings(v, assigned, table, depth + 1))
        else:
            yield table.get(_norm(key), key)
    else:
        for child in ast.iter_child_nodes(node):
            yield from _strings(child, assigned, table, depth + 1)


def _table_lookup(node: ast.AST) -> bool:
    """``deps["name"]``: read through the dict literal ``deps`` names, or the module's requirement lists."""
    return isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) \
        and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str)


def _by_name(assigned: dict[str, ast.expr]) -> dict[str, str]:
    """Requirement strings of the module-level string lists, by normalised project name."""
    import re

    table: dict[str, str] = {}
    for value in assigned.values():
        if isinstance(value, (ast.List, ast.Tuple)):
            for item in value.elts:
                if isinstance(item, ast.Constant) and isinstance(item.value, str):
                    name = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", item.value)
                    if name:
                        table.setdefault(_norm(name.group(1)), item.value.strip())
    return table


def read_setup_cfg(text: str) -> SetupCfg | None:
    """``[options] install_requires`` (comments dropped) and ``python_requires``; None when it does not parse."""
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    lines = (line.split("#", 1)[0].strip() for line in
             parser.get("options", "install_requires", fallback="").splitlines())
    python = parser.get("options", "python_requires", fallback="").strip()
    return SetupCfg(tuple(line for line in lines if line), python or None)


def setup_cfg_requirements(path: Path) -> list[str]:
    try:
        found = read_setup_cfg(path.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return []
    return list(found.install_requires) if found else []


def _name(func: ast.expr) -> str:
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def optional_requirements(project_dir: Path, extras: tuple[str, ...]) -> tuple[list[str], str, list[str]]:
    """(requirement strings, the file, extras it lacks) of ``[project.optional-dependencies]`` groups.

    A group naming the project itself (``litgpt[extra]`` inside ``all``) is expanded, as pip does."""
    import re

    from ..fileio import tomllib_module

    path = project_dir / "pyproject.toml"
    try:
        table = tomllib_module().loads(path.read_text(encoding="utf-8")).get("project") or {}
    except (OSError, ValueError):
        table = {}
    groups = {_norm(k): v for k, v in (table.get("optional-dependencies") or {}).items()}
    me = _norm(str(table.get("name") or ""))
    out: list[str] = []
    unknown: list[str] = []
    todo, done = [_norm(e) for e in extras], set()
    while todo:
        extra = todo.pop(0)
        if extra in done:
            continue
        done.add(extra)
        if extra not in groups:
            unknown.append(extra)
            continue
        for text in groups[extra]:
            own = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*\[([^\]]+)\]\s*$", str(text))
            if own and me and _norm(own.group(1)) == me:
                todo.extend(_norm(e) for e in own.group(2).split(","))
            else:
                out.append(str(text))
    return out, str(path), unknown


def _norm(name: str) -> str:
    from ..envlayout import dist_name

    return dist_name(name.strip())
