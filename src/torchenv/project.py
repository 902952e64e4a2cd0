"""Which project a command works on: the nearest ``torchenv.toml`` at or above the start directory.

Why walk up (as git, uv and pixi do): a user in ``proj/src/models`` means ``proj``. Planning
defaults there, and building a second env inside the subdirectory, is the wrong project.

What counts as a project root, in order:

1. the nearest directory holding a ``torchenv.toml`` (a file, a directory or a broken link of
   that name all count, so the loader can say what is wrong with it);
2. else the nearest directory holding a ``torchenv.lock``: a project that ran ``up`` without
   ``init`` has only the lock, and it is still the same project from its subdirectories;
3. else the start directory itself, as before (defaults, env at ``./.venv``).

A lock without a ``torchenv.toml`` beside it never wins over a ``torchenv.toml`` above it:
older torchenv versions, run from a subdirectory, left exactly such stray locks behind.
``pyproject.toml`` does not mark a project: nearly every Python folder has one (monorepo
members, vendored packages), and torchenv reads it only in ``init``.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from .i18n import _

INTENT_NAME = "torchenv.toml"
LOCK_NAME = "torchenv.lock"


@dataclass(frozen=True)
class ProjectRoot:
    """The directory a command uses, and how it was found."""

    root: Path
    start: Path                         # where the search began (cwd or -C DIR)
    marker: Path | None                 # the torchenv.toml (or lone torchenv.lock) that decided it
    stray_locks: tuple[Path, ...] = ()  # locks without a torchenv.toml, passed over on the way up

    @property
    def found_above(self) -> bool:
        return self.root != self.start

    def describe(self) -> str:
        """One line for humans: which file is used, and that it was found above the start directory."""
        what = _("using {file}").format(file=self.marker) if self.marker else \
            _("no {name} found; using defaults in {root}").format(name=INTENT_NAME, root=self.root)
        where = _(" (found above the current directory)") if self.found_above else ""
        return what + where

    def to_json(self) -> dict[str, str | None]:
        return {"project": str(self.root), "project_file": str(self.marker) if self.marker else None}


def current_dir() -> Path:
    """``os.getcwd()``, or a clear error when the directory was deleted under the shell."""
    try:
        return Path(os.getcwd())
    except FileNotFoundError:
        from .errors import TorchenvError

        pwd = os.environ.get("PWD")
        raise TorchenvError(f"the current directory{f' ({pwd})' if pwd else ''} no longer exists",
                            hint="cd into an existing directory (e.g. `cd \"$PWD\"` if it was recreated), "
                                 "or pass -C DIR") from None


def find_project(start: str | Path = ".") -> ProjectRoot:
    """The project root for ``start`` (see the module docstring for the rules)."""
    begin = Path(start)
    begin = (begin if begin.is_absolute() else current_dir() / begin).resolve()
    if not begin.is_dir():              # the loaders name a missing -C DIR; nothing to search
        return ProjectRoot(root=begin, start=begin, marker=None)
    stray: list[Path] = []
    first_lock: Path | None = None
    for folder in (begin, *begin.parents):
        if _has(folder, INTENT_NAME):
            return ProjectRoot(root=folder, start=begin, marker=folder / INTENT_NAME, stray_locks=tuple(stray))
        if _has(folder, LOCK_NAME):
            stray.append(folder / LOCK_NAME)
            first_lock = first_lock or folder / LOCK_NAME
    if first_lock is not None:
        return ProjectRoot(root=first_lock.parent, start=begin, marker=first_lock)
    return ProjectRoot(root=begin, start=begin, marker=None)


def _has(folder: Path, name: str) -> bool:
    """Whether ``folder/name`` exists as anything (file, directory, dangling link); unreadable = no."""
    return os.path.lexists(folder / name)
