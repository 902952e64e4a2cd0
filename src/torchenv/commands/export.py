"""`torchenv export conda-lock|explicit`: torchenv.lock's conda targets in plain conda formats.

Why: teammates who only have conda (or CI images with micromamba) can install exactly what
torchenv locked: ``conda create -n X --file explicit.txt`` or ``conda-lock install``.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ._options import add_project

FORMATS = {"conda-lock": "conda-lock.yml", "explicit": None}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("export", help="write torchenv.lock's conda target as conda-lock.yml or an @EXPLICIT file",
                       description="Export the conda packages (and wheels) of torchenv.lock for plain conda users.")
    p.add_argument("format", choices=sorted(FORMATS),
                   help="conda-lock: conda-lock.yml v1 (conda-lock install / micromamba create -f); "
                        "explicit: an @EXPLICIT list (conda create --file)")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="where to write (default: conda-lock.yml for conda-lock, stdout for explicit; - = stdout)")
    p.add_argument("--target", metavar="NAME", help="lock target to export (default: the only conda target)")
    add_project(p)
    p.set_defaults(func=run)


def _read_lock(path: Path):
    from ..lock.io import read_lock

    return read_lock(path)


def _targets(lock, name: str | None, fmt: str, lock_path: Path):
    from ..errors import LockError

    conda = [t for t in lock.targets if t.backend == "conda" and t.conda]
    if name:
        chosen = [t for t in conda if t.name == name]
        if not chosen:
            raise LockError(f"{lock_path}: no conda target named {name}",
                            hint="conda targets: " + (", ".join(t.name for t in conda) or "none"))
        return chosen
    if not conda:
        raise LockError(f"{lock_path}: no conda target to export",
                        hint='set [env] backend = "conda" in torchenv.toml and run `torchenv lock`')
    if fmt == "explicit" and len(conda) > 1:
        raise LockError(f"{lock_path}: several conda targets ({', '.join(t.name for t in conda)}); an @EXPLICIT "
                        "file holds one", hint="pick one with --target NAME")
    return conda


def run(args: argparse.Namespace) -> int:
    from ..conda.channels import conda_subdir
    from ..conda.export import conda_lock_text, explicit_text
    from ..lock.model import LOCK_FILE
    from ..lock.io import write_text_atomic

    lock_path = Path(args.project or ".") / LOCK_FILE
    lock = _read_lock(lock_path)
    targets = _targets(lock, args.target, args.format, lock_path)
    if args.format == "conda-lock":
        text = conda_lock_text(lock, targets)
        output = args.output or FORMATS["conda-lock"]
    else:
        t = targets[0]
        text = explicit_text(t.conda, header=f"exported by torchenv from {LOCK_FILE}, target {t.name}",
                             platform=conda_subdir(f"{t.os}-{t.arch}"), wheels=t.wheels)
        output = args.output or "-"
    if output == "-":
        sys.stdout.write(text)
    else:
        write_text_atomic(Path(output), text)
        sys.stderr.write(f"wrote {output} ({sum(len(t.conda) for t in targets)} conda packages, "
                         f"{sum(len(t.wheels) for t in targets)} wheels)\n")
    return 0
