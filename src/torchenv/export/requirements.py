"""``requirements.txt`` for ``pip install --require-hashes -r``: every locked file pinned with its sha256.

Why index lines per tier: the torch family lives on the tier's own index (``+cpu``/``+cu126``
local tags are never on PyPI), so the file names that index next to the PyPI side. Exact pins
with hashes stop pip from taking a look-alike from the other index.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .base import index_lines, relative_to_output

if TYPE_CHECKING:
    from ..lockfile.model import LockedWheel
    from .base import ExportRequest


def requirement_line(wheel: LockedWheel) -> str:
    """One line per file (no ``\\`` continuation): the same text is embedded in Dockerfile heredocs."""
    return f"{wheel.name}=={wheel.version} --hash=sha256:{wheel.sha256}"


def source_lines(request: ExportRequest) -> list[str]:
    if request.wheels_dir is not None:
        return ["--no-index", f"--find-links {relative_to_output(request, request.wheels_dir)}"]
    return index_lines(request.target)


def render(request: ExportRequest) -> str:
    from ..errors import LockError

    target = request.target
    if not target.wheels:
        raise LockError(f"{request.lock_path}: target {target.name} has no wheels to list",
                        hint="use `torchenv export conda-env` or `explicit` for a conda target")
    lines = [request.header("requirements").rstrip("\n"),
             f"# Python {target.python}, {target.os}-{target.arch}, torch {target.torch} ({target.tier}).",
             "# Install: pip install --require-hashes --no-deps -r THIS_FILE", *source_lines(request), ""]
    lines += [requirement_line(w) for w in target.wheels]
    return "\n".join(lines) + "\n"
