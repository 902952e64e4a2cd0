"""An engine is one installer program (uv, pip+virtualenv, rattler, a conda binary).

Why: backends describe *what* env to build; engines know *how* one tool is driven.
uv is the default for wheels; pip is the fallback where uv is not allowed.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from ..lockfile.model import LockedWheel
    from ..sources.model import PypiSide

Beside = Literal["resolve", "downloads"]   # what an early unpack runs beside (``WheelEngine.warm_cache``)


class WheelEngine(ABC):
    name: str = "base"
    keeps: frozenset[str] = frozenset()   # packages the engine leaves in every env it fills (pip: itself)

    def forget_cached(self, names: list[str]) -> None:  # noqa: B027 -- an optional hook, not abstract
        """Drop ``names`` from an installer cache that hardlinks into envs; nothing for engines that copy."""

    def warm_cache(self, files: list[Path], *, python_version: str, platform: str,  # noqa: B027
                   beside: Beside = "resolve") -> None:
        """Start readying local wheels for a later install while torchenv locks; nothing for most engines.

        ``beside``: what the readying runs beside, ``"resolve"`` (busy cores) or ``"downloads"`` (idle ones)."""

    def install_early(self, *, env_python: Path, files: list[Path], hashes: dict[str, str]) -> bool:
        """Start installing these local files into a new env in the background, while others download;
        ``False`` where the engine cannot (nothing started: ``warm_cache`` is the way then).

        ``install_files`` waits for it, then installs the rest; ``stop_warming`` ends it."""
        return False

    def stop_warming(self) -> None:  # noqa: B027 -- an optional hook, not abstract
        """Stop what ``warm_cache`` or ``install_early`` started (the lock or a download failed: no install
        follows)."""

    @abstractmethod
    def create_venv(self, *, python: str, path: Path) -> None:
        """Create a venv at ``path`` with interpreter ``python`` (a path or "3.11")."""

    @abstractmethod
    def resolve(self, *, requirements: list[str], python_version: str, platform: str,
                pypi: PypiSide, find_links: list[str]) -> list[LockedWheel]:
        """Resolve requirements to exact wheels (name, version, file, url, sha256)."""

    @abstractmethod
    def install_files(self, *, env_python: Path, files: list[Path], hashes: dict[str, str] | None = None,
                      reinstall: bool = False, keep_extra: bool = False,
                      listed: dict[str, str] | None = None) -> None:
        """Install these already hash-checked wheel files, no dependency resolution.

        ``listed`` (file name -> the find-links folder, as the plan names it, that lists it and no other
        file of its project): files the engine may ask for by name and version from that folder, as the
        resolve found them (uv then reuses what the resolve unpacked instead of unpacking them again).

        ``hashes`` (file name -> sha256): the engine checks them again right before it installs, so a file
        swapped after torchenv's check is still refused (pip: ``--require-hashes``; uv: torchenv's own
        check by the file's size, mtime and inode, ``engines.uv.check_again``, then uv's own hash check for
        the ``listed`` files only; uv unpacks an unhashed local file on every core).
        ``reinstall``: re-install every file even if the same version is present (``up``
        repairing an interrupted or hand-changed env). ``keep_extra``: packages not among ``files`` (added
        by hand) stay; otherwise they are removed.
        """


SDIST_SUFFIXES = (".tar.gz", ".tgz", ".tar.bz2", ".zip")


def build_requirement_links(files: list[Path], folder: Path) -> list[str]:
    """``--find-links FOLDER`` of the locked wheels when ``files`` include a source distribution, else ``[]``.

    Why: installs run with ``--no-index`` (only the locked, hash-checked files), so the isolated
    build of a source-only dependency (rouge-score 0.1.2 asks for ``setuptools>=40.8.0``) finds
    nothing to build with and fails as "package not found". The locked wheels serve its build
    requirements (torch itself requires setuptools), still without asking any index.
    """
    if not any(f.name.endswith(SDIST_SUFFIXES) for f in files):
        return []
    folder.mkdir(exist_ok=True)
    for f in files:
        link = folder / f.name
        if f.name.endswith(".whl") and not link.exists():
            link.symlink_to(Path(f).resolve())
    return ["--find-links", str(folder)]
