"""Exports are made from a real ``torchenv.lock``: the one ``up`` writes in the fake world of tests/up."""
from __future__ import annotations

import argparse
import subprocess
from pathlib import Path

import pytest

from tests.up.conftest import World, installer, world  # noqa: F401  (fixtures reused)


def export(project: Path, kind: str, *extra: str) -> int:
    """``torchenv export KIND ...`` through the real parser, as a user types it."""
    from torchenv.cli import build_parser

    args = build_parser().parse_args(["export", kind, "-C", str(project), *extra])
    return args.func(args)


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
    the env's interpreter) are made at install time, so they are left out."""
    return {d.name: sorted(line for line in (d / "RECORD").read_text().splitlines()
                           if line.split(",")[1:2] != [""] and not line.startswith("../")
                           and line.split(",", 1)[0].rsplit("/", 1)[-1] not in INSTALLER_FILES)
            for d in sorted(site.glob("*.dist-info"))}


__all__ = ["World", "argparse", "export", "installer", "locked", "records", "uv", "world"]
