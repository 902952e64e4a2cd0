"""Helpers for doctor tests: fake env trees, the CLI in-process, finding lookup."""
from __future__ import annotations

import json
import os
from pathlib import Path

from tests.support.assets import find_wheel, need

TORCH_DEPS = ["filelock", "sympy", "networkx", "jinja2", "fsspec", "typing-extensions", "setuptools", "mpmath",
              "markupsafe", "numpy", "pillow"]


def tv_wheel() -> Path:
    """PyPI's torchvision 0.29.1 (a cu130 build pinned to torch>=2.14.0), from pip's configuration."""
    return need(find_wheel("torchvision", "0.29.1"), "the torchvision 0.29.1 cp311 Linux x86_64 wheel")


def make_fake_env(root: Path, torch_version: str | None, *, cuda: str | None = None, requires: list[str] = (),
                  archs: str | None = None, companions: dict[str, tuple[str, str]] | None = None,
                  installer: str = "pip", conda_records: list[str] = ()) -> Path:
    """A venv-shaped prefix. ``companions``: name -> (version.py __version__, torch pin like '==2.8.0')."""
    site = root / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True, exist_ok=True)
    (root / "pyvenv.cfg").write_text("home = /usr/bin\nversion_info = 3.11.7\n")
    if torch_version:
        public = torch_version.split("+")[0]
        dist = site / f"torch-{public}.dist-info"
        dist.mkdir()
        meta = ["Metadata-Version: 2.1", "Name: torch", f"Version: {public}"] + [f"Requires-Dist: {r}" for r in requires]
        (dist / "METADATA").write_text("\n".join(meta) + "\n")
        (dist / "INSTALLER").write_text(installer + "\n")
        pkg = site / "torch"
        (pkg / "lib").mkdir(parents=True)
        (pkg / "version.py").write_text(
            "from typing import Optional\n"
            f"__version__ = '{torch_version}'\ndebug = False\ncuda: Optional[str] = {cuda!r}\nhip: Optional[str] = None\n")
        if archs:
            blob = os.urandom(200_000) + b"\x00" + archs.encode() + b"\x00" + os.urandom(50_000)
            (pkg / "lib" / "libtorch_cuda.so").write_bytes(blob)
    for name, (build, pin) in (companions or {}).items():
        public = build.split("+")[0]
        dist = site / f"{name}-{public}.dist-info"
        dist.mkdir()
        (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {public}\n"
                                       f"Requires-Dist: torch ({pin})\n")
        (site / name).mkdir()
        (site / name / "version.py").write_text(f"__version__ = '{build}'\n")
    if conda_records:
        (root / "conda-meta").mkdir()
        for rec in conda_records:
            name, version, build = rec.rsplit("-", 2)
            (root / "conda-meta" / f"{rec}.json").write_text(json.dumps({"name": name, "version": version,
                                                                          "build": build}))
    return root


def run_doctor(capsys, *argv: str) -> tuple[int, dict]:
    """``torchenv doctor --json ...`` in-process; returns (exit code, parsed JSON)."""
    from torchenv.cli import main

    rc = main(["doctor", "--json", *argv])
    out = capsys.readouterr().out
    return rc, json.loads(out)


def by_id(data: dict, fid: str) -> list[dict]:
    return [f for f in data["findings"] if f["id"] == fid]
