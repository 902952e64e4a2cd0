"""Where things sit inside a bundle, and one reader for a bundle given as a tar or a folder.

Why a reader over both: users unpack bundles (``tar -xf``) as often as they pass the tar;
``bundle verify`` and ``up --offline`` must treat both the same. Tar members are streamed,
never extracted with ``extractall`` (no path traversal, no second copy of multi-GB wheels).

Layout (everything under one top folder named after the bundle file, so unpacking does
not spill files into the current directory; the top folder is itself a project folder)::

    <name>/manifest.json          sha256 + size of every other file
    <name>/torchenv.toml, torchenv.lock, requirement files the intent reads
    <name>/files/<wheel>          every wheel of the chosen targets
    <name>/simple/<project>/index.html   PEP 503 pages (#sha256= fragments) over files/
    <name>/conda/<subdir>/<pkg>   conda packages, with <subdir>/repodata.json (+ noarch/)
    <name>/torchenv-wheels/       torchenv and its dependencies (for ./bootstrap --offline)
    <name>/built/<key>/<wheel>    wheels built against torch from the lock's sdists (with inputs.json):
                                  an offline ``up`` installs them without compiling
"""
from __future__ import annotations

import json
import tarfile
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, Any

from ..errors import SourceError

MANIFEST = "manifest.json"
FILES = "files"
SIMPLE = "simple"
CONDA = "conda"
TOOL = "torchenv-wheels"
BUILT = "built"
FORMAT = 1


class BundleError(SourceError):
    """A bundle is unreadable, corrupted, incomplete or does not match the lock."""


def is_tar(path: Path) -> bool:
    return path.is_file() and path.name.endswith((".tar", ".tar.gz", ".tgz"))


def stem(path: Path) -> str:
    """``site-a.tar.gz`` -> ``site-a``: the bundle's top folder."""
    name = path.name
    for suffix in (".tar.gz", ".tgz", ".tar"):
        if name.endswith(suffix):
            return name[: -len(suffix)] or "bundle"
    return name


@dataclass(frozen=True)
class Member:
    path: str          # relative to the bundle root, POSIX ("files/torch-...whl")
    size: int


class Bundle:
    """A bundle on disk: a tar (``.tar``/``.tar.gz``) or a folder (unpacked bundle)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        if not self.path.exists():
            raise BundleError(f"{self.path}: no such bundle", hint="make one with `torchenv bundle -o FILE.tar`")
        self.is_tar = self.path.is_file()
        if self.is_tar and not tarfile.is_tarfile(self.path):
            raise BundleError(f"{self.path} is not a tar archive",
                              hint="pass the file `torchenv bundle` wrote, or the folder it was unpacked into")
        self._prefix: str | None = None

    # -- where the bundle root is ----------------------------------------------------------------
    def _tar(self) -> tarfile.TarFile:
        try:
            return tarfile.open(self.path, "r:*")
        except (tarfile.TarError, OSError) as exc:
            raise BundleError(f"{self.path}: cannot read the archive ({exc})",
                              hint="the file may be truncated; copy it again") from None

    @property
    def prefix(self) -> str:
        """The member-name prefix of the bundle root (``"name/"``, or ``""``)."""
        if self._prefix is None:
            self._prefix = self._find_prefix()
        return self._prefix

    def _find_prefix(self) -> str:
        if not self.is_tar:
            if (self.path / MANIFEST).is_file():
                return ""
            subs = [p for p in self.path.iterdir() if (p / MANIFEST).is_file()] if self.path.is_dir() else []
            return f"{subs[0].name}/" if len(subs) == 1 else ""
        with self._tar() as tf:
            for info in tf:
                parts = PurePosixPath(info.name).parts
                if parts and parts[-1] == MANIFEST and len(parts) <= 2:
                    return "" if len(parts) == 1 else f"{parts[0]}/"
        return ""

    @property
    def root(self) -> Path:
        """For a folder bundle: the folder that holds manifest.json."""
        return self.path / self.prefix if self.prefix else self.path

    def has_manifest(self) -> bool:
        try:
            self.read_bytes(MANIFEST)
            return True
        except BundleError:
            return False

    # -- reading ---------------------------------------------------------------------------------
    def read_bytes(self, rel: str) -> bytes:
        got = self.read_many([rel])
        if rel not in got:
            raise BundleError(f"{self.path}: no {rel} in the bundle",
                              hint="the bundle is incomplete; make it again with `torchenv bundle`")
        return got[rel]

    def read_many(self, rels: list[str]) -> dict[str, bytes]:
        """Small files by relative path, in one pass that stops once all were seen (manifest is first)."""
        want = set(rels)
        out: dict[str, bytes] = {}
        if not self.is_tar:
            for rel in want:
                try:
                    out[rel] = (self.root / rel).read_bytes()
                except OSError:
                    pass
            return out
        with self.walk() as members:
            for member, opener in members:
                if member.path in want and opener.regular:
                    with opener.open() as f:
                        out[member.path] = f.read()
                    if len(out) == len(want):
                        break
        return out

    def manifest(self) -> dict[str, Any]:
        raw = self.read_bytes(MANIFEST)
        try:
            data: dict[str, Any] = json.loads(raw)   # checked just below
            if not isinstance(data.get("files"), dict):
                raise ValueError("no files table")
        except ValueError as exc:
            raise BundleError(f"{self.path}: {MANIFEST} is not a torchenv bundle manifest ({exc})",
                              hint="make the bundle again with `torchenv bundle`") from None
        if int(data.get("format", 0)) > FORMAT:
            raise BundleError(f"{self.path} was made by a newer torchenv ({data.get('torchenv')})",
                              hint="upgrade torchenv on this machine (./bootstrap --offline BUNDLE.tar)")
        return data

    @contextmanager
    def _walk(self) -> Iterator[Iterator[tuple[Member, _Opener]]]:
        if not self.is_tar:
            root = self.root

            def files() -> Iterator[tuple[Member, _Opener]]:
                for p in sorted(root.rglob("*")):
                    if p.is_file() or p.is_symlink():
                        rel = p.relative_to(root).as_posix()
                        yield Member(rel, p.lstat().st_size), _Opener(path=p)

            yield files()
            return
        with self._tar() as tf:
            prefix = self.prefix

            def members() -> Iterator[tuple[Member, _Opener]]:
                for info in tf:
                    if info.isdir():
                        continue
                    name = info.name[len(prefix):] if prefix and info.name.startswith(prefix) else info.name
                    if prefix and not info.name.startswith(prefix):
                        name = "../" + info.name          # outside the bundle root: reported as extra
                    yield Member(name, info.size if info.isfile() else -1), _Opener(tar=tf, info=info)

            yield members()

    def walk(self) -> AbstractContextManager[Iterator[tuple[Member, _Opener]]]:
        """``with bundle.walk() as it: for member, opener in it: ...`` (one streaming pass)."""
        return self._walk()


class _Opener:
    """Opens one member's bytes lazily, so members nobody needs are skipped without reading."""

    def __init__(self, *, path: Path | None = None, tar: tarfile.TarFile | None = None,
                 info: tarfile.TarInfo | None = None) -> None:
        self.path, self.tar, self.info = path, tar, info

    @property
    def regular(self) -> bool:
        if self.path is not None:
            return self.path.is_file() and not self.path.is_symlink()
        return bool(self.info and self.info.isfile())

    def open(self) -> IO[bytes]:
        if self.path is not None:
            return open(self.path, "rb")
        f = self.tar.extractfile(self.info) if self.tar and self.info else None
        if f is None:
            raise BundleError(f"{self.info.name if self.info else '?'} is not a regular file")
        return f
