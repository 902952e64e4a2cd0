"""What torchenv may remove: only an environment it can prove it made, or (``--force``) another Python env.

Why a marker with paths in it: a bare ``.torchenv/`` folder proves nothing, since every
project root holds one after ``up``; ``[env] path = "."`` or ``"../other-project"`` then
looked like an env torchenv owned, and the rebuild deleted the project. The marker
``<env>/.torchenv/owner.json`` is written into a new env's folder before anything else and names
the env's own absolute path and the project it belongs to, so a project root, a copied or
moved env, or another project's env never passes as "ours".

Every removal, rename-aside and rebuild of an env goes through ``move_aside`` /
``remove_env`` here, and both look again (``claim``) just before they act: never the
project root or a folder above it, never a folder that holds project files (``.git``,
``pyproject.toml``, ``torchenv.toml``, ...), never something that is not a Python
environment (no ``pyvenv.cfg``, no ``conda-meta/``), never through a symbolic link; a
Python env torchenv did not make only with ``--force``. Standard library only.
"""
from __future__ import annotations

import dataclasses
import json
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import EnvError

OWNER_FILE = "owner.json"          # inside the env's own ``.torchenv/`` bookkeeping folder
OWNER_KIND = "torchenv-env"
OWNER_SCHEMA = 1
# A folder holding one of these is somebody's project or checkout, never an environment to replace.
PROJECT_FILES = ("torchenv.toml", "pyproject.toml", ".git", ".hg", "setup.py", "setup.cfg")

# claim kinds
ABSENT = "absent"          # nothing there: create it
EMPTY = "empty"            # an empty folder: create in it, nothing to remove
OURS = "ours"              # the marker proves torchenv made this env at this path for this project
LEGACY = "legacy"          # a Python env with torchenv's state but no marker (made before markers existed)
FOREIGN = "foreign"        # a Python env torchenv did not make here: replaced only with --force
NEVER = "never"            # not removable at all, --force or not; ``why`` says what it is


class EnvRefused(EnvError):
    """torchenv will not remove or rebuild this path; nothing was changed."""

    exit_code = 2


@dataclass(frozen=True)
class EnvClaim:
    path: Path
    kind: str
    why: str = ""          # for FOREIGN / NEVER: what the path is, in words
    hint: str = ""
    link: str = ""         # the target when ``path`` is a symbolic link to an existing folder

    @property
    def replaceable(self) -> bool:
        return self.kind in (OURS, LEGACY, FOREIGN)


def _hint_other_path() -> str:
    return 'set [env] path in torchenv.toml to a folder of its own (the default is path = ".venv")'


def is_python_env(path: Path) -> bool:
    return (path / "pyvenv.cfg").is_file() or (path / "conda-meta").is_dir()


def owner_file(env: Path) -> Path:
    return env / ".torchenv" / OWNER_FILE


def read_owner(env: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(owner_file(env).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("kind") == OWNER_KIND else None


def write_owner(env: Path, project_root: Path, backend: str) -> None:
    """Mark ``env`` as made by torchenv for ``project_root``; written first, before the engine fills it."""
    from .version import __version__

    owner_file(env).parent.mkdir(parents=True, exist_ok=True)
    data = {"kind": OWNER_KIND, "schema": OWNER_SCHEMA, "env": str(Path(env).resolve()),
            "project": str(Path(project_root).resolve()), "backend": backend, "created": int(time.time()),
            "torchenv": __version__}
    tmp = owner_file(env).with_name(f".{OWNER_FILE}.tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, owner_file(env))


def _never(path: Path, why: str, hint: str = "") -> EnvClaim:
    return EnvClaim(path, NEVER, why, hint or _hint_other_path())


def _structure(path: Path, root: Path) -> EnvClaim | None:
    """The rules no flag overrides, in order; ``None`` when ``path`` is an existing plain folder they allow."""
    if path.is_symlink() and not path.exists():
        target = os.readlink(path)
        return _never(path, f"is a symbolic link to {target}, which does not exist",
                      f"remove the link (`rm {path}`) or recreate {target}, or {_hint_other_path()}")
    if not path.exists():
        return EnvClaim(path, ABSENT)
    if not path.is_dir():
        return _never(path, "is a file, not an environment",
                      f"move it away yourself, or {_hint_other_path()}")
    real = path.resolve()
    if real == root:
        return _never(path, "is the project folder itself")
    if root.is_relative_to(real):
        return _never(path, f"is a folder above the project {root}")
    held = [name for name in PROJECT_FILES if (real / name).exists()]
    if held:
        return _never(path, f"holds {', '.join(held)}: it is a project or checkout, not an environment")
    return None


def _ownership(path: Path, root: Path, made_at: Path | None = None) -> EnvClaim:
    """For an existing plain folder that passed ``_structure``: ours, legacy, foreign, empty, or not an env."""
    if not any(path.iterdir()):
        return EnvClaim(path, EMPTY)
    owner = read_owner(path)
    here = str((made_at or path).resolve())
    if owner is not None and owner.get("env") == here and owner.get("project") == str(root):
        return EnvClaim(path, OURS)          # a Python env, or one torchenv marked and was stopped filling
    if not is_python_env(path):
        return _never(path, "is not a Python environment (no pyvenv.cfg, no conda-meta/)",
                      f"move what it holds away yourself, or {_hint_other_path()}")
    if owner is not None:
        return EnvClaim(path, FOREIGN, _moved_or_other(owner, here, root))
    if (path / ".torchenv" / "state.json").is_file():
        return EnvClaim(path, LEGACY, "is a Python environment made by an older torchenv (no ownership marker)")
    return EnvClaim(path, FOREIGN, "is a Python environment torchenv did not create")


def _moved_or_other(owner: dict[str, Any], here: str, root: Path) -> str:
    """Why a marked env is not this project's, naming only what differs.

    Why not one sentence: an env reached through a symbolic link, or a project moved as a whole, keeps
    its marker's old paths; "made at A for project P, not here" then reads as a contradiction when P is
    this project. Each case says which of the two paths moved.
    """
    made_env, made_for = owner.get("env"), owner.get("project")
    if made_for == str(root):
        return (f"is a Python environment torchenv made for this project at {made_env}; it is now at {here}, "
                "so it was moved (or a link now points elsewhere)")
    if made_env == here:
        return (f"is a Python environment torchenv made here for the project {made_for}; this project is "
                f"{root}, so one of the two was moved or copied")
    return f"is a Python environment torchenv made at {made_env} for the project {made_for}, not for {root}"


def claim(path: Path, project_root: Path, *, made_at: Path | None = None) -> EnvClaim:
    """What ``path`` is to torchenv, looked at now (nothing is changed).

    ``made_at``: the path the env had when torchenv made it (an env moved aside by ``move_aside``).
    """
    path, root = Path(path).absolute(), Path(project_root).resolve()
    found = _structure(path, root) or _ownership(path, root, made_at)
    if found.kind != NEVER and path.is_symlink():
        return dataclasses.replace(found, link=os.readlink(path))
    return found


def _named(path: Path) -> str:
    """The path as configured, and where it really is when ``..`` segments make that unclear."""
    real = path.resolve()
    return str(path) if real == path or path.is_symlink() else f"{path} (= {real})"


def refuse(found: EnvClaim) -> EnvRefused:
    return EnvRefused(f"{_named(found.path)} {found.why}; torchenv will not remove, replace or rebuild it "
                      "(with --force or without), and left it untouched", hint=found.hint)


def foreign_refusal(found: EnvClaim) -> EnvRefused:
    return EnvRefused(f"{_named(found.path)} {found.why}; it was left untouched",
                      hint="move it away, set [env] path in torchenv.toml to another folder, or run "
                           "`torchenv up --force` to replace it (the old environment is deleted only after the "
                           "new one works)")


def check_removable(path: Path, project_root: Path, *, force: bool, made_at: Path | None = None) -> EnvClaim:
    """The claim, when torchenv may remove ``path`` now; else the refusal saying why and what to do."""
    found = claim(path, project_root, made_at=made_at)
    if found.kind == NEVER:
        raise refuse(found)
    if found.link and found.kind != EMPTY:
        raise refuse(dataclasses.replace(found, why=f"is a symbolic link to {found.link}; torchenv does not "
                                                    "remove or rebuild an environment through a link",
                                         hint=f"set [env] path to {path.resolve()} itself, or remove the link"))
    if found.kind in (FOREIGN, LEGACY) and not force:
        raise foreign_refusal(found)
    return found


def move_aside(env: Path, project_root: Path, *, force: bool) -> Path | None:
    """Rename ``env`` out of the way of a rebuild (``None``: nothing there to move); re-checks first."""
    found = check_removable(env, project_root, force=force)
    if found.kind in (ABSENT, EMPTY):
        return None
    aside = env.with_name(f"{env.name}.torchenv-old-{os.getpid()}")
    env.rename(aside)
    return aside


def remove_env(path: Path, project_root: Path, *, force: bool, made_at: Path | None = None) -> None:
    """Delete an environment torchenv may delete (see the module docstring); refuse anything else."""
    found = check_removable(path, project_root, force=force, made_at=made_at)
    if found.kind == ABSENT:
        return
    shutil.rmtree(path)


def remove_half_built(env: Path, project_root: Path) -> None:
    """Delete what this run's failed ``create`` left at ``env``, where nothing stood before it started.

    Why not ``remove_env``: a create that failed half-way may not have written ``pyvenv.cfg``
    or the marker yet; the rules that do not depend on what the folder holds still apply.
    """
    root, path = Path(project_root).resolve(), Path(env).absolute()
    found = _structure(path, root)
    if found is not None and found.kind == NEVER:
        raise refuse(found)
    if path.is_symlink():
        raise refuse(EnvClaim(path, NEVER, f"is a symbolic link to {os.readlink(path)}",
                              f"remove what the link points to yourself, or {_hint_other_path()}"))
    if found is None:
        shutil.rmtree(path)


KERNELSPEC_FILES = frozenset({"kernel.json", "logo-32x32.png", "logo-64x64.png", "logo-svg.svg"})


def remove_kernelspec(folder: Path, *, env: str) -> bool:
    """Remove a Jupyter kernelspec folder torchenv wrote for the env ``env``; ``False``: refused, left alone.

    Why re-check here: the folder is found by name in the user's Jupyter data dir, where other
    tools' kernelspecs live beside ours. Only a real folder (no link) holding nothing but a
    kernelspec's files, whose ``kernel.json`` carries torchenv's marker for that very env, goes.
    """
    folder = Path(folder)
    if folder.is_symlink() or not folder.is_dir():
        return False
    try:
        spec = json.loads((folder / "kernel.json").read_text(encoding="utf-8"))
        names = {p.name for p in folder.iterdir()}
    except (OSError, ValueError):
        return False
    marker = (spec.get("metadata") or {}).get("torchenv") if isinstance(spec, dict) else None
    if not isinstance(marker, dict) or marker.get("env") != env or not names <= KERNELSPEC_FILES:
        return False
    shutil.rmtree(folder)
    return True


def remove_scratch(path: Path, *, inside: Path) -> bool:
    """Remove ``path``, a folder torchenv made for its own work, only when it lies strictly inside ``inside``.

    Why a guard for scratch too: a temp folder or a replaced cache entry is computed from
    other values (a pid, a hash, an environment variable); a wrong value must cost a stray
    folder, never a walk through the user's files. Refuses symbolic links and anything
    outside ``inside`` (returns ``False``); never raises for a folder already gone (``True``: allowed).
    """
    path = Path(path)
    try:
        where = path.parent.resolve(strict=True) / path.name
        root = Path(inside).resolve(strict=True)
    except OSError:
        return False
    if path.is_symlink() or root not in where.parents:
        return False
    shutil.rmtree(where, ignore_errors=True)
    return True
