"""Fixes for an env torchenv made go through torchenv, and name the file to change.

Why: a ``pip install torch==X --index-url URL`` pasted into a torchenv env bypasses
torchenv.lock (the next ``torchenv up`` puts the locked build back), and the URL may be one
this machine cannot reach. For such an env the fix is the ``torchenv up`` flags that build
the right thing, with ``--save`` so the change lands in the project's torchenv.toml, and the
keys it writes there; raw installer commands are dropped. Other envs (a conda env, a venv
torchenv never touched) keep the installer commands: torchenv does not own them.
"""
from __future__ import annotations

import dataclasses
import json
import re
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .model import EnvFacts, Finding

_RAW = re.compile(r"(^|[\s/])(pip|uv pip|-m pip)\s+(install|uninstall)\b")
_FLAG_KEYS = (("--torch", "version"), ("--cuda", "cuda"), ("--python", "python"))


def owning_project(env: EnvFacts | None) -> Path | None:
    """The project whose torchenv made this env (its ``.torchenv/owner.json``), else ``None``."""
    if env is None or env.kind == "text":
        return None
    try:
        data = json.loads((Path(env.prefix) / ".torchenv" / "owner.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    project = data.get("project") if isinstance(data, dict) else None
    return Path(project) if isinstance(project, str) else None


def is_raw_install(command: str | None) -> bool:
    return bool(command and _RAW.search(command))


def route(findings: list[Finding], env: EnvFacts | None) -> list[Finding]:
    """``findings`` with each raw installer fix replaced by the torchenv command, for an env torchenv owns."""
    project = owning_project(env)
    if project is None:
        return findings
    return [_routed(f, project) for f in findings]


def _routed(finding: Finding, project: Path) -> Finding:
    commands = [c for c in (finding.fix, *finding.alternatives) if c]
    if not any(is_raw_install(c) for c in commands):
        return finding
    toml = project / "torchenv.toml"
    chosen = next((c for c in commands if c.startswith("torchenv ")), None)
    fix = _saved(chosen, toml) if chosen else _uninstall_or_up(finding.fix or "", toml)
    others = tuple(c for c in finding.alternatives if not is_raw_install(c) and c != chosen)
    why = (f" This env belongs to the project {project}: installing into it by hand bypasses torchenv.lock "
           "(the next `torchenv up` puts the locked build back), so change the project instead.")
    return dataclasses.replace(finding, fix=fix, alternatives=others, detail=finding.detail + why)


def _saved(command: str, toml: Path) -> str:
    """``torchenv up --torch V --cuda T --save``, and the torchenv.toml keys that writes."""
    words = shlex.split(command)
    keys = [f'{key} = "{words[i + 1]}"' for flag, key in _FLAG_KEYS for i, w in enumerate(words[:-1]) if w == flag]
    companions = [words[i + 1] for i, w in enumerate(words[:-1]) if w == "--with"]
    if companions:
        keys.append("with = [" + ", ".join(f'"{c}"' for c in companions) + "]")
    if not keys:
        return f"{command}   # reads {toml}{_missing(toml)}"
    return f"{command} --save   # writes [torch] {', '.join(keys)} into {toml}{_missing(toml)}"


def _uninstall_or_up(command: str, toml: Path) -> str:
    m = re.search(r"uninstall\s+(?:-p\s+\S+\s+)?(?:-y\s+)?(.+)$", command)
    if m:
        names = ", ".join(f'"{n}"' for n in shlex.split(m.group(1)) if not n.startswith("-"))
        return (f"remove {names} from [torch] with in {toml} and from the project's requirements, "
                f"then run `torchenv up`{_missing(toml)}")
    return f"torchenv up   # rebuilds from {toml}{_missing(toml)}"


def _missing(toml: Path) -> str:
    return "" if toml.is_file() else " (no such file yet: `torchenv init` writes it, `init --force` rewrites it)"
