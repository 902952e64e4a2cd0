"""A local conda-forge-shaped channel for ``torchenv up`` tests (torch 2.7.1, several Pythons).

Why another channel than ``tests/conda``'s: ``up`` goes through the real resolver, which plans
torch 2.7.1 / cu126 (or cpu) for the assumed machines these tests use, so the channel must hold
that release, for each Python the tests plan. Package shapes follow conda-forge
(shared/reference/conda-engine.md §4.2): CUDA builds depend on ``__cuda`` and ``cuda-version``
and carry build number +200; ``cuda-version`` constrains ``__cuda``.

Two kinds of ``python`` stand-in:
* ``real``: a venv-style interpreter (``bin/python`` -> this host's CPython + ``pyvenv.cfg``),
  so the prefix runs Python code (the wheel half of hybrid mode, ``import torch``);
* ``conda-like``: like a real conda-forge python, *no* ``pyvenv.cfg``; ``bin/python`` is a
  script. Only the env-state logic of ``up`` sees the difference.
"""
from __future__ import annotations

import sys
from pathlib import Path

from tests.conda.channel_builder import PLACEHOLDER, Pkg, build_channel, python_package

TORCH = "2.7.1"
HOST_PY = ".".join(map(str, sys.version_info[:2]))          # the interpreter the "real" python links
CONDA_LIKE_PY = "3.12"                                        # a python without pyvenv.cfg
MISSING_PY = "3.9"                                            # "not on the machine" in auto tests


def _conda_like_python(version: str) -> Pkg:
    mm = ".".join(version.split(".")[:2])
    short = mm.replace(".", "")
    script = f"#!/bin/sh\necho 'Python {version} (fake, conda-like)'\n"
    return Pkg("python", version, f"h0_0_cp{short}", depends=[f"python_abi {mm}.* *_cp{short}"],
               files={"bin/python": script, f"bin/python{mm}": script,
                      f"lib/python{mm}/site-packages/README.txt": "site-packages\n"})


def _torch_files(mm: str, variant: str) -> dict[str, str]:
    site = f"lib/python{mm}/site-packages"
    return {f"lib/torch_{variant}.txt": f"{variant} build\n",
            f"{site}/torch/__init__.py": f'__version__ = "{TORCH}"\nVARIANT = "{variant}"\n'}


def forge_channel(channel: Path) -> Path:
    """Build and index the channel; returns its directory."""
    base = getattr(sys, "_base_executable", sys.executable)
    real = python_package(".".join(map(str, sys.version_info[:3])), real_interpreter=str(Path(base).resolve()))
    pythons = [real, _conda_like_python(f"{CONDA_LIKE_PY}.1")]
    if MISSING_PY not in (HOST_PY, CONDA_LIKE_PY):
        pythons.append(_conda_like_python(f"{MISSING_PY}.18"))
    pkgs: list[Pkg] = [
        Pkg("libfoo", "1.0", "h0_0", files={"etc/libfoo.conf": f"prefix={PLACEHOLDER}\n"},
            placeholder_files=("etc/libfoo.conf",)),
        Pkg("conda-only-tool", "0.1", "h0_0", subdir="noarch", fmt=".tar.bz2",
            files={"share/conda-only-tool/README": "a noarch data package\n"}),
    ]
    for cuda in ("12.6", "12.8"):
        major = cuda.split(".")[0]
        pkgs += [Pkg("cuda-version", cuda, "h0_3", 3, subdir="noarch", fmt=".tar.bz2",
                     constrains=[f"__cuda >={major}", f"cudatoolkit {cuda}|{cuda}.*"]),
                 Pkg("cuda-nvcc", f"{cuda}.85", "h0_0", depends=[f"cuda-version {cuda}.*"],
                     files={"bin/nvcc": f"#!/bin/sh\necho 'Cuda compilation tools, release {cuda}'\n"})]
    for py in pythons:
        mm = ".".join(py.version.split(".")[:2])
        short = mm.replace(".", "")
        pyreq = [f"python {mm}.*", f"python_abi {mm}.* *_cp{short}"]
        pkgs += [py, Pkg("python_abi", mm, f"8_cp{short}", fmt=".tar.bz2"),
                 Pkg("pytorch", TORCH, f"cpu_generic_py{short}_h0_0", 0, depends=[*pyreq, "libfoo >=1.0"],
                     constrains=["pytorch-gpu <0.0a0"], files=_torch_files(mm, "cpu")),
                 Pkg("pytorch", TORCH, f"cuda126_generic_py{short}_h0_200", 200,
                     depends=[*pyreq, "libfoo >=1.0", "__cuda", "cuda-version >=12.6,<13"],
                     constrains=["pytorch-cpu <0.0a0"], files=_torch_files(mm, "cuda126"))]
    return build_channel(channel, pkgs)
