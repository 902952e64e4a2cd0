"""Does the project want a Jupyter kernel? Notebooks in its tree, or Jupyter named in its requirements.

Why here, with the requirements: the answer adds ``ipykernel`` to what is locked, so the no-op
``up`` must reach the same answer from the same files (standard library only, no ``packaging``).
The walk lists folders with ``os.scandir``, which the no-op stamp watches (``flows.noop``):
a notebook added or removed changes its folder, and the full check runs again. It stops at the
first notebook and skips what holds no project notebooks (environments, VCS folders,
``node_modules``, hidden folders such as ``.ipynb_checkpoints``), within a bounded number of
entries, so a data folder of a million files costs a bounded walk rather than a slow ``up``.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..reasons import PROJECT, reason

KERNEL_PACKAGE = "ipykernel"
# requirement names that mean "this project is used from Jupyter"
JUPYTER_NAMES = frozenset({"ipykernel", "jupyter", "jupyterlab", "notebook", "jupyter-client", "jupyter-server",
                           "nbclassic", "voila"})
SKIPPED_FOLDERS = frozenset({"node_modules", "__pycache__", "site-packages"})
MAX_DEPTH = 6
MAX_ENTRIES = 20_000


@dataclass(frozen=True)
class KernelWanted:
    """Why the project gets a kernel: the words ``plan`` and ``up`` say, and where it was seen."""

    why: str            # a ``reasons.Reason``: why a kernel is wanted
    where: str          # the notebook or requirement file that decided it, or torchenv.toml


def first_notebook(project_dir: Path) -> Path | None:
    """The first ``*.ipynb`` of the project's tree (breadth first, bounded), or ``None``."""
    budget = MAX_ENTRIES
    level = [str(project_dir)]
    for _depth in range(MAX_DEPTH):
        below: list[str] = []
        for folder in level:
            try:
                with os.scandir(folder) as entries:
                    for entry in entries:
                        budget -= 1
                        if budget < 0:
                            return None
                        if entry.name.endswith(".ipynb") and entry.is_file():
                            return Path(entry.path)
                        if _descend(entry):
                            below.append(entry.path)
            except OSError:
                continue
        level = sorted(below)
        if not level:
            return None
    return None


def _descend(entry: os.DirEntry[str]) -> bool:
    if entry.name.startswith(".") or entry.name in SKIPPED_FOLDERS:
        return False
    try:
        if not entry.is_dir(follow_symlinks=False):
            return False
    except OSError:
        return False
    # another Python environment (a venv, a conda prefix) holds packages' notebooks, not the project's
    return not (os.path.isfile(os.path.join(entry.path, "pyvenv.cfg"))
                or os.path.isdir(os.path.join(entry.path, "conda-meta")))


def kernel_wanted(setting: bool | None, names: list[tuple[str, str]], project_dir: Path,
                  intent_file: str) -> KernelWanted | None:
    """Why a kernel is wanted (``None``: it is not). ``names``: (requirement name, file naming it).

    ``[env] jupyter`` decides when set; else a requirement naming Jupyter, else a notebook.
    """
    if setting is not None:
        return KernelWanted(reason("kernel.asked", PROJECT), intent_file) if setting else None
    named = next(((n, f) for n, f in names if n in JUPYTER_NAMES), None)
    if named is not None:
        return KernelWanted(reason("kernel.named", PROJECT, name=named[0]), named[1])
    notebook = first_notebook(project_dir)
    if notebook is not None:
        shown = notebook.relative_to(project_dir).as_posix()
        return KernelWanted(reason("kernel.notebooks", PROJECT, notebook=shown), str(notebook))
    return None
