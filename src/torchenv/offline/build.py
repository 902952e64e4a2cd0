"""``torchenv bundle``: everything a lock's targets need, in one tar, for a machine with no network.

Why collect through ``sources.fetch``: the same hash-checked path ``up`` uses (cache first,
local folders in place, then mirrors, then the canonical URL), so a bundle made in China
through a mirror holds exactly the bytes the lock pins. The tar is written to a temp file
beside the output and renamed, so a half-written bundle never carries the final name.
Members get fixed owners and mtimes: the same lock gives a bundle with the same manifest.
"""
from __future__ import annotations

import hashlib
import os
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..errors import LockError
from ..i18n import _
from .layout import BUILT, CONDA, FILES, MANIFEST, TOOL, BundleError, stem

if TYPE_CHECKING:
    from collections.abc import Callable
    from contextlib import AbstractContextManager

    from ..intent.model import Intent
    from ..lockfile.model import LockedCondaPackage, LockTarget
    from ..options import BundleOptions, SourceOverrides
    from ..sources.model import Sources
    from ..ui import Ui

MTIME = 1_700_000_000   # fixed member mtime (2023-11-14); SOURCE_DATE_EPOCH overrides


@dataclass
class Artifact:
    rel: str                          # path inside the bundle: files/x.whl, conda/linux-64/y.conda
    filename: str
    sha256: str
    record: Any                       # LockedWheel | LockedCondaPackage
    targets: list[str] = field(default_factory=list)
    path: Path | None = None          # local, hash-checked file once collected


@dataclass(frozen=True)
class BundleResult:
    path: Path
    size: int
    files: int
    targets: tuple[str, ...]
    tool: bool


class _QuietFetchUi:
    """Passes fetch's mirror warnings on, but not its per-file bars (one live display at a time)."""

    def __init__(self, ui: Ui) -> None:
        self.ui = ui

    def warn(self, text: str) -> None:
        self.ui.warn(text)

    def progress(self, *_a: Any, **_k: Any) -> AbstractContextManager[Callable[..., None]]:
        from contextlib import nullcontext

        return nullcontext(lambda n=1, total=None: None)


def default_output(project_dir: Path) -> Path:
    return Path.cwd() / f"{project_dir.name or 'torchenv'}-bundle.tar"


def choose_targets(lock: Any, names: list[str] | None, lock_path: Path) -> list[LockTarget]:
    if not names:
        if not lock.targets:
            raise LockError(_("{lock_path} has no targets").format(lock_path=lock_path),
                            hint=_("run `torchenv lock` first"))
        return list(lock.targets)
    out = []
    for name in names:
        target = lock.target(name)
        if target is None:
            have = ", ".join(t.name for t in lock.targets) or "none"
            raise LockError(_("{lock_path} has no target {name} (it has: {have})").format(
                                lock_path=lock_path, name=name, have=have),
                            hint=_("add it with `torchenv lock --target {name}`, then bundle again").format(
                                     name=name))
        out.append(target)
    return out


def collect_plan(targets: list[LockTarget]) -> list[Artifact]:
    """One Artifact per distinct file of the targets; a name with two hashes is a broken lock."""
    by_rel: dict[str, Artifact] = {}
    for t in targets:
        items: list[tuple[str, str, Any]] = [(f"{FILES}/{w.filename}", w.filename, w)
                                             for w in (*t.wheels, *t.build_tools)]
        for c in t.conda:
            fn = c.url.rsplit("/", 1)[-1]
            items.append((f"{CONDA}/{c.subdir}/{fn}", fn, c))
        for rel, fn, rec in items:
            known = by_rel.get(rel)
            if known is None:
                by_rel[rel] = known = Artifact(rel, fn, rec.sha256.lower().removeprefix("sha256:"), rec)
            elif known.sha256 != rec.sha256.lower().removeprefix("sha256:"):
                raise LockError(_("{file} has sha256 {sha}… in target {target} but {other_sha}… in target "
                                  "{other_target}").format(file=fn, sha=known.sha256[:12], target=known.targets[0],
                                                           other_sha=rec.sha256[:12], other_target=t.name),
                                hint=_("two builds share one file name; re-lock with `torchenv lock`"))
            if t.name not in known.targets:
                known.targets.append(t.name)
    return sorted(by_rel.values(), key=lambda a: a.rel)


def built_members(targets: list[LockTarget]) -> list[tuple[str, Path]]:
    """The cached wheels built against torch from the targets' sdists: carried so the offline machine, which
    may have no compiler, never compiles."""
    from ..backends.torchbuild import built_for
    from ..engines.base import SDIST_SUFFIXES

    sources = {w.sha256 for t in targets for w in t.wheels if w.filename.endswith(SDIST_SUFFIXES)}
    return [(f"{BUILT}/{rel}", path) for rel, path in built_for(sources)] if sources else []


def _conda_candidates(pkg: LockedCondaPackage, sources: Sources) -> list[str]:
    out = []
    for prefix, mirrors in (sources.conda_mirrors or {}).items():
        base = prefix.rstrip("/") + "/"
        if pkg.url.startswith(base):
            out += [m.rstrip("/") + "/" + pkg.url[len(base):] for m in mirrors]
    return [*dict.fromkeys([*out, pkg.url])]


def fetch_artifact(art: Artifact, sources: Sources, ui: Any) -> Path:
    """A hash-checked local copy: cache / local folders first, then the plan's mirrors, then the lock's URL."""
    from ..errors import HashMismatch, SourceError
    from ..sources.fetch import fetch

    rec = art.record
    if hasattr(rec, "build"):
        return fetch(art.filename, art.sha256, _conda_candidates(rec, sources), ui=ui)
    from ..sources.locate import local_candidates, remote_candidates

    try:
        return fetch(art.filename, art.sha256, local_candidates(sources, rec))
    except HashMismatch:
        raise
    except SourceError:
        pass
    return fetch(art.filename, art.sha256, remote_candidates(sources, rec, ui), ui=ui)


def _sources_for(target: LockTarget, intent: Any, overrides: SourceOverrides) -> Sources:
    from ..sources.select import select_sources

    return select_sources(intent, tier=target.tier, platform=f"{target.os}-{target.arch}", overrides=overrides)


def _sha_size(path: Path) -> tuple[str, int]:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest(), path.stat().st_size


def project_files(project_dir: Path, intent: Any) -> list[tuple[str, Path]]:
    """torchenv.toml, torchenv.lock and the requirement files the intent reads, relative to the project."""
    from ..intent.project_requirements import gather
    from ..lockfile.model import LOCK_FILE

    out = [(n, project_dir / n) for n in ("torchenv.toml", LOCK_FILE) if (project_dir / n).is_file()]
    try:
        reqs, _warnings = gather(intent, project_dir)
    except Exception:
        reqs = []
    for f in dict.fromkeys(Path(r.file).resolve() for r in reqs):
        try:
            out.append((f.relative_to(project_dir).as_posix(), f))
        except ValueError:
            continue   # outside the project: not ours to carry
    return list(dict(out).items())


def _without_logins(path: Path, copy: Path) -> Path:
    """``path``, or a copy of it with URL logins dropped: a bundle travels, a login must not."""
    from ..redaction import strip_secrets_in_text

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return path
    clean = strip_secrets_in_text(text)
    if clean == text:
        return path
    copy.parent.mkdir(parents=True, exist_ok=True)
    copy.write_text(clean, encoding="utf-8")
    return copy


def _read_lock_to_bundle(project_dir: Path) -> tuple[Path, Any]:
    """The project's lock path and lock; a clear error when there is none to bundle."""
    from ..lockfile.io import read_lock
    from ..lockfile.model import LOCK_FILE

    lock_path = project_dir / LOCK_FILE
    if not lock_path.is_file():
        raise LockError(_("{lock_path}: no lock file to bundle").format(lock_path=lock_path),
                        hint=_("run `torchenv lock` (add `--target NAME` for the offline machine), then bundle"))
    return lock_path, read_lock(lock_path)


def _bundle_path(options: BundleOptions, project_dir: Path) -> Path:
    """Where the tar goes: ``--output`` (``.tar`` added unless it names a tar already), else the default name."""
    out = options.output or default_output(project_dir)
    return out if out.name.endswith((".tar", ".tar.gz", ".tgz")) else out.with_name(out.name + ".tar")


def _fetch_all(arts: list[Artifact], sources: dict[str, Sources], targets: list[LockTarget],
               ui: Ui) -> dict[str, Path]:
    """Bundle path (Artifact.rel) -> the local, hash-checked file; each artifact also gets its ``path``."""
    quiet = _QuietFetchUi(ui)
    fetched: dict[str, Path] = {}
    with ui.progress(f"collecting {len(arts)} files for {', '.join(t.name for t in targets)}", total=len(arts)) as advance:
        for art in arts:
            art.path = fetched[art.rel] = fetch_artifact(art, sources[art.targets[0]], quiet)
            advance(1)
    return fetched


def _index_members(stage: Path, arts: list[Artifact]) -> dict[str, Path]:
    """The PEP 503 pages over the bundle's wheels, so pip and uv install from it with ``--index-url file://``."""
    from .indexes import write_simple_index

    wheels = [a for a in arts if a.rel.startswith(FILES + "/")]
    pages = write_simple_index(stage, [(a.record.name, a.filename, a.sha256) for a in wheels])
    return {page.relative_to(stage).as_posix(): page for page in pages}


def _conda_members(stage: Path, arts: list[Artifact], fetched: dict[str, Path],
                   ui: Ui) -> tuple[dict[str, Path], str | None]:
    """repodata.json per subdir for the bundle's conda packages, and how it was made (None without conda files)."""
    from .. import paths
    from .indexes import conda_repodata

    conda = [a for a in arts if a.rel.startswith(CONDA + "/")]
    if not conda:
        return {}, None
    repodata, repodata_how = conda_repodata([(a.record, fetched[a.rel]) for a in conda],
                                            work_dir=paths.cache_dir() / "tmp", ui=ui)
    members: dict[str, Path] = {}
    for sub, data in repodata.items():
        f = stage / CONDA / sub / "repodata.json"
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_bytes(data)
        members[f"{CONDA}/{sub}/repodata.json"] = f
    return members, repodata_how


def _tool_members(stage: Path, targets: list[LockTarget], sources: dict[str, Sources], ui: Ui) -> dict[str, Path]:
    """torchenv's own wheels for each target's platform and Python, so the offline machine can install torchenv."""
    from .tool import build_tool_wheels

    pairs = [(f"{t.os}-{t.arch}", t.python) for t in targets]
    first = next(iter(sources.values()))
    return {f"{TOOL}/{f.name}": f for f in build_tool_wheels(stage / TOOL, pairs, pypi=first.pypi, ui=ui)}


def make_bundle(project_dir: Path, intent: Intent, options: BundleOptions, ui: Ui) -> BundleResult:
    """Pack every file of the lock's targets (``options.targets``, default all) into one tar.

    ``intent``: the project's, as ``up`` reads it (the caller loads it: ``flows.stages.load_intent``).
    """
    import json

    from .manifest import manifest_data

    project_dir = Path(project_dir).resolve()
    lock_path, lock = _read_lock_to_bundle(project_dir)
    targets = choose_targets(lock, list(options.targets) or None, lock_path)
    sources = {t.name: _sources_for(t, intent, options.sources) for t in targets}
    arts = collect_plan(targets)
    out = _bundle_path(options, project_dir)
    fetched = _fetch_all(arts, sources, targets, ui)

    with tempfile.TemporaryDirectory(prefix="torchenv-bundle-") as tmp:
        stage = Path(tmp)
        members = {rel: _without_logins(path, stage / "project" / rel)
                   for rel, path in project_files(project_dir, intent)}
        members.update(_index_members(stage, arts))
        conda_members, repodata_how = _conda_members(stage, arts, fetched, ui)
        members.update(conda_members)
        if options.tool:
            members.update(_tool_members(stage, targets, sources, ui))
        members.update(dict(built_members(targets)))
        hashes = {rel: _sha_size(p) for rel, p in members.items()}
        for a in arts:
            hashes[a.rel] = (a.sha256, fetched[a.rel].stat().st_size)
            members[a.rel] = fetched[a.rel]
        extra = {"lock_sha256": _sha_size(lock_path)[0], "conda_repodata": repodata_how}
        manifest = stage / MANIFEST
        manifest.write_text(json.dumps(manifest_data(hashes, targets=[t.name for t in targets], extra=extra),
                                       indent=1, sort_keys=True) + "\n")
        size = write_tar(out, stem(out), [(MANIFEST, manifest), *sorted(members.items())], ui)
    ui.step(f"wrote {out} ({human_size(size)}; {len(hashes)} files; targets {', '.join(t.name for t in targets)})")
    return BundleResult(out, size, len(hashes), tuple(t.name for t in targets), options.tool)


def _normalise(info: tarfile.TarInfo) -> tarfile.TarInfo:
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    info.mtime = int(os.environ.get("SOURCE_DATE_EPOCH", MTIME))
    info.mode = 0o755 if info.isdir() else 0o644
    return info


def write_tar(out: Path, top: str, members: list[tuple[str, Path]], ui: Any) -> int:
    """Write ``members`` under ``top/`` into ``out`` atomically; ``.tar.gz``/``.tgz`` names are gzipped."""
    out.parent.mkdir(parents=True, exist_ok=True)
    mode: Literal["w:gz", "w"] = "w:gz" if out.name.endswith((".tar.gz", ".tgz")) else "w"
    fd, tmp_name = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.", suffix=".part")
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        total = sum(p.stat().st_size for _, p in members)
        with ui.progress(f"writing {out.name}", total=total, bytes_=True) as advance:
            with tarfile.open(tmp, mode, format=tarfile.PAX_FORMAT) as tf:
                top_info = tarfile.TarInfo(top)
                top_info.type = tarfile.DIRTYPE
                tf.addfile(_normalise(top_info))
                for rel, path in members:
                    info = _normalise(tf.gettarinfo(str(path), arcname=f"{top}/{rel}"))
                    if not info.isfile():
                        raise BundleError(f"{path} is not a regular file and cannot go into a bundle")
                    with open(path, "rb") as f:
                        tf.addfile(info, f)
                    advance(info.size)
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        umask = os.umask(0)
        os.umask(umask)
        tmp.chmod(0o666 & ~umask)   # mkstemp makes 0600; a bundle is meant to be copied and shared
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)
    return out.stat().st_size


def human_size(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} GB"
