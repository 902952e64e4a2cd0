"""Python interpreters a project env could be built from: PATH, pyenv, conda envs, uv-managed.

Why mostly without running them: a machine can hold dozens of interpreters and the whole
probe must stay well under a second. Versions come from layout first — ``pythonX.Y`` in the
resolved file name, ``include/pythonX.Y/patchlevel.h``, pyenv/uv directory names, a conda
prefix's ``conda-meta/python-X.Y.Z-*.json`` — and only an interpreter that says nothing that
way is asked (``-I -S -c``, 3 s timeout). Duplicates are removed by real path; pyenv shims
(shell scripts) are skipped because the versions they point at are listed from pyenv itself,
and so are WSL's ``/mnt/<drive>`` PATH entries (Windows programs, slow to list).
Python 2 is left out. Free-threaded builds are reported with a ``t`` suffix (``3.14.0t``): their
wheels are a different ABI (``cp314t``), so a ``python = "3.14t"`` plan can use one and no other.
They are told apart by name (``python3.14t``, uv's ``+freethreaded``, pyenv's ``3.14.0t``, a conda
build string ``*_cp314t``) or, when asked, by sysconfig's ``Py_GIL_DISABLED``.
"""
from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterable, Iterator
from pathlib import Path

from ..machine import CondaExe, PythonInstall
from .context import ProbeContext

_ASK_TIMEOUT_S = 3.0
_ASK = ("import sys, sysconfig; print('%d.%d.%d' % sys.version_info[:3] "
        "+ ('t' if sysconfig.get_config_var('Py_GIL_DISABLED') else ''))")
_PATH_NAME = re.compile(r"^python3(\.\d+t?)?$")
_XY_NAME = re.compile(r"^python(3\.\d+t?)$")
_FULL = re.compile(r"^3\.\d+\.\d+t?$")
_PY_VERSION = re.compile(r'#define\s+PY_VERSION\s+"(3\.\d+\.\d+)"')


def _numeric(name: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", name)[:3])


def _exe_in(prefix: Path, windows: bool) -> Path | None:
    names = ("python.exe",) if windows else ("bin/python3", "bin/python")
    for name in names:
        if (prefix / name).is_file():
            return prefix / name
    return None


def _version_from_conda_meta(prefix: Path) -> str | None:
    try:
        for meta in (prefix / "conda-meta").glob("python-3.*.json"):
            match = re.match(r"python-(3\.\d+\.\d+)-(.*)\.json$", meta.name)
            if match:
                return match.group(1) + ("t" if re.search(r"_cp3\d+t$", match.group(2)) else "")
    except OSError:
        return None
    return None


def _version_from_layout(real: Path) -> str | None:
    """Full version from the interpreter's own prefix, without starting it."""
    xy = _XY_NAME.match(real.name)
    if not xy:
        return _version_from_conda_meta(real.parent.parent)
    freethreaded = "t" if xy.group(1).endswith("t") else ""
    header = real.parent.parent / "include" / f"python{xy.group(1)}" / "patchlevel.h"
    try:
        match = _PY_VERSION.search(header.read_text(errors="replace"))
    except OSError:
        match = None
    if match:
        return match.group(1) + freethreaded
    if (real.parent.parent / "lib" / f"python{xy.group(1)}").is_dir():
        return xy.group(1)                     # "3.11" / "3.14t": minor known, patch not worth a subprocess
    return None


def _ask_version(ctx: ProbeContext, exe: Path) -> str | None:
    try:
        proc = ctx.run([str(exe), "-I", "-S", "-c", _ASK], _ASK_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired):
        return None
    out = (proc.stdout or "").strip()
    return out if proc.returncode == 0 and _FULL.match(out) else None


def _is_windows_drive_in_wsl(entry: str) -> bool:
    """``/mnt/c/...`` in WSL: Windows programs, and listing them over 9P is slow."""
    return re.match(r"^/mnt/[a-zA-Z](/|$)", entry) is not None


def _is_pyenv_shims(entry: str) -> bool:
    parts = Path(entry).parts
    return bool(parts) and parts[-1] == "shims" and any("pyenv" in p for p in parts)


def _from_path(ctx: ProbeContext) -> Iterator[tuple[Path, str | None, str]]:
    windows = ctx.system == "Windows"
    sep = ";" if windows else ":"
    for entry in ctx.environ.get("PATH", "").split(sep):
        if not entry or "WindowsApps" in entry or _is_pyenv_shims(entry) \
                or (not windows and _is_windows_drive_in_wsl(entry)):
            continue
        directory = ctx.path(entry)
        try:
            names = sorted(os.listdir(directory))
        except OSError:
            continue
        for name in names:
            if (windows and name.lower() in ("python.exe", "python3.exe")) or (not windows and _PATH_NAME.match(name)):
                yield directory / name, None, "path"


def _pyenv_root(ctx: ProbeContext) -> Path | None:
    home = ctx.home()
    root = ctx.environ.get("PYENV_ROOT") or (os.path.join(home, ".pyenv") if home else None)
    return ctx.path(root) if root else None


def _from_pyenv(ctx: ProbeContext) -> Iterator[tuple[Path, str | None, str]]:
    root = _pyenv_root(ctx)
    if root is None:
        return
    try:
        versions = sorted((root / "versions").iterdir(), key=lambda p: _numeric(p.name))
    except OSError:
        return
    for prefix in versions:
        if _FULL.match(prefix.name) and (exe := _exe_in(prefix, ctx.system == "Windows")):
            yield exe, prefix.name, "pyenv"


def _conda_prefixes(ctx: ProbeContext, conda: Iterable[CondaExe]) -> list[Path]:
    bases: list[Path] = []
    for exe in conda:
        if exe.kind != "micromamba":
            bases.append(Path(exe.path).parent.parent)
    for var in ("CONDA_PREFIX", "MAMBA_ROOT_PREFIX"):
        if ctx.environ.get(var):
            bases.append(ctx.path(ctx.environ[var]))
    prefixes: list[Path] = []
    for base in bases:
        prefixes.append(base)
        try:
            prefixes.extend(sorted(p for p in (base / "envs").iterdir() if p.is_dir()))
        except OSError:
            pass
    home = ctx.home()
    if home:
        listed = ctx.read_text(os.path.join(home, ".conda", "environments.txt")) or ""
        prefixes.extend(ctx.path(line.strip()) for line in listed.splitlines() if line.strip())
    return prefixes


def _from_conda(ctx: ProbeContext, conda: Iterable[CondaExe]) -> Iterator[tuple[Path, str | None, str]]:
    for prefix in _conda_prefixes(ctx, conda):
        version = _version_from_conda_meta(prefix)
        if version and (exe := _exe_in(prefix, ctx.system == "Windows")):
            yield exe, version, "conda"


def _uv_dir(ctx: ProbeContext) -> Path | None:
    env = ctx.environ
    if env.get("UV_PYTHON_INSTALL_DIR"):
        return ctx.path(env["UV_PYTHON_INSTALL_DIR"])
    if ctx.system == "Windows" and env.get("APPDATA"):
        return ctx.path(os.path.join(env["APPDATA"], "uv", "data", "python"))
    home = ctx.home()
    data = env.get("XDG_DATA_HOME") or (os.path.join(home, ".local", "share") if home else None)
    return ctx.path(os.path.join(data, "uv", "python")) if data else None


def _from_uv(ctx: ProbeContext) -> Iterator[tuple[Path, str | None, str]]:
    base = _uv_dir(ctx)
    if base is None:
        return
    try:
        installs = sorted(base.iterdir(), key=lambda p: _numeric(p.name))
    except OSError:
        return
    for prefix in installs:
        match = re.match(r"^cpython-(3\.\d+\.\d+)(\+freethreaded)?-", prefix.name)
        if match and (exe := _exe_in(prefix, ctx.system == "Windows")):
            yield exe, match.group(1) + ("t" if match.group(2) else ""), "uv"


def probe_pythons(ctx: ProbeContext, conda: Iterable[CondaExe] = ()) -> list[PythonInstall]:
    found: list[PythonInstall] = []
    seen: set[str] = set()
    sources = (_from_path(ctx), _from_pyenv(ctx), _from_conda(ctx, conda), _from_uv(ctx))
    for exe, version, source in (item for each in sources for item in each):
        try:
            real = Path(os.path.realpath(exe))
        except OSError:
            continue
        if str(real) in seen or not real.is_file():
            continue
        version = version or _version_from_layout(real) or _ask_version(ctx, exe)
        if version is None:
            continue                  # a later source (pyenv, conda, uv) may still know this one
        seen.add(str(real))
        if not version.startswith("3."):
            continue
        found.append(PythonInstall(version=version, path=str(exe), source=source))
    return found
