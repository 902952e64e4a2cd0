"""``CondaRecord``: one solved conda package as plain data, the currency between engines and lock.

Why plain data: the rattler adapter runs in a worker process (JSON in/out), the conda-binary
engine parses JSON, and the lock stores the same fields; one frozen dataclass carries a
package through all three. It keeps enough of the repodata record (depends, constrains,
build number, timestamp) that an install from the lock needs no solve and writes the same
``conda-meta/*.json`` as the original install did.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..lockfile.model import LockedCondaPackage


@dataclass(frozen=True)
class CondaRecord:
    name: str
    version: str
    build: str
    build_number: int
    subdir: str
    url: str                          # canonical (the channel's own URL, never a mirror's)
    channel: str                      # canonical channel base URL, no trailing slash
    sha256: str
    md5: str | None = None
    size: int | None = None
    depends: tuple[str, ...] = ()
    constrains: tuple[str, ...] = ()
    noarch: str | None = None         # generic | python | None
    timestamp: int | None = None      # ms since epoch, as repodata stores it
    license: str | None = None

    @property
    def file_name(self) -> str:
        return self.url.rsplit("/", 1)[-1]

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CondaRecord:
        known = {f.name for f in dataclasses.fields(cls)}
        data = {k: v for k, v in data.items() if k in known}
        data["depends"] = tuple(data.get("depends") or ())
        data["constrains"] = tuple(data.get("constrains") or ())
        return cls(**data)

    def to_locked(self) -> LockedCondaPackage:
        from ..lockfile.model import LockedCondaPackage

        return LockedCondaPackage(
            name=self.name, version=self.version, build=self.build, subdir=self.subdir, url=self.url,
            sha256=self.sha256, md5=self.md5, channel=self.channel, size=self.size,
            build_number=self.build_number, depends=self.depends, constrains=self.constrains,
            noarch=self.noarch, timestamp=self.timestamp, license=self.license)


def records_from_lock(packages: Iterable[LockedCondaPackage]) -> list[CondaRecord]:
    """The lock's conda packages as records an engine installs directly (no solve)."""
    return [CondaRecord(name=p.name, version=p.version, build=p.build, build_number=p.build_number,
                        subdir=p.subdir, url=p.url, channel=p.channel, sha256=p.sha256, md5=p.md5,
                        size=p.size, depends=tuple(p.depends), constrains=tuple(p.constrains),
                        noarch=p.noarch, timestamp=p.timestamp, license=p.license)
            for p in packages]
