"""``setup.py`` (a syntax tree, never run) and ``setup.cfg``: ``install_requires`` and the files it reads.

Why never run: running a stranger's ``setup.py`` to learn its torch pin would run their code. The reading
itself is ``intent.project_deps``'s, the one ``up`` locks from: here it becomes evidence records.
"""
from __future__ import annotations

from ...project_deps import read_setup_cfg as read_setup_cfg_declared
from ...project_deps import read_setup_py as read_setup_py_declared
from ..model import Record
from .specs import extra_records, python_records, requirement_records


def read_setup_py(text: str, file: str = "setup.py") -> list[Record]:
    """install_requires, extras_require (each extra for the machine its name says), python_requires, and torch
    index URLs the file names (``dependency_links``, a ``PYTORCH_INDEX_URL`` constant)."""
    from ..files import target_of_name
    from .pyproject import NOT_RUNTIME_EXTRA
    from .scripts import index_records

    found = read_setup_py_declared(text)
    if found is None:
        return []
    python = found.python_requires
    out = [r for s in found.install_requires for r in requirement_records(s, f"{file} install_requires", None, "pin")]
    for extra, items in found.extras_require.items():
        if not NOT_RUNTIME_EXTRA.search(extra):
            out += extra_records(extra, list(items), f"{file} extras_require[{extra!r}]", target_of_name(extra))
    out += [r for c in found.constants for r in index_records(c, file, None, "pin")]
    if python:
        out += python_records(python, f"{file} python_requires", None, "pin", f"python_requires={python!r}")
    return out


def read_setup_cfg(text: str, file: str = "setup.cfg") -> list[Record] | None:
    found = read_setup_cfg_declared(text)
    if found is None:
        return None
    out = [r for line in found.install_requires
           for r in requirement_records(line, f"{file} [options] install_requires", None, "pin")]
    if found.python_requires:
        out += python_records(found.python_requires, f"{file} [options] python_requires", None, "pin",
                              found.python_requires)
    return out
