"""The CUDA toolchain a build against torch gets for a CUDA tier: nvcc from PyPI wheels, and a host-compiler check.

Why: a CUDA extension compiled by an nvcc of another CUDA than torch's fails to load ("The detected CUDA
version mismatches the version that was used to compile PyTorch"), and most machines that build have no
toolkit at all (a laptop, a CI runner, a login node). Where PyPI carries a whole nvcc for the tier's CUDA
major (the ``toolchains`` recipe), its wheels are locked like every other file (sha256, pinned to the
tier's CUDA major.minor) in the target's build-tool section, unpacked into torchenv's cache -- never into
the project's env, whose packages are the lock's -- and ``CUDA_HOME`` points there. No GPU is needed.

nvcc also refuses a host GCC newer than its CUDA knows (``crt/host_config.h``); that is checked before the
build, and the message names the compiler to install and the variables that select it.
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..i18n import N_, _

if TYPE_CHECKING:
    from ..lockfile.model import LockedWheel
    from ..resolve.plan import Plan


@dataclass(frozen=True)
class PypiToolkit:
    """The wheels that hold an nvcc of one CUDA major.minor, and where ``CUDA_HOME`` is inside them."""
    cuda: str                       # "13.0"
    requirements: tuple[str, ...]   # "nvidia-cuda-nvcc==13.0.*", ...
    home: str                       # "nvidia/cu13"


def _major_minor(version: str) -> tuple[int, int] | None:
    m = re.match(r"(\d+)\.(\d+)", version or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


def pypi_toolkit(cuda_version: str | None) -> PypiToolkit | None:
    """The PyPI toolkit of ``cuda_version`` (``"13.0"``), pinned to its major.minor; ``None`` where PyPI has none."""
    from ..kb.load import recipe

    mm = _major_minor(cuda_version or "")
    if mm is None:
        return None
    row = next((r for r in recipe("toolchains").get("pypi", []) if r.get("major") == mm[0]), None)
    if row is None:
        return None
    pin = f"=={mm[0]}.{mm[1]}.*"
    return PypiToolkit(cuda=f"{mm[0]}.{mm[1]}", requirements=tuple(f"{p}{pin}" for p in row["packages"]),
                       home=row["home"])


def no_pypi_nvcc(cuda_version: str | None) -> str | None:
    """Why PyPI has no nvcc for this CUDA major (the recipe's words), or ``None``."""
    from ..kb.load import recipe

    mm = _major_minor(cuda_version or "")
    row = next((r for r in recipe("toolchains").get("no_pypi_nvcc", []) if mm and r.get("major") == mm[0]), None)
    return str(row["why"]) if row is not None else None


def max_gcc(cuda_version: str | None) -> int | None:
    """The newest GCC major ``cuda_version`` accepts as host compiler (``None``: not known)."""
    from ..kb.load import recipe

    want = _major_minor(cuda_version or "")
    rows = [(mm, int(r["max_gcc"])) for r in recipe("toolchains").get("host_gcc", [])
            if (mm := _major_minor(str(r.get("cuda", ""))))]
    fitting = [gcc for mm, gcc in sorted(rows) if want is not None and mm <= want]
    return fitting[-1] if fitting else None


# -- the host compiler -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class HostCompiler:
    """The C++ compiler a build would run, and its GCC major (``None``: not GCC, or it did not say)."""
    path: str | None
    gcc_major: int | None = None


def probe_host_compiler(cuda_version: str | None) -> HostCompiler:
    """``$CXX`` (else ``c++``/``g++``/``clang++`` on PATH) and, when a CUDA limits it, its GCC major version
    (asked of the compiler only then: a CPU build runs no compiler before its own)."""
    import subprocess

    from .buildenv import host_compiler

    path = host_compiler()
    if path is None or max_gcc(cuda_version) is None:
        return HostCompiler(path)
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return HostCompiler(path)
    first = out.splitlines()[0] if out else ""
    m = re.search(r"\b(\d+)\.\d+(?:\.\d+)?", first)
    gcc = ("clang" not in first.lower()) and ("gcc" in first.lower() or "g++" in first.lower())
    return HostCompiler(path, int(m.group(1)) if m and gcc else None)


MISSING_COMPILER_FIX = N_("install one (Debian/Ubuntu: `sudo apt-get install g++`; Fedora/RHEL: "
                        "`sudo dnf install gcc-c++`; conda: `conda install -c conda-forge gxx_linux-64`), "
                        "then run `torchenv up` again")


def host_compiler_problem(compiler: HostCompiler, cuda_version: str | None) -> str | None:
    """What is wrong with the host compiler for this build, with the exact fix; ``None`` when nothing is."""
    if compiler.path is None:
        return _("no C++ compiler found ($CXX, c++, g++ or clang++ on PATH); a build that compiles ops will "
                 "fail: {fix}").format(fix=_(MISSING_COMPILER_FIX))
    newest = max_gcc(cuda_version) if cuda_version else None
    if newest is None or compiler.gcc_major is None or compiler.gcc_major <= newest:
        return None
    return _("{compiler} is GCC {have}, and CUDA {cuda} accepts GCC {newest} at most (nvcc stops with "
             "\"unsupported GNU version\"): install g++-{newest} (Debian/Ubuntu: `sudo apt-get install "
             "g++-{newest}`; conda: `conda install -c conda-forge gxx_linux-64={newest}`) and select it with "
             "`export CC=gcc-{newest} CXX=g++-{newest}`, then run `torchenv up` again").format(
                 compiler=compiler.path, have=compiler.gcc_major, cuda=cuda_version, newest=newest)


def missing_toolkit(cuda_version: str | None) -> str | None:
    """A CUDA tier's build with no nvcc of its CUDA here (none probed, none from PyPI): why, and how to get one."""
    if not cuda_version:
        return None
    why = no_pypi_nvcc(cuda_version)
    return _("no nvcc of CUDA {cuda} here{why}; a build that compiles CUDA ops will fail: install that toolkit "
             "(conda: `conda create -p ~/cuda-{cuda} -c nvidia cuda-nvcc={cuda} cuda-cudart-dev={cuda}`, then "
             "`export CUDA_HOME=~/cuda-{cuda}`; or NVIDIA's cuda-toolkit-{dash} package) and run `torchenv up` "
             "again").format(cuda=cuda_version, why=f" ({why})" if why else "", dash=cuda_version.replace(".", "-"))


# -- the toolkit ---------------------------------------------------------------------------------------------

def toolkits_root() -> Path:
    from ..paths import cache_dir

    return cache_dir() / "cuda-toolkits"


def toolkit_folder(tools: tuple[LockedWheel, ...]) -> Path:
    """Where the locked toolchain wheels are unpacked: named by their hashes, so one set is unpacked once."""
    key = hashlib.sha256("\n".join(sorted(w.sha256 for w in tools)).encode()).hexdigest()[:24]
    return toolkits_root() / key


def toolkit_identity(cuda_home: str) -> str:
    """What the built-wheel cache keys a toolkit by: an unpacked PyPI toolkit by its (hash-named) folder, which
    is the same on every machine; a probed one by its path."""
    try:
        return Path(cuda_home).resolve().relative_to(toolkits_root().resolve()).as_posix()
    except (ValueError, OSError):
        return cuda_home


def _unpack(wheel: Path, into: Path) -> None:
    """A wheel's files under ``into``, with their unix modes (nvcc and its helpers are programs)."""
    import zipfile

    with zipfile.ZipFile(wheel) as zf:
        for info in zf.infolist():
            target = into / info.filename
            if info.is_dir() or ".dist-info/" in info.filename or not target.resolve().is_relative_to(into.resolve()):
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            with zf.open(info) as src, open(target, "wb") as dst:
                shutil.copyfileobj(src, dst)
            mode = (info.external_attr >> 16) & 0o777
            if mode & 0o111 or target.parent.name == "bin":
                target.chmod(0o755)


def _complete(home: Path) -> None:
    """What ``torch.utils.cpp_extension`` expects of a CUDA_HOME beyond the wheels' files: ``lib64`` and an
    unversioned ``libcudart.so`` to link against (the runtime wheel ships ``libcudart.so.NN`` only)."""
    lib = home / "lib"
    if lib.is_dir() and not (home / "lib64").exists():
        (home / "lib64").symlink_to("lib")
    versioned = sorted(lib.glob("libcudart.so.*")) if lib.is_dir() else []
    if versioned and not (lib / "libcudart.so").exists():
        (lib / "libcudart.so").symlink_to(versioned[0].name)


def unpacked_toolkit(wheels: list[Path], tools: tuple[LockedWheel, ...], home: str) -> Path:
    """``CUDA_HOME`` of the locked toolchain: unpacked once into the cache (one rename: whole or absent)."""
    import tempfile

    folder = toolkit_folder(tools)
    if not (folder / home / "bin").is_dir():
        folder.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="torchenv-toolkit-", dir=folder.parent) as tmp:
            staged = Path(tmp) / "toolkit"
            for wheel in wheels:
                _unpack(wheel, staged)
            _complete(staged / home)
            try:
                os.replace(staged, folder)
            except OSError:       # another run unpacked it meanwhile
                pass
    return folder / home


def planned_home(plan: Plan, tools: tuple[LockedWheel, ...]) -> Path | None:
    """Where the locked toolkit's ``CUDA_HOME`` is once unpacked (``toolkit_home`` unpacks it); ``None``: none."""
    toolkit = pypi_toolkit(plan.cuda_version)
    return toolkit_folder(tools) / toolkit.home if toolkit is not None and tools else None


def toolkit_home(plan: Plan, tools: tuple[LockedWheel, ...], ui: Any) -> Path | None:
    """The locked PyPI toolkit's ``CUDA_HOME`` (fetched hash-checked, unpacked into the cache), or ``None``."""
    toolkit = pypi_toolkit(plan.cuda_version)
    if toolkit is None or not tools:
        return None
    if (toolkit_folder(tools) / toolkit.home / "bin").is_dir():
        return toolkit_folder(tools) / toolkit.home
    from ..sources.deadhosts import SourceMemory
    from ..sources.getfile import wheel_file
    from .wheellock import plan_sources

    sources, memory = plan_sources(plan), SourceMemory.recent(ui)
    with ui.progress(_("getting the CUDA {cuda} compiler ({count} files)").format(cuda=toolkit.cuda,
                                                                                  count=len(tools))):
        files = [wheel_file(sources, w, memory=memory, ui=ui) for w in tools]
    home = unpacked_toolkit(files, tools, toolkit.home)
    nvcc = next((w for w in tools if w.name == "nvidia-cuda-nvcc"), tools[0])
    ui.step(_("CUDA_HOME for the build: {home} (nvcc {version} from {file}, CUDA {cuda} like the env's torch)")
            .format(home=home, version=nvcc.version, file=nvcc.filename, cuda=toolkit.cuda))
    return home


def needs_build_tools(plan: Plan, builds_against_torch: bool) -> bool:
    """Lock the toolchain? A CUDA tier whose CUDA has a PyPI nvcc, and something built against torch."""
    return builds_against_torch and pypi_toolkit(plan.cuda_version) is not None
