"""Exports are made from a real ``torchenv.lock``: the one ``up`` writes in the fake world of tests/up."""
from __future__ import annotations

import argparse
import subprocess
from pathlib import Path

import pytest
from tests.up.conftest import World, world


def export(project: Path, kind: str, *extra: str) -> int:
    """``torchenv export KIND ...`` through the real parser, as a user types it."""
    from torchenv.commands import build_parser

    args = build_parser().parse_args(["export", kind, "-C", str(project), *extra])
    return args.func(args)


@pytest.fixture
def installer() -> str:
    """The world's engine: uv, what `up` uses by default (both engines are covered in tests/up)."""
    return "uv"


@pytest.fixture
def locked(world: World) -> World:
    """A project after ``torchenv up`` (uv engine): env built, lock written."""
    world.run_up()
    return world


def uv(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    from torchenv.engines.uv import uv_bin, uv_environ

    return subprocess.run([uv_bin(), *args], cwd=cwd, env=uv_environ(), capture_output=True, text=True)


INSTALLER_FILES = ("INSTALLER", "REQUESTED", "direct_url.json", "uv_cache.json")   # how, not what


def records(site: Path) -> dict[str, list[str]]:
    """dist-info name -> its RECORD lines (path, sha256, size) but the installer's own notes:
    equal maps mean the same files with the same bytes were installed. Lines without a hash
    (RECORD itself, bytecode pip compiled) and console scripts (``../../../bin/``, which name
    the env's interpreter) are made at install time, so they are left out. pip is the env's own tool
    (``engines.seed``), not a locked package, so an export that installs the lock's files does not
    bring it."""
    return {d.name: sorted(line for line in (d / "RECORD").read_text().splitlines()
                           if line.split(",")[1:2] != [""] and not line.startswith("../")
                           and line.split(",", 1)[0].rsplit("/", 1)[-1] not in INSTALLER_FILES)
            for d in sorted(site.glob("*.dist-info")) if not d.name.startswith("pip-")}


__all__ = ["World", "argparse", "export", "installer", "locked", "records", "uv", "world", "write_cuda_lock"]


def write_cuda_lock(root: Path) -> Path:
    """A project whose lock has one linux cu126 venv target (hand-made: no CUDA build installs here)."""
    from torchenv.lockfile.io import write_lock
    from torchenv.lockfile.model import LockedWheel, Lockfile, LockTarget

    torch = LockedWheel(name="torch", version="2.7.1+cu126", filename="torch-2.7.1+cu126-cp312-cp312-"
                        "manylinux_2_28_x86_64.whl", url="https://download.pytorch.org/whl/cu126/torch-2.7.1%2B"
                        "cu126-cp312-cp312-manylinux_2_28_x86_64.whl", sha256="ab" * 32,
                        index="https://download.pytorch.org/whl/cu126", source="torch-index")
    numpy = LockedWheel(name="numpy", version="2.3.1", filename="numpy-2.3.1-cp312-cp312-manylinux_2_28_x86_64.whl",
                        url="https://files.pythonhosted.org/packages/aa/numpy-2.3.1-cp312-cp312-manylinux_2_28_x86_64"
                        ".whl", sha256="cd" * 32, index="https://pypi.org/simple")
    target = LockTarget(name="linux-x86_64-cu126", os="linux", arch="x86_64", tier="cu126", python="3.12",
                        backend="venv", torch="2.7.1+cu126", wheels=(torch, numpy))
    project = root / "cudaproj"
    project.mkdir()
    write_lock(project / "torchenv.lock", Lockfile(intent_hash="sha256:" + "1" * 64, targets=(target,)))
    return project
