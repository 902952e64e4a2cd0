"""torchenv's own wheel and its dependencies, for ``./bootstrap --offline BUNDLE.tar``.

Why in the bundle: the air-gapped machine usually lacks torchenv too. bootstrap finds the
``torchenv-wheels/`` folder and runs ``pip install --no-index --find-links`` on it, so the
folder must hold torchenv *and* every dependency, as wheels for the target platform.

The torchenv wheel is built from the source tree when torchenv runs from one (a checkout
or an editable install), else downloaded at the installed version. Dependencies come from
the PyPI side with pip's cross-platform download (``--platform``/``--python-version``), once
per target platform and Python version, plus Python 3.10 because bootstrap may pick any
Python >= 3.10 on the offline machine (``tomli`` is a 3.10-only dependency).
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from ..errors import BackendError
from ..i18n import _

if TYPE_CHECKING:
    from ..sources.model import PypiSide


def source_root() -> Path | None:
    """The source tree torchenv runs from (holds pyproject.toml naming torchenv), if any."""
    here = Path(__file__).resolve().parents[3]   # <root>/src/torchenv/offline/tool.py
    pyproject = here / "pyproject.toml"
    try:
        if pyproject.is_file() and 'name = "torchenv"' in pyproject.read_text():
            return here
    except OSError:
        pass
    return None


def _pip(args: list[str], what: str, pypi: "PypiSide | None") -> None:
    from ..engines.uv import source_args

    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1")
    cmd = [sys.executable, "-m", "pip", *args]
    if pypi is not None and "--no-index" not in args:
        cmd += source_args(pypi, [])
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = "\n".join((proc.stderr.strip() or proc.stdout.strip()).splitlines()[-20:])
        raise BackendError(_("{what} failed (exit {returncode}):\n{tail}").format(
                               what=what, returncode=proc.returncode, tail=tail),
                           hint=_("torchenv's own wheels need pip and the PyPI side (your pip config); or leave "
                                  "them out with `torchenv bundle --no-tool`"))


def _platform_args(platform: str, python: str) -> list[str]:
    from ..engines.pip import pip_platforms

    args = ["--only-binary=:all:", "--python-version", python, "--implementation", "cp"]
    for tag in pip_platforms(platform):
        args += ["--platform", tag]
    return args


def _marker_env(platform: str, python: str) -> dict[str, str]:
    os_name, _sep, arch = platform.partition("-")
    machine = {"arm64": "arm64" if os_name == "macos" else "aarch64"}.get(arch, arch)
    return {"python_version": python, "python_full_version": f"{python}.0", "implementation_name": "cpython",
            "platform_python_implementation": "CPython", "platform_machine": machine,
            "sys_platform": {"linux": "linux", "macos": "darwin", "windows": "win32"}.get(os_name, os_name),
            "platform_system": {"linux": "Linux", "macos": "Darwin", "windows": "Windows"}.get(os_name, os_name),
            "os_name": "nt" if os_name == "windows" else "posix", "extra": ""}


def requirements_for(wheel: Path, platform: str, python: str) -> list[str]:
    """torchenv's ``Requires-Dist`` that apply on ``platform`` with ``python`` (markers evaluated here).

    Why not leave markers to pip: ``pip download --python-version 3.10`` still evaluates
    markers for the running interpreter, so ``tomli; python_version < "3.11"`` would be
    missed for a 3.10 machine. (Markers of *transitive* dependencies keep that pip limit.)
    """
    import zipfile
    from email.parser import Parser

    from packaging.requirements import Requirement

    with zipfile.ZipFile(wheel) as zf:
        meta = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        msg = Parser().parsestr(zf.read(meta).decode("utf-8"))
    env = _marker_env(platform, python)
    out = []
    for line in msg.get_all("Requires-Dist") or []:
        req = Requirement(line)
        if req.marker is None or req.marker.evaluate(env):
            req.marker = None
            out.append(str(req))
    return out


def build_tool_wheels(dest: Path, targets: Iterable[tuple[str, str]], *, pypi: "PypiSide | None" = None,
                      ui: Any = None) -> list[Path]:
    """Fill ``dest`` with torchenv's wheel + dependencies for each ``(platform, python)``."""
    from .. import __version__

    dest.mkdir(parents=True, exist_ok=True)
    root = source_root()
    if ui is not None:
        ui.step(f"adding torchenv {__version__} and its dependencies (for ./bootstrap --offline)")
    if root is not None:
        _pip(["wheel", "--no-deps", "--quiet", "-w", str(dest), str(root)], "building torchenv's wheel", pypi)
    else:
        _pip(["download", "--no-deps", "--quiet", "-d", str(dest), f"torchenv=={__version__}"],
             f"downloading torchenv {__version__}", pypi)
    own = sorted(dest.glob("torchenv-*.whl"))
    if not own:
        raise BackendError(_("no torchenv wheel appeared in {dest}").format(dest=dest),
                           hint=_("run `pip wheel --no-deps .` by hand to see why"))
    pairs = sorted(set(targets) | {(p, "3.10") for p, _ in targets})
    for platform, python in pairs:
        reqs = requirements_for(own[-1], platform, python)
        if reqs:
            _pip(["download", "--quiet", "-d", str(dest), *_platform_args(platform, python), *reqs],
                 f"downloading torchenv's dependencies for {platform}, Python {python}", pypi)
    return sorted(p for p in dest.iterdir() if p.is_file())
