"""A conda environment file (``environment.yml``, ``conda.yaml``): conda specs and its ``pip:`` list.

Ranges are intent too: ``pytorch >= 1.13`` becomes a PEP 440 spec and ``python >= 3.8`` bounds the
Python, rather than being dropped.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..model import Record
from .specs import conda_records


@dataclass(frozen=True)
class CondaEnvReading:
    records: tuple[Record, ...]
    pip_lines: tuple[str, ...]          # the pip: list, read as requirement lines by the caller
    not_installed: tuple[str, ...]      # conda packages torchenv does not install
    ok: bool = True


def read_conda_env(text: str, file: str) -> CondaEnvReading:
    import yaml  # type: ignore[import-untyped,unused-ignore]  # PyYAML ships no hints

    try:
        data: Any = yaml.safe_load(text)
    except yaml.YAMLError:
        return CondaEnvReading((), (), (), ok=False)
    deps = data.get("dependencies") if isinstance(data, dict) else None
    lines = _line_numbers(text)
    records: list[Record] = []
    pip: list[str] = []
    skipped: list[str] = []
    for dep in deps if isinstance(deps, list) else []:
        if isinstance(dep, dict):
            listed = dep.get("pip")
            pip += [p for p in listed if isinstance(p, str)] if isinstance(listed, list) else []
        elif isinstance(dep, (str, int, float)):
            spec = str(dep)
            found = conda_records(spec, file, lines.get(spec), "pin")
            if found is None:
                skipped.append(spec)
            else:
                records += found
    return CondaEnvReading(tuple(records), tuple(pip), tuple(skipped))


def _line_numbers(text: str) -> dict[str, int]:
    """``- pytorch=1.11`` -> its line, so records point at the line (first occurrence)."""
    out: dict[str, int] = {}
    for no, line in enumerate(text.splitlines(), 1):
        item = line.strip()
        if item.startswith("- "):
            out.setdefault(item[2:].split("#", 1)[0].strip().strip("\"'"), no)
    return out
