"""``manifest.json``: sha256 and size of every file in a bundle, and ``torchenv bundle verify``.

Why a manifest next to the lock's hashes: the lock pins the packages, but a bundle also
carries index pages, repodata, torchenv's own wheels and the project files. Checking the
manifest after a copy over USB or a flaky link tells the user *which* file went bad,
before anything is installed. Extra files are refused too: a bundle is a sealed unit.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .layout import FORMAT, MANIFEST, Bundle, BundleError

CHUNK = 1 << 20


def manifest_data(files: dict[str, tuple[str, int]], *, targets: list[str], extra: dict[str, Any]) -> dict[str, Any]:
    """The manifest for ``files`` (relative path -> (sha256, size))."""
    from ..version import __version__

    return {"format": FORMAT, "torchenv": __version__, "targets": sorted(targets), **extra,
            "files": {rel: {"sha256": sha, "size": size} for rel, (sha, size) in sorted(files.items())}}


@dataclass(frozen=True)
class VerifyResult:
    files: int
    bytes: int
    targets: tuple[str, ...]


def _short(digest: str) -> str:
    return f"{digest[:12]}…"


def verify_bundle(path: Path, ui: Any = None) -> VerifyResult:
    """Check every file against the manifest in one streaming pass; ``BundleError`` names the first bad one."""
    bundle = Bundle(path)
    manifest = bundle.manifest()
    expected: dict[str, dict[str, Any]] = manifest["files"]
    seen: set[str] = set()
    total = sum(int(v.get("size", 0)) for v in expected.values())
    hint = "copy the bundle again (or make a new one with `torchenv bundle`); nothing was installed"
    progress = ui.progress(f"verifying {path.name}", total=total, bytes_=True) if ui is not None else None
    advance = progress.__enter__() if progress is not None else (lambda n=1, total=None: None)
    try:
        with bundle.walk() as members:
            for member, opener in members:
                if member.path == MANIFEST:
                    continue
                want = expected.get(member.path)
                if want is None:
                    raise BundleError(f"{path}: {member.path} is not listed in the manifest (an extra file)",
                                      hint="a bundle must hold exactly what `torchenv bundle` put there; " + hint)
                if not opener.regular:
                    raise BundleError(f"{path}: {member.path} is not a regular file (link or device)", hint=hint)
                seen.add(member.path)
                if member.size != int(want["size"]):
                    raise BundleError(f"{path}: {member.path} has {member.size} bytes, the manifest says "
                                      f"{want['size']} (truncated or altered)", hint=hint)
                h = hashlib.sha256()
                with opener.open() as f:
                    for block in iter(lambda: f.read(CHUNK), b""):
                        h.update(block)
                        advance(len(block))
                if h.hexdigest() != want["sha256"]:
                    raise BundleError(f"{path}: {member.path}: sha256 differs from the manifest (expected "
                                      f"{_short(want['sha256'])}, file has {_short(h.hexdigest())})", hint=hint)
    finally:
        if progress is not None:
            progress.__exit__(None, None, None)
    missing = sorted(set(expected) - seen)
    if missing:
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        raise BundleError(f"{path}: {missing[0]} is listed in the manifest but missing from the bundle{more}",
                          hint=hint)
    return VerifyResult(files=len(expected), bytes=total, targets=tuple(manifest.get("targets", ())))
