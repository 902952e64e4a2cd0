"""`torchenv export KIND`: torchenv.lock as the file a user's own tool reads.

Why: a teammate with plain pip, uv, conda or pixi, a Dockerfile, an HPC modulefile or a CI job
should install exactly what torchenv locked, without hand-writing any of it. Every kind is made
from ``torchenv.lock`` (never re-resolved); the registry lives in ``torchenv.export.base``.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..i18n import _
from ._options import add_project

if TYPE_CHECKING:
    from ..export.base import ExportKind
    from ..lockfile.model import Lockfile, LockTarget


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from ..export.base import KINDS

    kinds = "\n".join(f"  {k.name:<15} {_(k.summary)}" for k in KINDS.values())
    p = sub.add_parser("export", help=_("write torchenv.lock as pylock.toml, requirements, Dockerfile, modulefile, ..."),
                       description=_("Generate a file another tool consumes, from torchenv.lock.") + "\n\n"
                       + _("kinds:") + "\n" + kinds,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("format", metavar="KIND", choices=list(KINDS), help=_("what to write (see kinds above)"))
    p.add_argument("-o", "--output", metavar="FILE",
                   help=_("where to write (default: stdout; conda-lock.yml for conda-lock; - = stdout)"))
    p.add_argument("--target", metavar="NAME", help=_("lock target to export (default: the only one)"))
    p.add_argument("--wheels", metavar="DIR",
                   help=_("a folder holding the locked files (unpacked bundle, wheelhouse): pylock paths / find-links"))
    p.add_argument("--bundle", metavar="FILE", help=_("dockerfile/apptainer: install from this offline bundle"))
    p.add_argument("--name", metavar="NAME", help=_("module / env name (default: the project folder's name)"))
    p.add_argument("--force", action="store_true", help=_("overwrite FILE even if torchenv did not write it"))
    add_project(p)
    p.set_defaults(func=run)


def _named_target(pool: list[LockTarget], name: str, what: str, lock_path: Path) -> tuple[LockTarget, ...]:
    from ..errors import LockError

    chosen = tuple(t for t in pool if t.name == name)
    if not chosen:
        raise LockError(_("{lock_path}: no {what} named {name}").format(lock_path=lock_path, what=what, name=name),
                        hint=f"{what}s: " + (", ".join(t.name for t in pool) or "none"))
    return chosen


def _targets(lock: Lockfile, name: str | None, kind: ExportKind, lock_path: Path) -> tuple[LockTarget, ...]:
    from ..errors import LockError

    pool = [t for t in lock.targets if t.backend == "conda" and t.conda] if kind.conda_only else list(lock.targets)
    what = "conda target" if kind.conda_only else "target"
    if name:
        return _named_target(pool, name, what, lock_path)
    if not pool:
        how = 'set [env] backend = "conda" in torchenv.toml and run `torchenv lock`' if kind.conda_only \
            else "run `torchenv lock` first"
        raise LockError(_("{lock_path}: no {what} to export").format(lock_path=lock_path, what=what), hint=how)
    if len(pool) > 1 and not kind.multi_target:
        raise LockError(_("{lock_path}: several {what}s ({items}); `export {name}` writes one").format(
                            lock_path=lock_path, what=what, items=', '.join(t.name for t in pool), name=kind.name),
                        hint=_("pick one with --target NAME"))
    return tuple(pool)


def _refuse_foreign(path: Path, force: bool, kind: str, lock_path: Path) -> None:
    """Never overwrite a file the user wrote (their pyproject.toml, Dockerfile...) unless told to, and never
    the project's lock or intent, nor an export of another kind (a slip such as ``export requirements -o
    torchenv.lock``): torchenv's own header alone does not make a file this export's to replace."""
    from ..errors import EnvError

    if path.name in _NEVER or (path.exists() and path.resolve() == lock_path.resolve()):
        raise EnvError(_("{path}: an export never writes over torchenv.lock or torchenv.toml").format(path=path),
                       hint=_("pick another file with -o FILE (or stdout: -o -); `torchenv lock` rewrites the lock"))
    if not path.exists():
        return
    try:
        head = path.read_text(encoding="utf-8", errors="replace")[:4096]
    except OSError:
        head = ""
    found = _written_as(head)
    if found == "lock":
        raise EnvError(_("{path} is a torchenv lock; an export never writes over it").format(path=path),
                       hint=_("pick another file with -o FILE (or stdout: -o -)"))
    if force:
        return
    if found is None:
        raise EnvError(_("{path} exists and was not written by torchenv; not overwriting it").format(path=path),
                       hint=_("write elsewhere with -o FILE (or stdout: -o -), or pass --force"))
    if found not in (kind, "any"):
        raise EnvError(_("{path} holds a torchenv export of another kind ({found}); not overwriting it with "
                         "{kind}").format(path=path, found=found, kind=kind),
                       hint=_("write elsewhere with -o FILE (or stdout: -o -), or pass --force"))


_NEVER = ("torchenv.lock", "torchenv.toml")


def _written_as(head: str) -> str | None:
    """What torchenv wrote this file as: "lock", an export kind, "any" (an older header with no kind), or None."""
    import re

    from ..export.base import MARKER, MARKERS

    if head.lstrip().startswith("# torchenv.lock: generated by torchenv"):
        return "lock"
    match = re.search(re.escape(MARKER) + r" export (\S+) from", head)
    if match:
        return match.group(1)
    return "any" if any(m in head for m in MARKERS) else None


def run(args: argparse.Namespace) -> int:
    from ..export.base import KINDS, ExportRequest, renderer
    from ..lockfile.io import read_lock, write_text_atomic
    from ..lockfile.model import LOCK_FILE

    kind = KINDS[args.format]
    project = Path(args.project or ".")
    lock_path = project / LOCK_FILE
    lock = read_lock(lock_path)
    targets = _targets(lock, args.target, kind, lock_path)
    output = args.output or kind.default_output or "-"
    out_path = None if output == "-" else Path(output)
    wheels = getattr(args, "wheels", None)
    request = ExportRequest(lock=lock, targets=targets, lock_path=lock_path, project=project, output=out_path,
                            wheels_dir=Path(wheels) if wheels else None, bundle=getattr(args, "bundle", None),
                            name=getattr(args, "name", None) or "")
    if out_path is not None and kind.file_in_dir and out_path.is_dir():    # -o ~/modulefiles
        out_path = out_path / kind.file_in_dir.format(name=request.env_name, target=targets[0].name)
        output = str(out_path)
    _check_output_name(kind.name, out_path)
    text = renderer(kind)(request)
    if out_path is None:
        sys.stdout.write(text)
        return 0
    _refuse_foreign(out_path, getattr(args, "force", False), kind.name, lock_path)
    write_text_atomic(out_path, text)
    _readable(out_path)
    sys.stderr.write(f"wrote {output} ({kind.name}, target {', '.join(t.name for t in targets)}: "
                     f"{sum(len(t.wheels) for t in targets)} wheels, {sum(len(t.conda) for t in targets)} "
                     "conda packages)\n")
    return 0


def _readable(path: Path) -> None:
    """Give the file the mode a plain write would (the temp file is 0600): modulefiles on a shared cluster
    and files copied into an image are read by other users."""
    import os

    mask = os.umask(0)
    os.umask(mask)
    os.chmod(path, 0o666 & ~mask)


def _check_output_name(kind: str, out_path: Path | None) -> None:
    """uv and pip recognise a PEP 751 lock by its name only (pylock.toml / pylock.NAME.toml)."""
    if kind != "pylock" or out_path is None:
        return
    from packaging.pylock import is_valid_pylock_path

    from ..errors import LockError

    if not is_valid_pylock_path(out_path):
        raise LockError(_("{out_path}: a PEP 751 lock must be named pylock.toml or pylock.NAME.toml (installers "
                          "recognise it by its name)").format(out_path=out_path), hint=_("-o pylock.toml"))
