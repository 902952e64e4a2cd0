"""The uv engine: ``uv venv``, ``uv pip compile --format pylock.toml``, ``uv pip sync``.

Why uv is the default: with a warm cache and hardlinks it installs the 800 MB CPU torch
stack in ~0.3 s, against ~20 s for pip (baseline-bench.md §2), and five projects share
one copy on disk (§3).

Choices made here, each for a reason:

* ``--no-config`` and a scrubbed environment: the plan already decided every source
  (supply-chain rule); a stray ``uv.toml`` or ``UV_INDEX_URL`` must not change them.
* ``--no-python-downloads``: a missing interpreter is reported with the ways to get one,
  never silently downloaded.
* ``UV_LINK_MODE=hardlink`` and torchenv's own uv cache (unless the user set
  ``UV_CACHE_DIR``/``UV_LINK_MODE``): envs share file data with the cache.
* No ``--compile-bytecode`` by default: it costs ~6 s per install (§2d); ``up`` instead
  lets the verify step write ``.pyc`` for what ``import torch`` touches (see flows.up).
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import BackendError, EnvError
from ..i18n import _
from .base import Beside, WheelEngine, build_requirement_links

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from ..lockfile.model import LockedWheel
    from ..sources.model import PypiSide

# torchenv platform key -> uv --python-platform. manylinux_2_28 is what torch >= 2.7 ships for.
UV_PLATFORMS = {
    "linux-x86_64": "x86_64-manylinux_2_28",
    "linux-aarch64": "aarch64-manylinux_2_28",
    "windows-x86_64": "x86_64-pc-windows-msvc",
    "windows-arm64": "aarch64-pc-windows-msvc",
    "windows-aarch64": "aarch64-pc-windows-msvc",
    "macos-arm64": "aarch64-apple-darwin",
    "macos-aarch64": "aarch64-apple-darwin",
    "macos-x86_64": "x86_64-apple-darwin",
}

# Variables that would make uv use other sources or interpreters than the plan's.
_SCRUB = ("UV_INDEX", "UV_INDEX_URL", "UV_DEFAULT_INDEX", "UV_EXTRA_INDEX_URL", "UV_FIND_LINKS",
          "UV_NO_INDEX", "UV_CONSTRAINT", "UV_OVERRIDE", "UV_BUILD_CONSTRAINT", "UV_TORCH_BACKEND",
          "UV_INDEX_STRATEGY", "UV_PRERELEASE", "UV_RESOLUTION", "UV_EXCLUDE_NEWER", "UV_PYTHON",
          "UV_SYSTEM_PYTHON", "UV_CONFIG_FILE", "UV_REQUIRE_HASHES", "UV_NO_BINARY", "UV_ONLY_BINARY",
          "VIRTUAL_ENV", "CONDA_PREFIX")


def uv_bin() -> str:
    """The uv binary torchenv depends on (the ``uv`` Python package), else ``uv`` on PATH.

    In a venv (how torchenv is installed: ``./bootstrap``, pipx, ``pip install`` in an env) that
    package puts the binary in the venv's own scripts folder, the first place ``find_uv_bin``
    looks; looked up there directly, ``sysconfig`` (~3 ms of imports on every ``up``) is not needed.
    """
    if sys.prefix != sys.base_prefix:
        own = os.path.join(sys.prefix, *(("Scripts", "uv.exe") if os.name == "nt" else ("bin", "uv")))
        if os.path.isfile(own):
            return own
    try:
        from uv import find_uv_bin

        return find_uv_bin()
    except (ImportError, FileNotFoundError):
        import shutil

        found = shutil.which("uv")
        if not found:
            raise BackendError(_("uv is not installed"), hint=_("install torchenv with its dependencies "
                               "(`pip install torchenv`), or use `--installer pip`")) from None
        return found


def uv_environ() -> dict[str, str]:
    from .. import paths

    env = {k: v for k, v in os.environ.items() if k not in _SCRUB}
    env.setdefault("UV_CACHE_DIR", str(paths.uv_cache()))
    env.setdefault("UV_LINK_MODE", "hardlink")
    env["UV_PYTHON_DOWNLOADS"] = "never"
    env["NO_COLOR"] = "1"
    return env


def run_tool(cmd: list[str], *, what: str, env: dict[str, str] | None = None,
             error: type = BackendError, hint: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run an installer; on failure raise ``error`` carrying the tail of its output and the hint for its kind.

    ``hint`` is the caller's guess, used only when ``engines.failures`` does not recognise the output.
    """
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise_failed(proc, what=what, error=error, hint=hint)
    return proc


def run_streamed(cmd: list[str], *, what: str, env: dict[str, str] | None = None,
                 on_line: Callable[[str], None]) -> subprocess.CompletedProcess[str]:
    """``run_tool`` for a build that runs for minutes: each line of its output (stderr merged) is handed to
    ``on_line`` as it comes (the live display shows the compile step), and kept for the failure's log."""
    lines: list[str] = []
    with subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          errors="replace", bufsize=1) as child:
        assert child.stdout is not None
        for line in child.stdout:
            lines.append(line)
            on_line(line)
    proc = subprocess.CompletedProcess(cmd, child.returncode, "".join(lines), "")
    if proc.returncode != 0:
        raise_failed(proc, what=what, error=BackendError, hint=None)
    return proc


def raise_failed(proc: subprocess.CompletedProcess[str], *, what: str, error: type, hint: str | None) -> None:
    """The error for a failed installer run: a build's first errors, else the output's tail and its kind's hint."""
    from .failures import build_failed, built_package, classify

    out = (proc.stderr.strip() or proc.stdout.strip())
    package = built_package(f"{proc.stdout}\n{proc.stderr}")
    if package is not None:   # a build's own log: its first errors say why, not the installer's last line
        raise build_failed(package, f"{proc.stdout}\n{proc.stderr}".strip(), what=what)
    tail = "\n".join(out.splitlines()[-25:])
    failure = classify(out)
    kind = f"; {_(failure.kind)}" if failure else ""   # the kind is an id; shown in the user's language
    raise error(_("{what} failed (exit {code}{kind}):").format(what=what, code=proc.returncode, kind=kind)
                + f"\n{tail}",
                hint=failure.hint if failure else hint)


def file_url(path: Path) -> str:
    return Path(path).resolve().as_uri()


def filename_of(url: str) -> str:
    return urllib.parse.unquote(urllib.parse.urlsplit(url).path.rsplit("/", 1)[-1])


def index_for(url: str, pypi: PypiSide) -> str:
    """Which PyPI-side source a file URL came from (the lock's ``index`` field).

    An index at ``<root>/simple`` usually serves files under ``<root>/`` (local trees,
    devpi, mirrors) or from another host (PyPI: files.pythonhosted.org), so a file matches
    the index whose root is a prefix of its URL, else the index on the same host.
    """
    from ..sources.model import OFFICIAL_PYPI

    indexes = (*pypi.extra_index_urls, pypi.index_url or OFFICIAL_PYPI)
    links = tuple(link if "://" in link else Path(link).resolve().as_uri() for link in pypi.find_links)
    for cand, raw in [*zip(indexes, indexes), *zip(links, pypi.find_links)]:
        root = cand.rstrip("/")
        root = root[: -len("/simple")] if root.endswith("/simple") else root
        if url.startswith(root + "/"):
            return raw
    host = urllib.parse.urlsplit(url).netloc
    if host == "files.pythonhosted.org" and OFFICIAL_PYPI in indexes:
        return OFFICIAL_PYPI
    for cand in indexes:
        if host and urllib.parse.urlsplit(cand).netloc == host:
            return cand
    return pypi.index_url or OFFICIAL_PYPI


# tool -> flag -> (variable, separator): where a source list goes when it carries a login
_SOURCE_VARS = {
    "uv": {"--index-url": ("UV_INDEX_URL", " "), "--extra-index-url": ("UV_EXTRA_INDEX_URL", " "),
           "--find-links": ("UV_FIND_LINKS", ",")},
    "pip": {"--index-url": ("PIP_INDEX_URL", " "), "--extra-index-url": ("PIP_EXTRA_INDEX_URL", " "),
            "--find-links": ("PIP_FIND_LINKS", " ")},
}


@dataclass(frozen=True)
class SourceFlags:
    """An installer's source options: plain flags, and the lists that carry a login as environment variables.

    Why two channels: a command line is readable by every user of the machine (``ps``,
    ``/proc/PID/cmdline``), a process's environment only by its owner. Logins known for a
    source (``sources.credentials``) go back into its URL, the form both uv and pip read, but
    never onto the command line; lists without a login stay flags, as the user would type them.
    """

    args: tuple[str, ...]
    env: dict[str, str]


def source_flags(pypi: PypiSide, find_links: list[str], *, tool: str = "uv") -> SourceFlags:
    """The sources of ``pypi`` (plus ``find_links``) for ``tool`` (``uv`` or ``pip``)."""
    from ..redaction import strip_secrets
    from ..sources.credentials import with_credentials

    lists = {"--index-url": [pypi.index_url] if pypi.index_url else [],
             "--extra-index-url": list(pypi.extra_index_urls),
             "--find-links": [*pypi.find_links, *find_links]}
    args: list[str] = []
    env: dict[str, str] = {}
    for flag, values in lists.items():
        logged = [with_credentials(v) for v in values]
        var, sep = _SOURCE_VARS[tool][flag]
        secret = any(strip_secrets(v) != v for v in logged)
        if secret and not any(sep in v for v in logged):
            env[var] = sep.join(logged)
        else:   # a folder name holding the separator cannot travel in the variable: a flag, as before
            args += [part for v in logged for part in (flag, v)]
    for constraint in pypi.constraints:
        args += ["--constraint", constraint]
    return SourceFlags(tuple(args), env)


def requirements_lines(files: list[Path], hashes: dict[str, str] | None, listed: dict[str, str] | None = None) -> str:
    """``name @ file:///...whl --hash=sha256:...`` lines for an exact, resolution-free install.

    A file in ``listed`` (``install_files``) is named ``name==version`` instead: the only file of its
    project in a find-links folder the command is given, so it is that very file, and the hash is checked.
    """
    from ..sources.index import project_of

    lines = []
    for f in files:
        name = project_of(f.name) or f.name
        line = f"{name}=={f.name.split('-')[1]}" if listed and f.name in listed else f"{name} @ {file_url(f)}"
        if hashes and f.name in hashes:
            line += f" --hash=sha256:{hashes[f.name]}"
        lines.append(line)
    return "\n".join(lines) + "\n"


def uv_install_lines(files: list[Path], hashes: dict[str, str] | None, listed: dict[str, str]) -> str:
    """The lines the uv engine installs: hashes only on the ``listed`` files.

    Why: a listed file is asked for by name from its folder, and uv checks its hash against the one its
    resolve recorded. A file named by its path gets no hash: torchenv checked its sha256 against the lock
    (``materialise``, then ``check_again`` right before), and uv unpacks a file it must hash as one stream
    on one core, where it unpacks an unhashed local file on every core (torch 2.13.0+cpu, 190 MB:
    9.5-10.3 s hashed, 6.1-6.3 s not, three runs each on a 2-core machine).
    """
    return requirements_lines(files, {n: h for n, h in (hashes or {}).items() if n in listed}, listed)


class UvEngine(WheelEngine):
    name = "uv"

    def __init__(self, *, ui: Any = None) -> None:
        self.ui = ui
        self._warming: list[tuple[subprocess.Popen[bytes], str, bool]] = []   # (process, scratch, into an env)

    def warm_cache(self, files: list[Path], *, python_version: str, platform: str, beside: Beside = "resolve") -> None:
        """Unpack local wheels into uv's cache in the background.

        Why: the resolve reads a metadata-only stub of the torch file, so the unpacking of the
        real GB-sized wheel would wait for the install; started here, it runs while torchenv
        resolves and fetches, and ``install_files`` (which waits for it) only links the files.
        How depends on what it runs ``beside``:
        - ``"resolve"`` (the project's requirements, a resolve that reads every wheel it pins): one stream
          on one core, ``uv pip compile --generate-hashes`` of the files alone, leaving the other core to
          the resolve (on every core, the 76-package project's cold ``up`` took ~1 s longer: 15.4-17.8 s
          against 11.6-16.4 s, three runs each);
        - ``"downloads"``: on every core, uv's install of the files into a scratch folder (unhashed, as
          ``install_files`` names them, so both use one cache entry), since downloads leave the cores idle.
        """
        from ..sources.index import project_of

        if platform not in UV_PLATFORMS or not files:
            return
        tmp = tempfile.mkdtemp(prefix="torchenv-warm-")
        req = Path(tmp) / "warm.in"
        req.write_text("".join(f"{project_of(f.name) or f.name} @ {file_url(f)}\n" for f in files))
        target = ["--python-version", python_version, "--python-platform", UV_PLATFORMS[platform]]
        cmd = [uv_bin(), "pip", "compile", "--no-config", "--quiet", "--no-deps", "--no-index", "--generate-hashes",
               "--no-header", *target, str(req), "-o", str(Path(tmp) / "warm.txt")] if beside == "resolve" else \
            [uv_bin(), "pip", "install", "--no-config", "--quiet", "--no-deps", "--no-index", *target,
             "--target", str(Path(tmp) / "unpacked"), "-r", str(req)]
        self._start(cmd, tmp)

    def install_early(self, *, env_python: Path, files: list[Path], hashes: dict[str, str]) -> bool:
        """``uv pip install --no-deps`` of the files into the new env, in the background, on every core.

        Why into the env itself, not a scratch folder (``warm_cache``): uv links every file it
        installs, and a scratch install's links (~15,000 for torch) are made, removed and made
        again by the install; here the final sync finds torch installed from the very path it
        names and keeps it (the CPU stack's cold ``up``: the sync after a scratch unpack took
        1.2-3.5 s). Each file's sha256 is checked first, as ``install_files`` checks it; pip's seed
        wheel goes along, as the install would add it.
        """
        files, seeded = with_pip_seed(env_python, files, hashes)
        hashes = seeded or hashes
        check_again(files, hashes)
        tmp = tempfile.mkdtemp(prefix="torchenv-early-")
        req = Path(tmp) / "early.txt"
        req.write_text(uv_install_lines(files, hashes, {}))   # the lines the sync names them by: one cache entry
        cmd = [uv_bin(), "pip", "install", "--no-config", "--quiet", "--no-deps", "--no-index",
               "--python", str(env_python), "-r", str(req)]
        self._start(cmd, tmp, into_env=True)
        return True

    def _start(self, cmd: list[str], tmp: str, *, into_env: bool = False) -> None:
        """Run ``cmd`` in the background (``_settle`` waits for it, then removes ``tmp``)."""
        if not self._warming:
            import atexit

            atexit.register(self.stop_warming)   # `torchenv lock` installs nothing: no unpacking outlives it
        proc = subprocess.Popen(cmd, env=uv_environ(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self._warming.append((proc, tmp, into_env))

    def stop_warming(self) -> None:
        self._settle(kill=True)

    def _settle(self, *, kill: bool = False) -> bool:
        """Wait for (or end) the background work; ``True`` when an early install into the env failed.

        Why that matters: an unpacking that failed costs the install nothing but time, but an
        install into the env that stopped half-way may have left a package's metadata without all
        its files, which the install after it would take as installed (it reinstalls then).
        """
        from ..safety import remove_scratch

        unsure = False
        for proc, tmp, into_env in self._warming:
            if kill:
                proc.kill()
            unsure |= proc.wait() != 0 and into_env
            remove_scratch(Path(tmp), inside=Path(tempfile.gettempdir()))
        self._warming = []
        return unsure

    def create_venv(self, *, python: str, path: Path) -> None:
        # --allow-existing: the folder already holds torchenv's owner marker, written before the env
        cmd = [uv_bin(), "venv", "--no-config", "--quiet", "--no-python-downloads", "--allow-existing",
               "--python", python, str(path)]
        run_tool(cmd, what=_("creating {path} with Python {python}").format(path=path, python=python),
                 env=uv_environ(), error=EnvError,
                 hint=missing_python_hint(python))

    def resolve(self, *, requirements: list[str], python_version: str, platform: str,
                pypi: PypiSide, find_links: list[str]) -> list[LockedWheel]:
        if platform not in UV_PLATFORMS:
            raise BackendError(_("{tool} cannot lock for platform {platform}").format(tool="uv", platform=platform),
                               hint=_("known platforms: {platforms}").format(platforms=", ".join(sorted(UV_PLATFORMS))))
        with tempfile.TemporaryDirectory(prefix="torchenv-resolve-") as tmp:
            req = Path(tmp) / "requirements.in"
            req.write_text("\n".join(requirements) + "\n")
            out = Path(tmp) / "pylock.toml"
            sources = source_flags(pypi, find_links)
            cmd = [uv_bin(), "pip", "compile", "--no-config", "--quiet", "--format", "pylock.toml",
                   "--generate-hashes", "--no-header", "--python-version", python_version,
                   "--python-platform", UV_PLATFORMS[platform], "--index-strategy", pypi.index_strategy,
                   *sources.args, str(req), "-o", str(out)]
            run_tool(cmd, what=_("resolving the environment for {platform}, Python {python} ({tool})").format(
                         platform=platform, python=python_version, tool="uv"), env={**uv_environ(), **sources.env},
                     hint=_("the lines above say what {tool} could not do; `torchenv plan` shows the sources "
                            "used").format(tool="uv"))
            return parse_pylock(out, pypi)

    def install_files(self, *, env_python: Path, files: list[Path],
                      hashes: dict[str, str] | None = None, reinstall: bool = False, keep_extra: bool = False,
                      listed: dict[str, str] | None = None) -> None:
        """Why ``listed`` matters to uv: ``uv pip compile`` unpacked every file it resolved from a find-links
        folder into uv's cache under that folder; the same file named by its path is another cache entry,
        and was unpacked a second time (~1 s of a cold ``up`` of a 74-package project)."""
        files, hashes = with_pip_seed(env_python, files, hashes)
        check_again(files, hashes)
        reinstall = self._settle() or reinstall
        with tempfile.TemporaryDirectory(prefix="torchenv-sync-") as tmp:
            links = build_requirement_links(files, Path(tmp) / "built-with")
            listed = (listed or {}) if hashes and not links else {}   # by name only where uv checks the hash
            req = Path(tmp) / "requirements.txt"
            req.write_text(uv_install_lines(files, hashes, listed))
            verb = ["install", "--no-deps"] if keep_extra else ["sync"]   # sync removes what the lock lacks
            folders = [part for link in dict.fromkeys(listed.values()) for part in ("--find-links", link)]
            cmd = [uv_bin(), "pip", *verb, "--no-config", "--quiet", "--no-index", "--python", str(env_python),
                   *links, *folders]
            if reinstall:
                cmd.append("--reinstall")
            run_tool([*cmd, *(["-r"] if keep_extra else []), str(req)], what=_("installing {count} files into {path}").format(
                         count=len(files), path=env_python.parent.parent) + " (uv)",
                     env=uv_environ())


    def forget_cached(self, names: list[str]) -> None:
        """``uv cache clean NAMES``: the next install unpacks these wheels afresh instead of hardlinking copies
        that were edited in place through another link."""
        run_tool([uv_bin(), "cache", "clean", "--no-config", "--quiet", *names],
                 what=f"removing {', '.join(names)} from uv's cache", env=uv_environ())


def check_again(files: list[Path], hashes: dict[str, str] | None) -> None:
    """Each file's sha256 against the lock's, once more, right before uv reads it (``uv_install_lines`` hands
    uv no hash for a file named by its path).

    Why it costs nothing: ``sources.fetch`` remembers the digest of each file it checked by its path, size,
    mtime and inode, so an unchanged file is one ``stat``; a file swapped since ``materialise`` checked it is
    another inode (or size, or mtime) and is hashed again, and refused.
    """
    from ..errors import HashMismatch
    from ..sources.fetch import verified_sha256

    for f in files:
        want = (hashes or {}).get(f.name)
        if want and verified_sha256(f) != want.lower().removeprefix("sha256:"):
            raise HashMismatch(_("{file}: its sha256 no longer matches the lock ({path} changed after it was "
                                 "checked)").format(file=f.name, path=f),
                               hint=_("run `torchenv up` again; if the file keeps changing, something else writes "
                                      "to {folder}").format(folder=f.parent))


def listed_alone(files: list[Path], find_links: list[str], skip: frozenset[str]) -> dict[str, str]:
    """``{file name: find-links folder}`` for the ``files`` lying in one of the local ``find_links`` folders
    that, across all of them, list no other file of the file's project (``skip``: projects left out).

    Why alone: an install that asks for ``name==version`` from those folders must find this very file
    and no other build of it (another platform tag, an sdist); its sha256 is still required.
    """
    from ..sources.index import project_of

    seen: dict[str, int] = {}
    where: dict[str, str] = {}
    for link, folder, names in _listed_folders(find_links):
        for name in names:
            project = project_of(name) or ""
            seen[project] = seen.get(project, 0) + 1
        real, here = os.path.realpath(folder), set(names)
        for f in files:
            if f.name in here and os.path.realpath(f.parent) == real:
                where.setdefault(f.name, link)
    return {name: link for name, link in where.items() if name.endswith(".whl") and (p := project_of(name))
            and p not in skip and seen.get(p) == 1}


def _listed_folders(find_links: list[str]) -> Iterator[tuple[str, Path, list[str]]]:
    """``(link, folder, its file names)`` of each local, readable find-links folder."""
    from ..sources.index import local_path

    for link in find_links:
        folder = local_path(link) if "://" not in link or link.startswith("file:") else None
        if folder is None:
            continue
        try:
            yield link, folder, os.listdir(folder)
        except OSError:
            continue


def with_pip_seed(env_python: Path, files: list[Path],
                  hashes: dict[str, str] | None) -> tuple[list[Path], dict[str, str] | None]:
    """``files`` plus pip's wheel (``engines.seed``) unless the lock already names pip."""
    from ..sources.index import project_of
    from .seed import pip_wheel

    if any(project_of(f.name) == "pip" for f in files):
        return files, hashes
    seed = pip_wheel(_python_of(env_python))
    if seed is None:
        return files, hashes
    path, sha = seed
    return [*files, path], ({**hashes, path.name: sha} if hashes else hashes)


def _python_of(env_python: Path) -> str:
    """The env's Python X.Y, from its ``pyvenv.cfg`` (no interpreter started)."""
    import re

    try:
        text = (env_python.parent.parent / "pyvenv.cfg").read_text(encoding="utf-8")
    except OSError:
        return "3"
    m = re.search(r"^version(?:_info)?\s*=\s*(\d+\.\d+)", text, re.M)
    return m.group(1) if m else "3"


def missing_python_hint(python: str) -> str:
    return _("Python {python} is not installed on this machine. Get it with `uv python install {python}` "
             "(or pyenv: `pyenv install {python}`), or choose another version with `--python X.Y` / "
             '[torch] python in torchenv.toml, or use backend = "conda" (conda brings its own Python)').format(
                 python=python)


def parse_pylock(path: Path, pypi: PypiSide) -> list[LockedWheel]:
    """Turn uv's pylock.toml into LockedWheels (name, version, file, URL, sha256, index)."""
    from ..fileio import tomllib_module
    from ..lockfile.model import LockedWheel
    from ..redaction import strip_secrets

    data = tomllib_module().loads(path.read_text())
    out = []
    for pkg in data.get("packages", []):
        entries = pkg.get("wheels") or [e for e in (pkg.get("archive"), pkg.get("sdist")) if e]
        if not entries:
            raise BackendError(_("{name}: uv resolved it to a source tree or VCS checkout, which cannot be locked "
                                 "by hash").format(name=pkg.get("name")),
                               hint=_("require a released version from an index instead of a path/git URL"))
        entry = entries[0]
        url = strip_secrets(entry.get("url") or file_url(path.parent / entry["path"]))
        sha = (entry.get("hashes") or {}).get("sha256")
        if not sha:
            raise BackendError(_("{name}: no sha256 for {url}").format(name=pkg["name"], url=url),
                               hint=_("the index does not publish hashes; use another PyPI mirror"))
        out.append(LockedWheel(name=pkg["name"], version=str(pkg["version"]),
                               filename=entry.get("name") or filename_of(url), url=url, sha256=sha,
                               index=index_for(url, pypi), source="pypi", size=entry.get("size")))
    return out
