"""What torchenv remembers inside an env it made: ``<env>/.torchenv/state.json`` and the in-progress marker.

Why a fingerprint of ``*.dist-info`` names: listing one directory costs well under a
millisecond and imports nothing, yet it changes whenever a package is added, removed or
changed in version (by pip, uv or by hand), which is what the no-op ``up`` must notice.
Contents of files are not checked: ``torchenv doctor`` does the deeper comparison.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..lock.model import LockTarget

MARKER_DIR = ".torchenv"
STATE_FILE = "state.json"
IN_PROGRESS = "in-progress"
STATE_SCHEMA = 1


@dataclass(frozen=True)
class EnvState:
    target: str            # lock target name the env was synced to
    lock_digest: str       # target_digest() of that target
    fingerprint: tuple[str, ...]   # sorted dist-info names right after the sync
    python: str            # "3.11"
    engine: str            # uv | pip
    torchenv: str = ""
    schema: int = STATE_SCHEMA


def target_digest(target: "LockTarget") -> str:
    """Digest of what a target installs (files and hashes), not of the lock text around it."""
    h = hashlib.sha256()
    h.update(f"{target.name}\0{target.python}\0{target.backend}\n".encode())
    for w in sorted(target.wheels, key=lambda w: (w.name, w.filename)):
        h.update(f"{w.filename}\0{w.sha256}\n".encode())
    for c in sorted(target.conda, key=lambda c: (c.name, c.subdir, c.build)):
        h.update(f"{c.subdir}/{c.name}-{c.version}-{c.build}\0{c.sha256}\n".encode())
    return h.hexdigest()


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


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def distributions(fp: tuple[str, ...]) -> dict[str, str]:
    """``{normalised name: version}`` from dist-info names (``typing_extensions-4.16.0.dist-info``)."""
    out = {}
    for entry in fp:
        if not entry.endswith(".dist-info"):
            continue
        stem = entry[: -len(".dist-info")]
        name, _, version = stem.partition("-")
        out[_norm(name)] = version
    return out


def marker_dir(env: Path) -> Path:
    return env / MARKER_DIR


def read_state(env: Path) -> EnvState | None:
    try:
        data = json.loads((marker_dir(env) / STATE_FILE).read_text())
        data["fingerprint"] = tuple(data["fingerprint"])
        return EnvState(**data)
    except (OSError, ValueError, TypeError, KeyError):
        return None


def _write_json(path: Path, data: dict) -> None:
    from ..lock.io import write_text_atomic

    write_text_atomic(path, json.dumps(data, indent=2, sort_keys=True) + "\n")


def write_state(env: Path, state: EnvState) -> None:
    data = asdict(state)
    data["fingerprint"] = list(state.fingerprint)
    _write_json(marker_dir(env) / STATE_FILE, data)


def mark_created(env: Path) -> None:
    """The env's bookkeeping folder (git-ignored). Ownership is proven by ``safety.write_owner``, not by this."""
    marker_dir(env).mkdir(parents=True, exist_ok=True)
    (marker_dir(env) / ".gitignore").write_text("*\n")


def in_progress(env: Path) -> bool:
    return (marker_dir(env) / IN_PROGRESS).exists()


def begin_install(env: Path, target: str) -> None:
    """Written before the first file changes; removed only after the sync succeeded."""
    mark_created(env)
    (marker_dir(env) / STATE_FILE).unlink(missing_ok=True)
    _write_json(marker_dir(env) / IN_PROGRESS,
                {"pid": os.getpid(), "target": target, "started": time.time()})


def end_install(env: Path, state: EnvState) -> None:
    write_state(env, state)
    (marker_dir(env) / IN_PROGRESS).unlink(missing_ok=True)


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
