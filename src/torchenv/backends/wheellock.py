"""Pin a plan's wheels: every torch-family file located by torchenv itself, the rest resolved by an engine.

Why locking happens in two steps: torchenv first pins every torch-family file itself
(``sources.locate``: exact version, wheel tags, sha256, from the tier's torch source or a
local wheelhouse), then lets the engine (uv or pip) resolve the rest of the closure from the
PyPI side with those files given as direct references. A torch-family package that appears
only as a dependency (``triton``) is located the same way and the closure is resolved once
more, so no torch-family file ever comes from wherever an installer happened to find it first.
Why a module apart from the venv backend: the conda backend locks its PyPI side with it too.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import BackendError, SourceError
from ..i18n import _

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Sequence

    EarlyInstall = Callable[[list[Path], dict[str, str]], bool]   # ``WheelLocker.fetch``'s ``into_new_env``

    from ..engines.base import Beside, WheelEngine
    from ..lockfile.model import LockedWheel
    from ..resolve.plan import Plan
    from ..sources.locate import Located
    from ..sources.model import Sources
    from ..ui import Ui
    from .wheelmeta import WheelMetadata


def make_engine(name: str, ui: Any = None) -> WheelEngine:
    if name == "pip":
        from ..engines.pip import PipEngine

        return PipEngine(ui=ui)
    if name == "uv":
        from ..engines.uv import UvEngine

        return UvEngine(ui=ui)
    raise BackendError(_("unknown installer {name!r}").format(name=name), hint=_('[env] installer is "uv" or "pip"'))


def plan_sources(plan: Plan) -> Sources:
    """The plan's package sources: a resolved wheel plan always has them, so ``None`` is a resolver bug."""
    if plan.sources is None:
        raise BackendError(_("the plan has no package sources"), hint=_("this is a bug in the resolver"))
    return plan.sources


@dataclass(frozen=True)
class _Pinned:
    wheel: LockedWheel     # the lock entry; sha256/size may be missing until the set resolved
    engine_url: str        # what the engine resolves: a metadata-only stub, or the fetched file


def remote_size(url: str | None) -> int | None:
    """The size of a remote file from a ``HEAD`` request's Content-Length (no body moves); None if not told."""
    from ..sources.http import open_url

    if url is None or "://" not in url or url.startswith("file:"):
        return None
    try:
        with open_url(url, timeout=30.0, method="HEAD") as resp:
            length = resp.headers.get("Content-Length")
    except Exception:          # the size is informative; the download checks the bytes
        return None
    return int(length) if length and length.isdigit() else None


class WheelLocker:
    """Pins a plan's wheels: torch-family files located and fetched by torchenv, the rest resolved by the engine.

    Why a class of its own: the venv backend and the wheel half of a conda env (``torch-source = "wheels"``)
    lock wheels by the same rules (supply chain, mirrors, hashes); each hands in its own plan as it is.
    """

    def __init__(self, *, plan: Plan, engine: WheelEngine, ui: Ui | None) -> None:
        from ..sources.deadhosts import SourceMemory

        self.plan, self.engine, self.ui = plan, engine, ui
        self.memory = SourceMemory.recent(ui)   # hosts that failed in this run (lock and install share it)
        self.found: dict[str, str] = {}  # file name -> where locating listed it (fetched from there first)
        self._scratch_dir: Any = None
        self._pool: Any = None
        self.hashing: dict[str, Any] = {}   # file name -> Future of a local file's sha256 (``_hash_in_background``)
        self.unchecked: dict[str, WheelMetadata] = {}   # file name -> METADATA resolved from, not hash-covered
        self.warmable: list[Path] = []   # local torch-family files the engine may unpack early (``_warm_if_waiting``)

    # -- locking --------------------------------------------------------------------------------
    def _locate(self, name: str, version: str, source: str) -> _Pinned:
        """The torch-family file of ``name==version``, and what the engine resolves in its place.

        Why no download here: the engine needs only the file's METADATA, which a local file, the
        index (PEP 658 ``.metadata``) or a few range reads give (``backends.wheelmeta``); the engine
        resolves a metadata-only stub, so a project whose other requirements cannot resolve fails
        before any GB-sized wheel moved, and the engine never hashes or unpacks the big file.
        Only a server that offers neither gets the file fetched now, once, through
        ``sources.getfile`` (hash-checked, falling back over the plan's torch sources).
        """
        from ..sources.index import local_path
        from ..sources.locate import locate
        from ..sources.wheelfit import target_glibc

        plan = self.plan
        found = locate(plan_sources(plan), name, version, source=source, tier=plan.tier, python=plan.python,
                       platform=plan.platform, ui=self.ui, memory=self.memory, hash_local=False,
                       glibc=target_glibc(plan.machine, plan.platform))
        self.found[found.wheel.filename] = found.found_url
        self._hash_in_background(found)
        local = local_path(found.found_url)
        if local is not None and local.is_file() and not plan.machine.assumed:   # an install here may follow
            self.warmable.append(local)
        stub = self._stub(found)
        if stub is None:
            wheel, path = self._download(found.wheel, source)
            return _Pinned(wheel, path.resolve().as_uri())
        path, size = stub
        wheel = found.wheel if found.wheel.size is not None or size is None else _replace(found.wheel, size=size)
        return _Pinned(wheel, path.as_uri())

    def _download(self, wheel: LockedWheel, source: str) -> tuple[LockedWheel, Path]:
        """The whole file, hash-checked (or hashed, when its source lists no sha256), with the lock entry it gives."""
        from ..sources.getfile import pypi_file, torch_file
        from ..sources.locate import FROM_PYPI

        sources, first = plan_sources(self.plan), self.found.get(wheel.filename)
        if source == FROM_PYPI:
            path, sha = pypi_file(sources, wheel, first=first, memory=self.memory, ui=self.ui)
        else:
            path, sha = torch_file(sources, wheel.filename, wheel.sha256 or None, first=first,
                                   memory=self.memory, ui=self.ui)
        return _replace(wheel, sha256=sha, size=path.stat().st_size), path

    def _stub(self, found: Located) -> tuple[Path, int | None] | None:
        """(metadata-only stub wheel, the real file's size if learned) for a located file; None: download it."""
        from ..sources.index import local_path
        from . import wheelmeta

        filename, sha = found.wheel.filename, found.wheel.sha256
        local = local_path(found.found_url)
        if local is not None:
            meta = wheelmeta.from_local(local)
        else:
            known = wheelmeta.cached(sha, filename) if sha else None
            if known is not None:
                return known
            meta = self._remote_metadata(found)
        if meta is None:
            return None
        keep = sha and local is None and filename not in self.unchecked    # only METADATA a sha256 covered
        folder = wheelmeta.entry_dir(sha) if keep else self._scratch() / (sha or filename)
        return wheelmeta.stub_wheel(filename, meta, folder), meta.size

    def _remote_metadata(self, found: Located) -> WheelMetadata | None:
        """METADATA from the index's ``.metadata`` file, else byte ranges; None (said) when the server offers neither."""
        from ..errors import HashMismatch
        from ..sources.ranged import host_label
        from . import wheelmeta

        url, filename = found.found_url, found.wheel.filename
        say = self.ui.warn if self.ui is not None else (lambda text: None)
        if found.core_metadata:   # checked against the index's own sha256 for it
            try:
                return wheelmeta.from_metadata_file(url, found.core_metadata, filename, timeout=30.0)
            except HashMismatch as exc:
                say(f"{exc.message}: refused; reading the metadata from the wheel itself")
            except SourceError as exc:
                say(f"{exc.message}; reading the metadata from the wheel itself")
        try:
            meta = (wheelmeta.from_metadata_file(url, "", filename, timeout=30.0) if found.core_metadata == ""
                    else wheelmeta.from_ranges(url, filename, timeout=30.0))
        except SourceError as exc:
            say(f"{exc.message}; downloading the whole file to read it")
            return None
        if meta is not None:
            self.unchecked[filename] = meta   # no hash covers it: compared with the verified file once fetched
        if meta is None and self.ui is not None:
            self.ui.info(f"{host_label(url)} offers neither {filename}.metadata nor byte ranges: downloading the "
                         "whole file to read its dependencies", markup=False)
        return meta

    def _hash_in_background(self, found: Located) -> None:
        """Start hashing a local file its listing gives no sha256 for; ``_complete`` takes the result.

        Why in the background: the engine resolves from the stub meanwhile (a subprocess), so the
        hash of a GB-sized local wheel costs no time of its own on the cold path.
        """
        from concurrent.futures import ThreadPoolExecutor

        from ..sources.fetch import verified_sha256
        from ..sources.index import local_path

        local = local_path(found.found_url)
        if local is None or found.wheel.sha256 or not local.is_file():
            return
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="torchenv-hash")
        self.hashing[found.wheel.filename] = self._pool.submit(verified_sha256, local)

    def _scratch(self) -> Path:
        """A folder for stubs of files whose sha256 is not known yet (removed when ``lock`` returns)."""
        import tempfile

        if self._scratch_dir is None:
            self._scratch_dir = tempfile.TemporaryDirectory(prefix="torchenv-stubs-")
        return Path(self._scratch_dir.name)

    def _complete(self, pinned: _Pinned) -> LockedWheel:
        """The lock entry of a pinned file once the set resolved: sha256 (download) and size (probe) if missing."""
        wheel = pinned.wheel
        hashing = self.hashing.pop(wheel.filename, None)
        if not wheel.sha256 and hashing is not None:
            return _replace(wheel, sha256=hashing.result())
        if not wheel.sha256:
            return self._download(wheel, wheel.source)[0]
        if wheel.size is None:
            return _replace(wheel, size=remote_size(self.found.get(wheel.filename)))
        return wheel

    def _pulled_in(self, name: str, version: str) -> _Pinned:
        """A torch-family package the resolve pulled in, from the torch source; said as such when it lacks it."""
        from ..errors import PulledInFamily
        from ..sources.locate import FROM_TORCH_INDEX

        try:
            return self._locate(name, version, FROM_TORCH_INDEX)
        except SourceError as exc:
            raise PulledInFamily(exc.message, name=name, hint=exc.hint) from None

    def lock(self, requirements: list[str]) -> tuple[LockedWheel, ...]:
        """Every wheel of the plan plus ``requirements``, exactly pinned and hash-locked, sorted."""
        try:
            return self._lock(requirements)
        except BaseException:
            self.engine.stop_warming()
            raise
        finally:
            if self._scratch_dir is not None:
                self._scratch_dir.cleanup()
                self._scratch_dir = None
            if self._pool is not None:   # a failed resolve: nobody waits for the hashes any more
                self._pool.shutdown(wait=False, cancel_futures=True)
                self._pool, self.hashing = None, {}

    def _lock(self, requirements: list[str]) -> tuple[LockedWheel, ...]:
        from ..sources.index import normalize
        from ..sources.locate import torch_family

        family = torch_family()
        pinned = {normalize(pkg.name): self._locate(normalize(pkg.name), pkg.version, pkg.source)
                  for pkg in self.plan.packages if normalize(pkg.name) in family}
        if requirements:    # the project's own requirements: their resolve takes a while, unpack torch meanwhile
            self._warm("resolve")
        resolved = self._settle(pinned, requirements, family)
        wheels = [self._locked(w, pinned, family) for w in resolved]
        self._remember_hashed(wheels)
        missing = set(pinned) - {w.name for w in wheels}
        if missing:
            raise BackendError(_("the resolver dropped {items} from the environment").format(
                                   items=', '.join(sorted(missing))),
                               hint=_("a requirement marker excludes it on this platform; check your requirements"))
        return tuple(sorted(wheels, key=lambda w: (w.name, w.filename)))

    def _settle(self, pinned: dict[str, _Pinned], requirements: list[str],
                family: Collection[str]) -> list[LockedWheel]:
        """Resolve with the torch family pinned to its located files; a family member the resolve pulls in
        (triton, pulled in by torch) is pinned from the torch source too and the resolve repeated (at most
        three rounds). ``pinned`` grows in place."""
        from ..sources.index import normalize

        plan = self.plan
        sources = plan_sources(plan)
        extra_links = [w for w in sources.wheelhouses if w not in sources.pypi.find_links]
        needs = import_needs_missing(plan, requirements)
        for _round in range(3):
            reqs = [f"{name} @ {p.engine_url}" for name, p in sorted(pinned.items())] + list(requirements)
            resolved, needs = self._resolve(reqs, needs, extra_links)
            strays = [w for w in resolved if normalize(w.name) in family and normalize(w.name) not in pinned]
            if not strays or plan.pypi_default_build:
                return resolved
            for w in strays:
                pinned[normalize(w.name)] = self._pulled_in(normalize(w.name), w.version)
        raise SourceError("the torch-family packages kept changing while resolving: "
                          + ", ".join(sorted(pinned)), hint=_("report this with `torchenv plan --json`"))

    def _locked(self, w: LockedWheel, pinned: dict[str, _Pinned], family: Collection[str]) -> LockedWheel:
        """One resolved wheel as the lock records it: a pinned torch-family file completed with its hash; PyPI's
        default build of a family member exactly pinned from the PyPI side; anything else as resolved."""
        from ..sources.index import normalize
        from ..sources.locate import FROM_PYPI

        name = normalize(w.name)
        if name in pinned:
            return self._complete(pinned[name])
        if name in family:
            return _replace(w, name=name, source=FROM_PYPI)
        return _replace(w, name=name)

    def _resolve(self, reqs: list[str], needs: list[str], extra_links: list[str]) -> tuple[list[LockedWheel], list[str]]:
        """Resolve ``reqs`` plus the plan's import needs (numpy); without them, said, if only they fail.

        Why soft: numpy only silences a warning of ``import torch``; a PyPI side that cannot
        serve it (an internal index, an offline folder) must not stop an environment that
        resolves without it.
        """
        plan = self.plan

        def run(lines: list[str]) -> list[LockedWheel]:
            return self.engine.resolve(requirements=lines, python_version=plan.python, platform=plan.platform,
                                       pypi=plan_sources(plan).pypi, find_links=extra_links)

        if not needs:
            return run(reqs), needs
        try:
            return run(reqs + needs), needs
        except BackendError:
            resolved = run(reqs)          # raises the project's own error when that is the problem
        if self.ui is not None:
            from ..reasons import SOURCES, reason

            self.ui.warn(reason("warn.import_need_left_out", SOURCES, packages=", ".join(needs),
                                why=reason("build.import_warns")))
        return resolved, []

    def _remember_hashed(self, wheels: list[LockedWheel]) -> None:
        """Record the sha256 the engine computed (``--generate-hashes``) for each local file it resolved.

        Why: ``materialise`` (now and in every later run) would otherwise read every local wheel
        again to hash it, a second pass over the whole stack on a project whose wheelhouse is
        local; the lock's sha256 *is* that hash, kept by (path, size, mtime) like any verified
        local file, and checked once more right before the install (``engines.uv.check_again``, pip's
        ``--require-hashes``).
        """
        from ..sources.fetch import remember_verified
        from ..sources.index import local_path

        hashed = {}
        for w in wheels:
            path = local_path(w.url) if w.url.startswith("file:") else None
            if path is not None and path.is_file() and w.sha256:
                hashed[path] = w.sha256
        if hashed:
            remember_verified(hashed)

    def fetch(self, wheels: Sequence[LockedWheel], into_new_env: EarlyInstall | None = None) -> list[Path]:
        """A hash-checked local file for every wheel (cache, local folders, then the plan's sources, lazily).

        ``into_new_env(files, hashes)``: starts installing hash-checked files already on this machine into
        the env being created beside this fetch (``flows.env_create.create_while_fetching``); ``False``
        where it started nothing.
        """
        on_disk = self._warm_if_waiting(wheels, into_new_env)
        try:
            files = self._fetch(list(wheels), on_disk)
            self._check_resolved_metadata(files)
        except BaseException:
            self.engine.stop_warming()   # no install follows, and the new env may be cleared away
            raise
        return files

    def _warm_if_waiting(self, wheels: Sequence[LockedWheel], into_new_env: EarlyInstall | None = None
                         ) -> OnDisk | None:
        """Have the engine unpack the local torch-family files while other files download, if any must; or, for
        a new env, say which files ``_fetch`` hands to ``into_new_env`` once they are checked.

        Why only when there is something to wait for (a resolve of the project's own requirements,
        ``_lock``, or downloads, here): the early unpack (``warm_cache``) is work of its own (uv installs
        the file into a scratch folder, removed after); with only the torch stack, every file on this
        machine, the install unpacks them all at once, on every core (the CPU stack from local folders:
        9.2-9.4 s without, 9.9-10.7 s with it, four runs each). Into a new env the early install is
        no work of its own (``install_early``): the install that follows keeps what it finds there; so
        it takes every file on disk (numpy from a local index too), after a lock of this run or from a
        lock cloned with the project. Sdists are left to the install (some build against torch).
        """
        from ..sources.index import local_path
        from ..sources.locate import on_this_machine

        sources = plan_sources(self.plan)

        def here(wheel: LockedWheel) -> bool:   # where this run's locating found it, or where a lock's file lies
            found = local_path(self.found.get(wheel.filename, ""))
            return (found is not None and found.is_file()) or on_this_machine(sources, wheel)
        if not self.warmable and into_new_env is None:
            return None
        on_disk = {w.filename for w in wheels if here(w)}
        if len(on_disk) == len(wheels):
            return None
        if into_new_env is not None:
            early = {name for name in on_disk if name.endswith(".whl") and name not in self.unchecked}
            if early:
                hashes = {w.filename: w.sha256 for w in wheels}
                return OnDisk(frozenset(early), lambda files: self._install_early(into_new_env, files, hashes))
        self._warm("downloads")
        return None

    def _install_early(self, into_new_env: EarlyInstall, files: list[Path], hashes: dict[str, str]) -> None:
        if into_new_env(files, hashes):
            self.warmable = []
        else:
            self._warm("downloads")

    def _warm(self, beside: Beside) -> None:
        warmable, self.warmable = self.warmable, []
        if warmable:
            self.engine.warm_cache(warmable, python_version=self.plan.python, platform=self.plan.platform,
                                   beside=beside)

    def _check_resolved_metadata(self, files: list[Path]) -> None:
        """Refuse files whose METADATA differs from what this run resolved from (read without a hash).

        Why: byte ranges (or a ``.metadata`` the index gives no hash for) come from a mirror that
        may serve other bytes than the index lists; the whole file is checked by sha256 only now,
        and a lock resolved from another file's dependencies must not be installed or written.
        """
        if not self.unchecked:      # every METADATA resolved from was covered by a sha256 (the usual case)
            return
        from ..errors import HashMismatch
        from . import wheelmeta

        for path in files:
            resolved = self.unchecked.get(path.name)
            if resolved is not None and not wheelmeta.same_metadata(path, resolved):
                raise HashMismatch(f"{path.name}: the dependencies read from its source before downloading "
                                   "differ from those of the verified file",
                                   hint="a mirror serves other bytes than its index lists; run `torchenv up` "
                                        "again, or choose another mirror (`torchenv mirror test`)")

    def _fetch(self, wheels: list[LockedWheel], on_disk: OnDisk | None = None) -> list[Path]:
        """Every wheel's file, all at once; ``on_disk``: the files on this machine, handed on as soon as they
        are checked (hashing them here, beside the downloads, holds nothing back), while the others download."""
        from contextlib import nullcontext

        from ..sources.getfile import wheel_file

        sources = plan_sources(self.plan)
        if (len(wheels) < 2 or self.ui is None) and on_disk is None:
            return [wheel_file(sources, w, memory=self.memory, ui=self.ui, first=self.found.get(w.filename))
                    for w in wheels]
        from concurrent.futures import ThreadPoolExecutor

        from ..sources.budget import budget_size

        # all files at once: torch-family and PyPI-side downloads share the run's connection budget
        with (self.ui.progress(_("getting {count} files").format(count=len(wheels))) if self.ui else nullcontext()), \
                ThreadPoolExecutor(max_workers=min(len(wheels), budget_size(), 8)) as pool:
            futures = [pool.submit(wheel_file, sources, w, memory=self.memory, ui=self.ui,
                                   first=self.found.get(w.filename)) for w in wheels]
            try:
                if on_disk is not None:   # the very paths the install names: uv keeps what it finds installed
                    on_disk.start([f.result() for w, f in zip(wheels, futures) if w.filename in on_disk.names])
                return [f.result() for f in futures]
            except BaseException:
                for f in futures:
                    f.cancel()
                raise


@dataclass(frozen=True)
class OnDisk:
    """The files of a fetch already on this machine (``names``), and what starts once they are checked."""
    names: frozenset[str]
    start: Callable[[list[Path]], None]


def _replace(wheel: LockedWheel, **changes: Any) -> LockedWheel:
    import dataclasses

    return dataclasses.replace(wheel, **changes)


def import_needs_missing(plan: Plan, requirements: list[str]) -> list[str]:
    """The plan's ``import_requirements`` (numpy for ``import torch``) the project does not name itself."""
    import re

    from ..envlayout import dist_name

    named = {dist_name(m.group(1))
             for m in (re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", r) for r in requirements) if m}
    return [spec for spec in plan.import_requirements
            if dist_name(re.split(r"[<>=!~;\[ ]", spec)[0]) not in named]
