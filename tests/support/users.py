"""Run the real CLI as a user for whom a file is off limits, also when the tests run as root.

Why two modes: root ignores permission bits, so as root the CLI runs as ``nobody`` (through
``setpriv``) against files owned by root with the "other" bits removed; as any other user it
runs as that user against files whose owner bits are removed. Either way the file really is
unreadable (or unwritable, or not executable) for the process that meets it.
"""
from __future__ import annotations

import atexit
import functools
import importlib.metadata
import os
import pwd
import shutil
import site
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
OTHER = "nobody"


@dataclass(frozen=True)
class Outsider:
    """How to run ``python -m torchenv`` as someone the denied files are closed to."""

    prefix: tuple[str, ...]         # setpriv ... (empty when running as ourselves)
    python: str
    name: str                       # the user name torchenv should report as "you are ..."

    def run(self, args: list[str], *, cwd: Path, env: dict[str, str], timeout: float = 120):
        paths = [str(readable_runtime())] if self.prefix else [str(SRC), *_dependency_paths()]
        environ = {**env, "PYTHONPATH": os.pathsep.join(paths)}
        return subprocess.run([*self.prefix, "env", *(f"{k}={v}" for k, v in environ.items()),
                               self.python, "-m", "torchenv", *args],
                              cwd=cwd, capture_output=True, text=True, timeout=timeout, env={})

    def deny(self, path: Path, *, as_root: int, as_self: int) -> None:
        """Set the mode that closes ``path`` to the outsider: ``as_root`` when the owner is root and the
        outsider is "other", ``as_self`` when the outsider is the owner (tests not run as root)."""
        path.chmod(as_root if self.prefix else as_self)

    def give(self, path: Path) -> None:
        """Make ``path`` the outsider's own (a home, a cache) so only the denied files stand in its way."""
        if self.prefix:
            info = pwd.getpwnam(self.name)
            os.chown(path, info.pw_uid, info.pw_gid)


@functools.lru_cache(maxsize=1)
def readable_runtime() -> Path:
    """torchenv and the packages it imports, in a folder every user may read (made once per process).

    Why: the checkout, and the dev env inside it, may sit in a private folder (a clone in root's 0700
    home); the other user could then import nothing from there and every test run as them failed before
    torchenv started. Files are hard-linked where they are readable by all already, else copied readable.
    """
    root = shared_dir("torchenv-outsider-")
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    for source in sorted(p for p in (SRC / "torchenv").rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        _place(source, root / source.relative_to(SRC))
    for dist in _runtime_distributions():
        for name in dist.files or ():
            if ".." not in name.parts and "__pycache__" not in name.parts:
                _place(Path(str(dist.locate_file(name))), root / name)
    for folder in [root, *(p for p in root.rglob("*") if p.is_dir())]:
        folder.chmod(0o755)
    return root


def _place(source: Path, dest: Path) -> None:
    if not source.is_file():
        return
    dest.parent.mkdir(parents=True, exist_ok=True)
    if source.stat().st_mode & 0o004:
        try:
            os.link(source, dest)
            return
        except OSError:
            pass                        # another filesystem: copy
    shutil.copyfile(source, dest)
    dest.chmod(0o755 if source.stat().st_mode & 0o100 else 0o644)


def _runtime_distributions() -> list[importlib.metadata.Distribution]:
    """The installed distributions torchenv needs at run time (its requirements, theirs, ...; no extras)."""
    from packaging.requirements import Requirement

    found: dict[str, importlib.metadata.Distribution] = {}
    todo = [Requirement(r) for r in importlib.metadata.requires("torchenv") or ()]
    while todo:
        req = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        key = req.name.lower().replace("_", "-")
        if key in found:
            continue
        try:
            found[key] = importlib.metadata.distribution(req.name)
        except importlib.metadata.PackageNotFoundError:
            continue                    # an optional platform's package: torchenv runs without it
        todo += [Requirement(r) for r in found[key].requires or ()]
    return list(found.values())


def _dependency_paths() -> list[str]:
    """Where rich, tomlkit, platformdirs... are installed for the interpreter running the tests."""
    paths = [sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"], *site.getsitepackages()]
    return list(dict.fromkeys(p for p in paths if os.path.isdir(p)))


@functools.lru_cache(maxsize=1)
def outsider() -> Outsider | None:
    """None when running as root without ``setpriv``, a ``nobody`` user or a Python it may run."""
    if os.geteuid() != 0:
        return Outsider(prefix=(), python=sys.executable, name=pwd.getpwuid(os.geteuid()).pw_name)
    setpriv = shutil.which("setpriv")
    try:
        pwd.getpwnam(OTHER)
    except KeyError:
        return None
    if not setpriv:
        return None
    prefix = (setpriv, "--reuid", OTHER, "--regid", str(pwd.getpwnam(OTHER).pw_gid), "--clear-groups")
    version = f"{sys.version_info[0]}.{sys.version_info[1]}"
    for python in _candidate_pythons(version):
        probe = subprocess.run([*prefix, "env", python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                               capture_output=True, text=True, cwd=tempfile.gettempdir())
        if probe.returncode == 0 and probe.stdout.strip() == version:
            return Outsider(prefix=prefix, python=python, name=OTHER)
    return None


def _candidate_pythons(version: str) -> list[str]:
    """Our interpreter first, then every ``pythonX.Y`` on PATH (the first may sit in a private home)."""
    on_path = [shutil.which(f"python{version}", path=folder) or ""
               for folder in os.environ.get("PATH", "").split(os.pathsep) if folder]
    found = [sys.executable, os.path.realpath(sys.executable), getattr(sys, "_base_executable", ""), *on_path]
    return list(dict.fromkeys(p for p in found if p))


def shared_dir(prefix: str) -> Path:
    """A temp folder every user can enter (pytest's own tmp folders are private to the test user)."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    path.chmod(0o755)
    return path
