"""torchenv's own wheel and its dependencies, for ``./bootstrap --offline BUNDLE.tar``.

Why in the bundle: the air-gapped machine usually lacks torchenv too. bootstrap finds the
``torchenv-wheels/`` folder and runs ``pip install --no-index --find-links`` on it, so the
folder must hold torchenv *and* every dependency, as wheels for the target platform.

torchenv is on no index, so its wheel comes from what runs: an installed torchenv (the way
``./bootstrap`` installs it) is repacked from its RECORD (``repack.py``); a source tree (a
checkout, an editable install) is built with ``pip wheel``. Dependencies that the running
environment holds in a build that fits a target are repacked too; the rest come from the
PyPI side with pip's cross-platform download (``--platform``/``--python-version``), once per
target platform and Python version, plus Python 3.10 because bootstrap may pick any
Python >= 3.10 on the offline machine (``tomli`` is a 3.10-only dependency).
"""
from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import BackendError
from ..i18n import _

if TYPE_CHECKING:
    from packaging.requirements import Requirement

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


def _pip(args: list[str], what: str, pypi: PypiSide | None) -> None:
    from ..engines.uv import source_flags

    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1")
    cmd = [sys.executable, "-m", "pip", *args]
    if pypi is not None and "--no-index" not in args:
        sources = source_flags(pypi, [], tool="pip")
        cmd += sources.args
        env.update(sources.env)
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


def _applies(req: Requirement, env: dict[str, str], extras: frozenset[str]) -> bool:
    """Whether a requirement's marker holds on the target (for the requirer's extras too)."""
    if req.marker is None:
        return True
    return any(req.marker.evaluate({**env, "extra": e}) for e in ("", *sorted(extras)))


class InstalledWheels:
    """The running environment's distributions, each repacked into ``dest`` once, on first use.

    Why: the tool env already holds torchenv's dependencies; a bundle takes them from there
    instead of downloading them again (``pip download`` stays for what is not installed:
    other platforms, other Pythons, markers that are false here).
    """

    def __init__(self, dest: Path) -> None:
        from importlib import metadata

        from packaging.utils import canonicalize_name

        self.dest = dest
        self.dists: dict[str, Any] = {}
        for dist in metadata.distributions():
            name = dist.metadata["Name"]
            if name:
                self.dists.setdefault(canonicalize_name(name), dist)
        self._wheels: dict[str, Path | None] = {}

    def wheel(self, name: str) -> Path | None:
        """The repacked wheel of installed ``name`` (None when it cannot be rebuilt faithfully)."""
        if name not in self._wheels:
            from .repack import RepackError, repack

            try:
                self._wheels[name] = repack(self.dists[name], self.dest)
            except (RepackError, OSError):
                self._wheels[name] = None
        return self._wheels[name]

    def fits(self, name: str, req: Requirement, supported: frozenset[str]) -> bool:
        """Whether the installed ``name`` meets ``req`` in a build for the target, and repacks faithfully."""
        from .repack import wheel_tags

        dist = self.dists.get(name)
        if dist is None or not req.specifier.contains(dist.version, prereleases=True):
            return False
        return bool(set(wheel_tags(dist.read_text("WHEEL") or "")) & supported) and self.wheel(name) is not None


def wheel_requires(wheel: Path) -> list[str]:
    """``Requires-Dist`` lines of a wheel, markers kept."""
    import zipfile
    from email.parser import Parser

    with zipfile.ZipFile(wheel) as zf:
        meta = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        msg = Parser().parsestr(zf.read(meta).decode("utf-8"))
    return list(msg.get_all("Requires-Dist") or [])


def not_installed(requires: list[str], platform: str, python: str, installed: InstalledWheels) -> list[str]:
    """Walk ``requires`` through the installed distributions; return what must be downloaded.

    Markers are evaluated here for the target, not left to pip: ``pip download
    --python-version 3.10`` still evaluates markers for the running interpreter, so
    ``tomli; python_version < "3.11"`` would be missed for a 3.10 machine. (Markers of what
    pip downloads itself keep that pip limit.)
    """
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    from ..sources.wheelfit import target_tags

    env, supported = _marker_env(platform, python), frozenset(str(t) for t in target_tags(python, platform))
    queue: list[tuple[Requirement, frozenset[str]]] = [(Requirement(r), frozenset()) for r in requires]
    seen: set[str] = set()
    missing: list[str] = []
    while queue:
        req, extras = queue.pop(0)
        name = canonicalize_name(req.name)
        if name in seen or not _applies(req, env, extras):
            continue
        seen.add(name)
        if not installed.fits(name, req, supported):
            req.marker = None
            missing.append(str(req))
            continue
        queue += [(Requirement(r), frozenset(req.extras)) for r in installed.dists[name].requires or []]
    return missing


def running_distribution() -> Any:
    """The installed torchenv whose modules are the ones running, else None.

    An editable install or a checkout on ``sys.path`` runs modules that are not where its
    distribution's RECORD says, so it gets None (and the source tree is built instead).
    """
    from importlib import metadata

    init_file = Path(__file__).resolve().parent.parent / "__init__.py"   # torchenv's own, as imported
    try:
        dist = metadata.distribution("torchenv")
    except metadata.PackageNotFoundError:
        return None
    located = Path(str(dist.locate_file("torchenv/__init__.py")))
    return dist if located.resolve() == init_file else None


def own_wheel(dest: Path, pypi: PypiSide | None) -> Path:
    """torchenv's wheel: rebuilt from the installed files, or built from the source tree it runs from."""
    from .repack import RepackError, repack

    dist = running_distribution()
    if dist is not None:
        try:
            return repack(dist, dest)
        except RepackError as exc:
            raise BackendError(_("cannot rebuild torchenv's wheel from its installation: {exc}").format(exc=exc),
                               hint=_("reinstall torchenv (./bootstrap), or leave it out with `torchenv bundle "
                                      "--no-tool`")) from exc
    root = source_root()
    if root is None:
        raise BackendError(_("torchenv runs from neither an installed wheel nor its source tree"),
                           hint=_("install it with ./bootstrap, or leave it out with `torchenv bundle --no-tool`"))
    _pip(["wheel", "--no-deps", "--quiet", "-w", str(dest), str(root)], "building torchenv's wheel", pypi)
    own = sorted(dest.glob("torchenv-*.whl"))
    if not own:
        raise BackendError(_("no torchenv wheel appeared in {dest}").format(dest=dest),
                           hint=_("run `pip wheel --no-deps .` by hand to see why"))
    return own[-1]


def build_tool_wheels(dest: Path, targets: Iterable[tuple[str, str]], *, pypi: PypiSide | None = None,
                      ui: Any = None) -> list[Path]:
    """Fill ``dest`` with torchenv's wheel + dependencies for each ``(platform, python)``."""
    from ..version import __version__

    dest.mkdir(parents=True, exist_ok=True)
    if ui is not None:
        ui.step(f"adding torchenv {__version__} and its dependencies (for ./bootstrap --offline)")
    requires = wheel_requires(own_wheel(dest, pypi))
    installed = InstalledWheels(dest)
    for platform, python in sorted(set(targets) | {(p, "3.10") for p, _python in targets}):
        missing = not_installed(requires, platform, python, installed)
        if missing:
            _pip(["download", "--quiet", "-d", str(dest), *_platform_args(platform, python), *missing],
                 f"downloading torchenv's dependencies for {platform}, Python {python}", pypi)
    return sorted(p for p in dest.iterdir() if p.is_file())
