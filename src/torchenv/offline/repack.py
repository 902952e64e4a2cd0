"""Turn an installed distribution back into the wheel it was installed from.

Why: ``torchenv bundle`` must carry torchenv itself, and torchenv installed the way users
install it (``./bootstrap``: a wheel in a tool env) is on no index and has no source tree
beside it. Its RECORD (PEP 376/627) lists every installed file with its sha256, which is
exactly what a wheel holds; only the files the installer wrote are left out (INSTALLER,
REQUESTED, direct_url.json, byte-code, console-script launchers) and ``#!python`` shebangs
it rewrote are put back. A file whose bytes no longer match RECORD makes the repack fail:
what would come out is not what was installed. The same works for the tool env's
dependencies, so a bundle does not download again what is already installed.
"""
from __future__ import annotations

import base64
import hashlib
import os
import re
import sysconfig
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from importlib.metadata import Distribution

INSTALLER_FILES = frozenset({"INSTALLER", "REQUESTED", "direct_url.json", "RECORD", "uv_cache.json"})
ZIP_TIME = (1980, 1, 1, 0, 0, 0)


class RepackError(Exception):
    """The installed files cannot give back a faithful wheel (changed, missing, or unnamed tags)."""


@dataclass(frozen=True)
class Member:
    arcname: str       # path inside the wheel
    source: Path       # installed file
    executable: bool


def _b64_sha256(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _dist_info(dist: Distribution) -> Path:
    path = getattr(dist, "_path", None)   # PathDistribution: the .dist-info folder
    if path is None or not Path(path).name.endswith(".dist-info"):
        raise RepackError(f"{dist.metadata['Name']} is not installed from a wheel (no .dist-info)")
    return Path(path)


def wheel_tags(wheel_file: str) -> list[str]:
    """The Tag lines of a WHEEL metadata file (``py3-none-any``, ...)."""
    return [line.split(":", 1)[1].strip() for line in wheel_file.splitlines() if line.startswith("Tag:")]


def compressed_tag(tags: list[str]) -> str:
    """``py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64`` from the WHEEL file's Tag lines."""
    parts = [t.split("-") for t in tags]
    if not parts or any(len(p) != 3 for p in parts):
        raise RepackError(f"unexpected wheel tags {tags}")
    columns = [sorted({p[i] for p in parts}) for i in range(3)]
    if len(columns[0]) * len(columns[1]) * len(columns[2]) != len(set(tags)):
        raise RepackError(f"wheel tags {tags} do not compress into one file name")
    return "-".join(".".join(c) for c in columns)


def _script_names(dist: Distribution) -> set[str]:
    """Launchers the installer generates from entry points (not in the wheel)."""
    return {ep.name for ep in dist.entry_points if ep.group in ("console_scripts", "gui_scripts")}


def _arcname(rel: str, site: Path, data_dir: str, scripts: Path, prefix: Path) -> str | None:
    """Where an installed file sits in the wheel (None: written by the installer, not shipped)."""
    if "__pycache__/" in rel or rel.endswith(".pyc"):
        return None
    if not rel.startswith("../"):
        return rel
    target = Path(os.path.normpath(site / rel))
    for scheme, root in (("scripts", scripts), ("data", prefix)):
        try:
            return f"{data_dir}/{scheme}/{target.relative_to(root).as_posix()}"
        except ValueError:
            continue
    raise RepackError(f"{rel} lies outside the environment")


def _members(dist: Distribution, info: Path) -> list[tuple[Member, str | None]]:
    site = info.parent
    paths = sysconfig.get_paths()
    scripts, prefix = Path(paths["scripts"]), Path(paths["data"])
    data_dir = info.name[: -len(".dist-info")] + ".data"
    launchers = _script_names(dist)
    out = []
    for f in dist.files or ():
        rel = f.as_posix()
        if rel.startswith(info.name + "/") and rel.split("/", 1)[1] in INSTALLER_FILES:
            continue
        arc = _arcname(rel, site, data_dir, scripts, prefix)
        if arc is None or (arc.startswith(f"{data_dir}/scripts/") and Path(arc).name in launchers):
            continue
        source = Path(os.path.normpath(site / rel))
        out.append((Member(arc, source, bool(source.exists() and source.stat().st_mode & 0o111)),
                    f.hash.value if f.hash else None))
    return out


def _payload(member: Member, expected: str | None, scripts: Path) -> bytes:
    try:
        data = member.source.read_bytes()
    except OSError as exc:
        raise RepackError(f"{member.source} is listed in RECORD but cannot be read ({exc.strerror})") from exc
    if expected is not None and _b64_sha256(data) != expected:
        raise RepackError(f"{member.source} was changed after it was installed (its sha256 differs from RECORD)")
    if "/scripts/" in member.arcname and data.startswith(b"#!"):
        first, _, rest = data.partition(b"\n")
        if Path(first[2:].decode(errors="replace").strip()).parent == scripts:
            data = b"#!python\n" + rest   # undo the installer's shebang rewrite (wheel spec)
    return data


def wheel_name(dist: Distribution, tags: list[str]) -> str:
    name = re.sub(r"[-_.]+", "_", dist.metadata["Name"]).lower()
    return f"{name}-{dist.version}-{compressed_tag(tags)}.whl"


def repack(dist: Distribution, dest: Path) -> Path:
    """Write the wheel ``dist`` was installed from into ``dest``; RepackError if it cannot be faithful."""
    info = _dist_info(dist)
    wheel_meta = (info / "WHEEL").read_text(encoding="utf-8") if (info / "WHEEL").is_file() else ""
    out = Path(dest) / wheel_name(dist, wheel_tags(wheel_meta))
    scripts = Path(sysconfig.get_paths()["scripts"])
    files = sorted(((m, _payload(m, h, scripts)) for m, h in _members(dist, info)),
                   key=lambda mp: (mp[0].arcname.startswith(info.name + "/"), mp[0].arcname))
    record = "".join(f"{m.arcname},sha256={_b64_sha256(d)},{len(d)}\n" for m, d in files)
    record += f"{info.name}/RECORD,,\n"
    tmp = out.with_name(out.name + ".part")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zf:
        for member, data in files:
            _write(zf, member.arcname, data, 0o755 if member.executable else 0o644)
        _write(zf, f"{info.name}/RECORD", record.encode(), 0o644)
    tmp.replace(out)
    return out


def _write(zf: zipfile.ZipFile, arcname: str, data: bytes, mode: int) -> None:
    entry = zipfile.ZipInfo(arcname, date_time=ZIP_TIME)
    entry.compress_type = zipfile.ZIP_DEFLATED
    entry.external_attr = (0o100000 | mode) << 16
    zf.writestr(entry, data)
