"""pip inside every venv, so ``python -m pip install ...`` works as torchenv's hints and READMEs say.

Why virtualenv's bundled wheel: ``uv venv --seed`` downloads pip from an index (none may be
reachable, and ``up --offline`` forbids it); virtualenv, a torchenv dependency that the pip
engine already uses to create envs, ships pip's wheel inside itself. The uv engine adds it to
every ``uv pip sync`` (which would otherwise remove it as extraneous), hash-checked like the
locked files; it is the env's tool, not a locked package, as in the pip engine's envs.
"""
from __future__ import annotations

import functools
import hashlib
from pathlib import Path


@functools.cache
def pip_wheel(python: str) -> tuple[Path, str] | None:
    """(virtualenv's bundled pip wheel for Python ``python``, its sha256), or ``None`` without one."""
    try:
        from virtualenv.seed.wheels.embed import get_embed_wheel
    except ImportError:
        return None
    wheel = get_embed_wheel("pip", python)
    if wheel is None or not Path(wheel.path).is_file():
        return None
    path = Path(wheel.path)
    return path, hashlib.sha256(path.read_bytes()).hexdigest()
