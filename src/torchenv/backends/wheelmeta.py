"""A wheel's METADATA without the wheel, and the metadata-only "stub" wheel the resolver reads instead.

Why: the resolver needs only each torch-family file's ``Requires-Dist``; downloading a
GB-sized CUDA wheel to learn it, before anyone knows whether the rest of the project
resolves, wastes the download (and the user's time) whenever it does not. So, in order:

* a local file: its ``*.dist-info/METADATA`` member is read in place (no hash, no copy);
* the index offers ``<file url>.metadata`` (PEP 658/714): that small file, checked against
  the sha256 the index gives for it (a mismatch is refused, and the wheel itself is read);
* the server answers ``Range`` requests: the zip's central directory and the METADATA member
  only (a few requests of some KiB to a few MiB, whatever the wheel's size);
* neither: ``None``, and the caller downloads the whole file as before.

The stub is a zip with the real file's name and the real METADATA, a WHEEL and a RECORD: the
engine resolves from it exactly as from the real wheel, and never hashes or unpacks the big
file. Its own hash never reaches the lock (the lock keeps the real file's URL and sha256).
METADATA fetched from a remote source is cached by the real file's sha256 (never by URL, so
no login lands in a cache path), as ``<cache>/metadata/<sha[:2]>/<sha>/<filename>``.
"""
from __future__ import annotations

import json
import os
import zipfile
from dataclasses import dataclass
from pathlib import Path

from ..errors import HashMismatch, SourceError
from ..fileio import temp_file

MAX_METADATA_BYTES = 16 << 20     # a METADATA file larger than this is not a wheel's metadata
_TAIL = 64 << 10                  # first range read: the zip's end records (and often its directory)
_READ_AHEAD = 64 << 10            # a local header is read with the (small) member that follows it
_MAX_RANGE_REQUESTS = 8


@dataclass(frozen=True)
class WheelMetadata:
    dist_info: str          # "torch-2.4.1+cpu.dist-info"
    text: bytes             # the METADATA file
    size: int | None        # the wheel's size in bytes, when reading it told
    how: str                # where it came from, for messages: "local file", "index metadata file", ...


def metadata_cache() -> Path:
    from .. import paths

    return paths.cache_dir() / "metadata"


def entry_dir(sha256: str) -> Path:
    return metadata_cache() / sha256[:2] / sha256


# --- where the METADATA comes from -----------------------------------------------------------------

def _member(names: list[str], filename: str) -> str:
    """The ``<dist>-<version>.dist-info/METADATA`` member of ``filename`` (its own project's, when several)."""
    from ..sources.index import normalize, project_of

    found = [n for n in names if n.count("/") == 1 and n.endswith(".dist-info/METADATA")]
    own = [n for n in found if normalize(n.split("-", 1)[0]) == project_of(filename)]
    if not (own or found):
        raise SourceError(f"{filename} has no *.dist-info/METADATA", hint="the file is not a valid wheel")
    return (own or found)[0]


def _from_zip(archive: zipfile.ZipFile, filename: str, size: int | None, how: str) -> WheelMetadata:
    name = _member(archive.namelist(), filename)
    if archive.getinfo(name).file_size > MAX_METADATA_BYTES:
        raise SourceError(f"{filename}: {name} is larger than {MAX_METADATA_BYTES >> 20} MiB",
                          hint="the file is not a valid wheel")
    return WheelMetadata(dist_info=name.split("/", 1)[0], text=archive.read(name), size=size, how=how)


def from_local(path: Path) -> WheelMetadata | None:
    """METADATA of a wheel on this machine; None when it is no readable zip (the engine will say why)."""
    try:
        with zipfile.ZipFile(path) as archive:
            return _from_zip(archive, path.name, path.stat().st_size, "local file")
    except (OSError, zipfile.BadZipFile, SourceError):
        return None


def dist_info_of(filename: str) -> str:
    """``torch-2.4.1+cpu-cp311-...whl`` -> ``torch-2.4.1+cpu.dist-info`` (the name the wheel spec fixes)."""
    dist, version = filename.split("-")[:2]
    return f"{dist}-{version}.dist-info"


def from_metadata_file(url: str, expected: str, filename: str, *, timeout: float) -> WheelMetadata:
    """``<url>.metadata`` (PEP 658), checked against ``expected`` (the index's sha256; "" when it gives none)."""
    import hashlib

    from ..sources.http import describe, open_url
    from ..sources.ranged import host_label

    try:
        with open_url(url + ".metadata", timeout=timeout) as resp:
            text = resp.read(MAX_METADATA_BYTES + 1)
    except Exception as exc:          # HTTP and network errors of every kind (IncompleteRead is no OSError)
        raise SourceError(f"{host_label(url)} offers {filename}.metadata but it could not be read "
                          f"({describe(exc)})", url=host_label(url)) from None
    got = hashlib.sha256(text).hexdigest()
    if expected and got != expected:
        raise HashMismatch(f"{filename}.metadata from {host_label(url)}: expected sha256 {expected}, got {got}",
                           url=host_label(url), hint="the mirror serves metadata that does not match its index")
    if len(text) > MAX_METADATA_BYTES:
        raise SourceError(f"{filename}.metadata from {host_label(url)} is larger than "
                          f"{MAX_METADATA_BYTES >> 20} MiB", url=host_label(url))
    return WheelMetadata(dist_info=dist_info_of(filename), text=text, size=None, how="index metadata file")


class _RangeFile:
    """A read-only, seekable view of a remote file that ``zipfile`` reads, fetched in HTTP ranges on demand."""

    def __init__(self, url: str, size: int, timeout: float) -> None:
        self.url, self.size, self.timeout = url, size, timeout
        self.pos = 0
        self.spans: list[tuple[int, bytes]] = []
        self._load(max(0, size - _TAIL), size)

    def seekable(self) -> bool:
        return True

    def readable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.pos

    def seek(self, offset: int, whence: int = 0) -> int:
        self.pos = {0: 0, 1: self.pos, 2: self.size}[whence] + offset
        return self.pos

    def read(self, n: int | None = -1) -> bytes:
        end = self.size if n is None or n < 0 else min(self.size, self.pos + n)
        if end <= self.pos:
            return b""
        data = self._get(self.pos, end)
        self.pos = end
        return data

    def _get(self, start: int, end: int) -> bytes:
        for first, data in self.spans:
            if first <= start and end <= first + len(data):
                return data[start - first:end - first]
        self._load(start, min(self.size, max(end, start + _READ_AHEAD)))
        return self._get(start, end)

    def _load(self, start: int, stop: int) -> None:
        from ..sources.ranged import ChunkFailed, fetch_range

        if len(self.spans) >= _MAX_RANGE_REQUESTS:
            raise ChunkFailed("needed too many range requests")
        got = bytearray()
        fetch_range(self.url, start, stop, self.size, self.timeout, got.extend)
        self.spans.append((start, bytes(got)))


def head(url: str, *, timeout: float) -> tuple[int | None, bool] | None:
    """(Content-Length, whether ``Accept-Ranges: bytes``) from a ``HEAD`` request; None when it was refused."""
    from ..sources.http import open_url

    try:
        with open_url(url, timeout=timeout, method="HEAD") as resp:
            length = resp.headers.get("Content-Length")
            ranges = resp.headers.get("Accept-Ranges", "").strip().lower() == "bytes"
    except Exception:                 # 405/501 for HEAD, or any network error: the GET will tell
        return None
    return (int(length) if length and length.isdigit() else None), ranges


def from_ranges(url: str, filename: str, *, timeout: float) -> WheelMetadata | None:
    """METADATA read from the zip's directory and member in byte ranges; None when the server sends whole files.

    Why ``HEAD`` first: a server that says it has no ranges would answer the range probe with the
    whole file, a request (and a transfer begun) for nothing; the caller's download is the one.
    """
    from ..sources.http import describe
    from ..sources.ranged import ChunkFailed, host_label, probe

    told = head(url, timeout=timeout)
    if told is not None and not told[1]:
        return None
    try:
        size = told[0] if told is not None else None
        if size is None:
            resp, size = probe(url, timeout=timeout)
            if resp is not None:      # 200: no ranges; the body is the whole file, left unread
                resp.close()
                return None
        assert size is not None, "a 206 answer carries the size"
        with zipfile.ZipFile(_RangeFile(url, size, timeout)) as archive:
            return _from_zip(archive, filename, size, "byte ranges")
    except ChunkFailed as exc:
        reason = exc.reason
    except zipfile.BadZipFile as exc:
        reason = f"not a valid zip ({exc})"
    except Exception as exc:          # network errors of every kind: the caller downloads
        reason = describe(exc)
    raise SourceError(f"could not read {filename}'s metadata from {host_label(url)} in byte ranges ({reason})",
                      url=host_label(url))


def same_metadata(path: Path, resolved: WheelMetadata) -> bool:
    """Does the verified file at ``path`` carry the METADATA the resolve read (unverified) from its server?"""
    found = from_local(path)
    return found is not None and found.text == resolved.text


# --- the cache and the stub ---------------------------------------------------------------------

def cached(sha256: str, filename: str) -> tuple[Path, int | None] | None:
    """(stub, wheel size) made earlier for the file with this sha256, or None."""
    folder = entry_dir(sha256)
    stub = folder / filename
    if not stub.is_file():
        return None
    try:
        size = json.loads((folder / "entry.json").read_text()).get("size")
    except (OSError, ValueError, AttributeError):
        size = None
    return stub, size if isinstance(size, int) else None


def _record_line(path: str, data: bytes) -> str:
    import base64
    import hashlib

    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{path},sha256={digest},{len(data)}\n"


def stub_wheel(filename: str, meta: WheelMetadata, folder: Path) -> Path:
    """``folder/filename``: a wheel holding only ``meta``'s dist-info (METADATA, WHEEL, RECORD), written atomically."""
    from ..sources.index import parse_wheel_filename

    tags = sorted(str(t) for t in parse_wheel_filename(filename)[2])
    info = meta.dist_info
    wheel_file = ("Wheel-Version: 1.0\nGenerator: torchenv (metadata only)\nRoot-Is-Purelib: false\n"
                  + "".join(f"Tag: {t}\n" for t in tags)).encode()
    members = {f"{info}/METADATA": meta.text, f"{info}/WHEEL": wheel_file}
    record = "".join(_record_line(p, d) for p, d in members.items()) + f"{info}/RECORD,,\n"
    members[f"{info}/RECORD"] = record.encode()
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = temp_file(folder, prefix=".stub-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out, zipfile.ZipFile(out, "w") as archive:
            for path, data in members.items():
                archive.writestr(zipfile.ZipInfo(path, date_time=(1980, 1, 1, 0, 0, 0)), data)
        if meta.size is not None:
            (folder / "entry.json").write_text(json.dumps({"size": meta.size}))
        os.replace(tmp, folder / filename)
    finally:
        Path(tmp).unlink(missing_ok=True)
    return folder / filename
