"""Get one artifact with a known sha256, trying its sources in order.

Why this shape: mirrors in China are fast but incomplete or flaky (403s, 5xx, dropped
connections, stale copies), and torch wheels are multi-GB. So:

* the content-addressed cache (``paths.wheel_cache()/<sha[:2]>/<sha>/<filename>``) is
  looked at first, and only verified bytes ever land there (temp file + ``os.replace``);
* local files (the user's wheelhouse, ``file://``) are used **in place**, never copied;
  their verified hash is remembered by (path, size, mtime_ns) so the second check of a
  2 GB wheel costs a ``stat``;
* every failure of one source is a warning and the next source is tried; the final
  error lists each source and why it failed. Wrong bytes raise ``HashMismatch``.
"""
from __future__ import annotations

import hashlib
import json
import os
import urllib.parse
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, ClassVar, Literal, cast

from ..errors import HashMismatch, SourceError
from ..fileio import temp_file
from ..i18n import _
from .index import local_path as _local_path

CHUNK = 1 << 20
_VERIFIED_INDEX = "verified-local.json"


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(CHUNK), b""):
            h.update(block)
    return h.hexdigest()


def _label(url: str) -> str:
    """What a warning calls a source: the mirror host, or the local path."""
    local = _local_path(url)
    return str(local) if local is not None else (urllib.parse.urlsplit(url).netloc or url)


class _VerifiedLocal:
    """Known-good hashes of local files, keyed by path and checked against (size, mtime_ns, inode).

    Why the inode too: a file replaced by another (a rename onto the path, its size and mtime made
    the same) is another inode; it is hashed again instead of taking the old file's digest.

    A lost update (two torchenv runs writing at once) only costs a re-hash later.
    """

    # the index as last read or written by this process, by its (mtime_ns, size, inode): a run that
    # checks 70 local wheels parses it once, not once per wheel
    _seen: ClassVar[dict[str, tuple[tuple[int, int, int], dict[str, list[Any]]]]] = {}

    def __init__(self, cache: Path) -> None:
        self.file = cache / _VERIFIED_INDEX
        try:
            st = os.stat(self.file)
            signature = (st.st_mtime_ns, st.st_size, st.st_ino)
            seen = self._seen.get(str(self.file))
            if seen is not None and seen[0] == signature:
                self.data: dict[str, list[Any]] = dict(seen[1])   # [size, mtime_ns, sha256]
                return
            self.data = json.loads(self.file.read_text())
            self._seen[str(self.file)] = (signature, dict(self.data))
        except (OSError, ValueError):
            self.data = {}

    @staticmethod
    def _key(path: Path) -> tuple[str, list[int]]:
        st = path.stat()
        return str(path.resolve()), [st.st_size, st.st_mtime_ns, st.st_ino]

    def sha256(self, path: Path) -> str:
        key, facts = self._key(path)
        known = self.data.get(key)
        if known and len(known) == 4 and [known[0], known[1], known[3]] == facts:
            return cast(str, known[2])
        return self.remember(path, sha256_file(path))

    def remember(self, path: Path, digest: str) -> str:
        """Record ``digest`` for ``path`` (just hashed, or just downloaded and checked): no second hash later."""
        self._record(path, digest)
        self._save()
        return digest

    def remember_all(self, hashed: dict[Path, str]) -> None:
        """Take hashes computed elsewhere over these very files (an engine's ``--generate-hashes``); one save."""
        for path, digest in hashed.items():
            self._record(path, digest)
        self._save()

    def _record(self, path: Path, digest: str) -> None:
        key, (size, mtime, inode) = self._key(path)
        self.data[key] = [size, mtime, digest, inode]

    def _save(self) -> None:
        try:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = temp_file(self.file.parent, prefix=".verified-")
            with os.fdopen(fd, "w") as f:
                json.dump(self.data, f)
            os.replace(tmp, self.file)
            st = os.stat(self.file)
            self._seen[str(self.file)] = ((st.st_mtime_ns, st.st_size, st.st_ino), dict(self.data))
        except OSError:
            pass   # the index is an optimisation; a read-only cache must not break installs


class _Failed(Exception):
    def __init__(self, reason: str, received: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.received = received   # set for hash mismatches


def _download(url: str, filename: str, expected: str | None, dest: Path, *, ui: Any, timeout: float,
              mirrors: list[str] | None = None) -> str:
    """Stream ``url`` into ``dest`` (atomically) if and only if its sha256 is ``expected``; returns the sha256.

    ``expected=None`` (a source that publishes no hash): ``dest`` is a folder, and the file
    lands content-addressed under it (``<dest>/<sha[:2]>/<sha>/<filename>``). A file with a
    known hash is first asked for in ranges: a large one comes in chunks from ``url`` and the
    other ``mirrors`` at once (``sources.ranged``); a server that ignores ``Range`` answers with
    the whole file, which is streamed over that one connection.
    """
    from .ranged import RANGED_MIN_BYTES, budget

    staging = dest if expected is None else dest.parent
    staging.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = temp_file(staging, prefix=".partial-", suffix=".tmp")
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            resp = None
            if expected is not None and os.environ.get("TORCHENV_RANGED", "1") != "0":
                resp, total = _probe(url, timeout)
                if resp is None and total is not None and total >= RANGED_MIN_BYTES:
                    _ranged(url, filename, expected, total, dest, ui=ui, timeout=timeout, mirrors=mirrors or [url])
                    return expected
            with budget():
                digest = _stream(url, filename, expected, out, resp, ui=ui, timeout=timeout)
        if expected is None:
            dest = dest / digest[:2] / digest / filename
            dest.parent.mkdir(parents=True, exist_ok=True)
        elif digest != expected:
            raise _Failed("wrong bytes (sha256 mismatch)", received=digest)
        os.replace(tmp, dest)
        return digest
    finally:
        tmp.unlink(missing_ok=True)


def _probe(url: str, timeout: float) -> tuple[Any, int | None]:
    from .ranged import ChunkFailed, budget, probe

    with budget(), _reasons():
        try:
            return probe(url, timeout=timeout)
        except ChunkFailed as exc:
            raise _Failed(exc.reason) from None


class _reasons:
    """Network and HTTP errors inside the block become ``_Failed`` with a short reason."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, exc: BaseException | None, tb: Any) -> Literal[False]:
        if exc is None or isinstance(exc, _Failed) or not isinstance(exc, Exception):
            return False
        import urllib.error

        from .http import describe

        if isinstance(exc, urllib.error.HTTPError):
            raise _Failed(f"HTTP {exc.code}") from None
        raise _Failed(describe(exc)) from None   # OSError, http.client.IncompleteRead and friends


def _ranged(url: str, filename: str, expected: str, total: int, dest: Path, *, ui: Any, timeout: float,
            mirrors: list[str]) -> None:
    from .ranged import ChunkFailed, DiskFailed, download

    hosts = [u for u in dict.fromkeys([url, *mirrors]) if _local_path(u) is None]
    warn = ui.warn if ui is not None else (lambda text: None)
    with _progress(ui, filename, total) as advance:
        try:
            download(filename, expected, hosts, total, dest, timeout=timeout, advance=advance,
                     show_mirrors=getattr(advance, "mirrors", lambda hosts: None), warn=warn,
                     on_resume=getattr(advance, "resumed", None))
        except ChunkFailed as exc:
            raise _Failed(exc.reason, received=exc.received) from None
        except DiskFailed as exc:
            raise _Failed(str(exc)) from None


def _stream(url: str, filename: str, expected: str | None, out: Any, resp: Any, *, ui: Any,
            timeout: float) -> str:
    """One connection: ``resp`` (already open) or a new GET of ``url``, hashed into ``out`` while it streams."""
    from .http import open_url

    h = hashlib.sha256()
    got = 0
    with _reasons():
        with (resp if resp is not None else open_url(url, timeout=timeout, stream=True)) as resp:
            length = resp.headers.get("Content-Length")
            total = int(length) if length and length.isdigit() else None
            with _progress(ui, _("{file} from {host}").format(file=filename, host=_label(url)), total) as advance:
                for block in iter(lambda: resp.read(CHUNK), b""):
                    out.write(block)
                    h.update(block)
                    got += len(block)
                    advance(len(block))
    if total is not None and got < total:
        raise _Failed(f"connection dropped after {got} of {total} bytes")
    return h.hexdigest()


def _remove_stale_partials(folder: Path, max_age: float = 3600.0) -> None:
    """Partial downloads of runs killed long ago (a live download writes at least every ``timeout`` s)."""
    from ..fileio import is_fresh

    for part in folder.glob(".partial-*"):
        try:
            if not is_fresh(part.stat().st_mtime, max_age):   # old, or dated ahead of this clock
                part.unlink()
        except OSError:
            pass


class _NoProgress:
    def __enter__(self) -> Callable[..., None]:
        return lambda n=1, total=None: None

    def __exit__(self, *exc: object) -> None:
        return None


def _progress(ui: Any, description: str, total: int | None) -> AbstractContextManager[Callable[..., None]]:
    return ui.progress(description, total=total, bytes_=True) if ui is not None else _NoProgress()


def offline() -> bool:
    """``torchenv up --offline`` sets TORCHENV_OFFLINE=1: then no remote URL is ever contacted."""
    return os.environ.get("TORCHENV_OFFLINE") == "1"


def remember_verified(hashed: dict[Path, str], cache: Path | None = None) -> None:
    """Record sha256s of local files hashed in this run by someone else, so no one hashes them again."""
    from .. import paths

    _VerifiedLocal(cache if cache is not None else paths.wheel_cache()).remember_all(hashed)


def verified_sha256(path: Path, cache: Path | None = None) -> str:
    """sha256 of a local file, remembered by (path, size, mtime) so a multi-GB wheel is hashed once."""
    from .. import paths

    return _VerifiedLocal(cache if cache is not None else paths.wheel_cache()).sha256(path)


def fetch(filename: str, sha256: str, urls: list[str], *, ui: Any = None, cache: Path | None = None,
          timeout: float = 30.0, on_failure: Callable[[str, str], None] | None = None) -> Path:
    """A path to ``filename`` whose sha256 is ``sha256``, from the cache or the first source that works.

    ``urls``: remote URLs (tried in order) and/or local ``file://`` URLs / paths (used in
    place). ``timeout`` bounds each network wait (connect is capped at 5 s), not the whole
    transfer, so a slow but alive mirror can still deliver a large wheel. ``on_failure(url,
    reason)`` hears of every source that failed (callers remember unreachable hosts).
    """
    from .. import paths

    expected = sha256.lower().removeprefix("sha256:")
    root = cache if cache is not None else paths.wheel_cache()
    final = root / expected[:2] / expected / filename
    verified = _VerifiedLocal(root)
    if final.is_file():
        if verified.sha256(final) == expected:
            return final
        final.unlink(missing_ok=True)   # our own cache entry went bad: replace it

    path, _digest = _first_source(filename, expected, urls, root=root, final=final, verified=verified, ui=ui,
                            timeout=timeout, on_failure=on_failure)
    return path


def fetch_and_hash(filename: str, urls: list[str], *, ui: Any = None, cache: Path | None = None,
                   timeout: float = 30.0, on_failure: Callable[[str, str], None] | None = None) -> tuple[Path, str]:
    """``(path, sha256)`` of ``filename`` from the first source that works, for sources that publish no hash.

    Why a separate mode: flat mirror pages (Aliyun ``pytorch-wheels/<tier>/``) list files
    without ``#sha256=``; the lock still needs one and the install needs the bytes, so the
    file is downloaded once, hashed while it streams, and kept in the content-addressed
    cache (trust on first use: the lock pins these bytes from then on).
    """
    from .. import paths

    root = cache if cache is not None else paths.wheel_cache()
    return _first_source(filename, None, urls, root=root, final=root, verified=_VerifiedLocal(root), ui=ui,
                         timeout=timeout, on_failure=on_failure)


def _from_local(local: Path, expected: str | None, verified: _VerifiedLocal) -> tuple[Path, str]:
    """A local file used in place, when it holds the expected bytes."""
    if not local.is_file():
        raise _Failed("no such file")
    digest = verified.sha256(local)
    if expected is not None and digest != expected:
        raise _Failed("wrong bytes (sha256 mismatch)", received=digest)
    return local, digest


def _try_source(i: int, filename: str, expected: str | None, urls: list[str], *, root: Path, final: Path,
                verified: _VerifiedLocal, ui: Any, timeout: float) -> tuple[Path, str]:
    """``(path, sha256)`` from ``urls[i]`` (the remote sources after it lend chunks); ``_Failed`` says why not."""
    url = urls[i]
    local = _local_path(url)
    if local is not None:
        return _from_local(local, expected, verified)
    if offline():
        raise _Failed("not tried: offline (TORCHENV_OFFLINE=1)")
    digest = _download(url, filename, expected, final, ui=ui, timeout=timeout,
                       mirrors=[u for u in urls[i:] if _local_path(u) is None])
    if expected is None:
        return root / digest[:2] / digest / filename, digest
    _remove_stale_partials(final.parent)
    return final, verified.remember(final, digest)


def _warn_failed(ui: Any, urls: list[str], i: int, filename: str, reason: str) -> None:
    if ui is None:
        return
    nxt = _("trying {source}").format(source=_label(urls[i + 1])) if i + 1 < len(urls) else _("no source left")
    ui.warn(_("mirror {mirror} failed for {filename} ({reason}); {next}").format(
        mirror=_label(urls[i]), filename=filename, reason=reason, next=nxt))


def _no_source_worked(filename: str, expected: str | None, tried: list[tuple[str, str]],
                      received: str | None) -> Exception:
    """The error once every source failed: a hash mismatch when some source served other bytes."""
    listing = "; ".join(f"{u}: {why}" for u, why in tried) or _("no source was given")
    if received is not None:
        return HashMismatch(
            _("{filename}: expected sha256 {expected}, but a source served {received} (sources tried: "
              "{listing})").format(filename=filename, expected=expected, received=received, listing=listing),
            url=next(u for u, w in tried if "sha256" in w),
            hint=_("the file was refused; a mirror may hold a different build under the same name. "
                   "Try another mirror (--mirror official) or re-lock if the lock is out of date"))
    return SourceError(_("could not get {filename} from any source ({listing})").format(
                           filename=filename, listing=listing),
                       url=tried[-1][0] if tried else None,
                       hint=_("check your network/proxy, or pick a working mirror: `torchenv mirror test`"))


def _first_source(filename: str, expected: str | None, urls: list[str], *, root: Path, final: Path,
                  verified: _VerifiedLocal, ui: Any, timeout: float,
                  on_failure: Callable[[str, str], None] | None) -> tuple[Path, str]:
    """Try each source in order; ``(path, sha256)`` from the first that delivers the right bytes.

    ``expected=None`` accepts any bytes (trust on first use) and files them content-addressed
    under ``root``; otherwise ``final`` is where a download lands.
    """
    tried: list[tuple[str, str]] = []
    received: str | None = None
    for i, url in enumerate(urls):
        try:
            return _try_source(i, filename, expected, urls, root=root, final=final, verified=verified, ui=ui,
                               timeout=timeout)
        except _Failed as exc:
            tried.append((url, exc.reason))
            received = exc.received or received
            if on_failure is not None:
                on_failure(url, exc.reason)
            _warn_failed(ui, urls, i, filename, exc.reason)
    raise _no_source_worked(filename, expected, tried, received)
