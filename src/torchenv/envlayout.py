"""Where things are in a Python env (venv or conda prefix) on disk: interpreter, site-packages, dist-info.

Why a module of its own, below ``engines`` and ``backends``: an engine (pip removing what the lock does
not name) and the env's state (``backends.state``) both read the same layout, and neither may import the
other's package. Standard library only: the no-op ``up`` reads it.
"""
from __future__ import annotations

import os
import re
import sys
from pathlib import Path


def site_packages(env: Path, python: str) -> Path:
    if sys.platform.startswith("win"):
        return env / "Lib" / "site-packages"
    return env / "lib" / f"python{python}" / "site-packages"


def fingerprint(env: Path, python: str) -> tuple[str, ...]:
    """Sorted ``*.dist-info`` directory names of the env, plus ``conda-meta/<record>.json`` in a conda prefix.

    Why conda-meta too: ``conda remove --force libfoo`` changes no dist-info; without its
    record in the fingerprint, ``up`` would call the damaged prefix up to date.
    """
    try:
        names = [n for n in os.listdir(site_packages(env, python)) if n.endswith(".dist-info")]
    except OSError:
        names = []
    try:
        names += [f"conda-meta/{n}" for n in os.listdir(env / "conda-meta") if n.endswith(".json")]
    except OSError:
        pass
    return tuple(sorted(names))


def dist_name(name: str) -> str:
    """A distribution name as dist-info folders, indexes and the lock compare it (PEP 503 normalised).

    The one copy of the rule: ``packaging.utils.canonicalize_name`` says the same, but this runs on
    every ``plan``/``up`` and in modules that stay stdlib-only, where packaging's import is a cost."""
    return re.sub(r"[-_.]+", "-", name).lower()


def distributions(fp: tuple[str, ...]) -> dict[str, str]:
    """``{normalised name: version}`` from dist-info names (``typing_extensions-4.16.0.dist-info``)."""
    out = {}
    for entry in fp:
        if not entry.endswith(".dist-info"):
            continue
        stem = entry[: -len(".dist-info")]
        name, _, version = stem.partition("-")
        out[dist_name(name)] = version
    return out


def env_python_version(env: Path) -> str | None:
    """X.Y of the env's interpreter: ``pyvenv.cfg`` (venv writes ``version``, uv/virtualenv ``version_info``),
    else a conda prefix's ``conda-meta/python-X.Y.Z-<build>.json`` record.

    Why the conda fallback: a conda prefix has no pyvenv.cfg; without it every ``up`` would
    think the Python changed and rebuild the prefix.
    """
    try:
        text = (env / "pyvenv.cfg").read_text()
    except OSError:
        for record in sorted((env / "conda-meta").glob("python-[0-9]*.json")):
            m = re.match(r"python-(\d+)\.(\d+)", record.name)
            if m:
                return f"{m.group(1)}.{m.group(2)}"
        return None
    m = re.search(r"^\s*version(?:_info)?\s*=\s*(\d+)\.(\d+)", text, re.MULTILINE)
    return f"{m.group(1)}.{m.group(2)}" if m else None


def env_python(env: Path) -> Path:
    if sys.platform.startswith("win"):
        return env / "Scripts" / "python.exe"
    return env / "bin" / "python"
