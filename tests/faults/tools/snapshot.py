"""Byte-for-byte snapshots of the trees a user owns: the project, the env, and $HOME config."""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

# torchenv's own bookkeeping and caches that are rewritten by design (not user data):
# <project>/.torchenv (project lock, reports), <env>/.torchenv (state + in-progress marker),
# __pycache__ (written by any import).
SKIP_DIRS = {".torchenv", "__pycache__"}


def tree_digest(root: Path) -> dict[str, str]:
    """``{relative path: sha256 | 'dir' | 'link -> target'}`` for everything under ``root``."""
    out: dict[str, str] = {}
    root = Path(root)
    if not root.exists():
        return out
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        base = Path(dirpath)
        for d in dirnames:
            p = base / d
            out[str(p.relative_to(root))] = f"link -> {os.readlink(p)}" if p.is_symlink() else "dir"
        for f in sorted(filenames):
            p = base / f
            rel = str(p.relative_to(root))
            if p.is_symlink():
                out[rel] = f"link -> {os.readlink(p)}"
            else:
                out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def diff(before: dict[str, str], after: dict[str, str]) -> list[str]:
    lines = [f"- {k}" for k in sorted(before.keys() - after.keys())]
    lines += [f"+ {k}" for k in sorted(after.keys() - before.keys())]
    lines += [f"~ {k}" for k in sorted(before.keys() & after.keys()) if before[k] != after[k]]
    return lines
