"""Which files of a project state its stack, and which machine each one serves.

Why names matter: ``requirements_linux.txt`` beside ``requirements_windows.txt``, ``runtime_cuda.txt``
beside ``runtime_rocm.txt`` and ``runtime_ascend.txt`` are alternatives, not parts of one env;
installing them together lets an NPU file's torch pin win or a macOS-only package enter a Linux
env. A file whose name names another OS, accelerator or framework is kept apart, and said.
"""
from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from .model import ANY, said

# name word -> the target it serves
_TARGET_WORDS = {
    "linux": "linux", "windows": "windows", "win": "windows", "win32": "windows", "win64": "windows",
    "mac": "macos", "macos": "macos", "osx": "macos", "darwin": "macos", "apple": "macos", "metal": "macos",
    "mps": "macos", "cuda": "cuda", "gpu": "cuda", "nvidia": "cuda", "cpu": "cpu", "rocm": "rocm", "amd": "rocm",
    "ascend": "npu", "npu": "npu", "xpu": "xpu", "intel": "xpu", "tpu": "tpu", "xla": "tpu", "hpu": "hpu",
    "gaudi": "hpu", "habana": "hpu", "neuron": "neuron", "jax": "jax", "flax": "jax", "tensorflow": "tensorflow",
    "tf": "tensorflow", "mlx": "macos", "hip": "rocm", "ipex": "xpu", "dml": "directml", "directml": "directml",
}
_OS = ("linux", "windows", "macos")
_CU = re.compile(r"cu\d{2,3}|cuda\d+")


def host_os() -> str:
    return "macos" if sys.platform == "darwin" else "windows" if sys.platform.startswith("win") else "linux"


def targets() -> frozenset[str]:
    """What init plans for: this OS, with an NVIDIA GPU (``cuda`` picks the build per machine anyway)."""
    return frozenset({ANY, host_os(), "cuda"})


def target_of_name(name: str) -> str:
    """``requirements_macos.txt`` -> "macos", ``runtime_cuda.txt`` -> "cuda", ``requirements.txt`` -> "any"."""
    for word in re.split(r"[-_.\s/]+", Path(name).stem.lower()):
        if word in _TARGET_WORDS:
            return _TARGET_WORDS[word]
        if _CU.fullmatch(word):
            return "cuda"
    return ANY


def keep_for_target(names: list[str], wanted: frozenset[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """(the files for the target, [(file, why skipped)]). A cpu file is skipped only beside a cuda one."""
    kept, skipped = [], []
    has_cuda = any(target_of_name(n) == "cuda" for n in names)
    has_torch_route = any(target_of_name(n) not in ("jax", "tensorflow") for n in names)
    for name in names:
        target = target_of_name(name)
        if target in wanted or (target == "cpu" and not has_cuda) or \
                (target in ("jax", "tensorflow") and not has_torch_route):
            kept.append(name)
        elif target == "cpu":
            skipped.append((name, "the CPU alternative of a CUDA file (cuda = \"auto\" picks the build per machine)"))
        elif target in _OS:
            skipped.append((name, said("init.meant_for_host", target=target, host=host_os())))
        elif target in ("jax", "tensorflow"):
            skipped.append((name, said("init.route", target=target)))
        else:
            skipped.append((name, said("init.other_accelerator", target=target)))
    return kept, skipped


_DOC = re.compile(r"(?:readme|install(?:ation|ing)?|get(?:ting)?[-_]?started|quick[-_]?start|setup)"
                  r"(?:[-_.][\w-]*)?(?:\.(?:md|rst|txt|markdown))?$", re.IGNORECASE)
_DOC_DIRS = ("docs", "doc", "docs/source", "docs/en", "docs/en/get_started", "documentation")
MAX_DOCS = 12
_DOC_SUFFIXES = ("", ".md", ".rst", ".txt", ".markdown")


def doc_files(project: Path) -> list[str]:
    """README/INSTALL/getting-started pages in any case and extension, the root first, then docs folders."""
    out: list[str] = []
    for folder in ("",) + _DOC_DIRS:
        base = project / folder
        if not base.is_dir():
            continue
        for path in sorted(base.iterdir(), key=lambda p: (not p.name.lower().startswith("readme"), p.name)):
            if path.is_file() and _DOC.fullmatch(path.name) and path.suffix.lower() in _DOC_SUFFIXES:
                out.append(path.relative_to(project).as_posix())
    return out[:MAX_DOCS]


_SHELL = re.compile(r"(?:install|setup|webui|start|run|launch|env|one[-_]?click|bootstrap)[\w-]*\."
                    r"(?:sh|bash|bat|cmd|ps1)$", re.IGNORECASE)
_PYSCRIPT = re.compile(r"(?:launch|[\w-]*install|one[-_]?click|start|webui|setup[-_]env|env[-_]setup)[\w-]*\.py$"
                       r"|[\w-]*launch_utils\.py$", re.IGNORECASE)
_SCRIPT_DIRS = ("", "scripts", "scripts/install", "modules", "installer", "install", "tools")


def installer_scripts(project: Path) -> list[tuple[str, str]]:
    """(relative path, "python"/"shell") of installer scripts at the root and in a few usual folders."""
    out: list[tuple[str, str]] = []
    for folder in _SCRIPT_DIRS:
        base = project / folder
        if not base.is_dir():
            continue
        for path in sorted(base.iterdir()):
            if not path.is_file():
                continue
            rel = path.relative_to(project).as_posix()
            if _PYSCRIPT.fullmatch(path.name) and path.name != "setup.py":
                out.append((rel, "python"))
            elif _SHELL.fullmatch(path.name):
                out.append((rel, "shell"))
    return out[:20]


def dockerfiles(project: Path) -> list[str]:
    out: list[str] = []
    for root, dirs, files in os.walk(project):
        depth = len(Path(root).relative_to(project).parts)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".")) if depth < 2 else []
        for name in sorted(files):
            if name == "Dockerfile" or name.startswith("Dockerfile.") or name.endswith(".Dockerfile"):
                out.append((Path(root) / name).relative_to(project).as_posix())
    return out[:10]
