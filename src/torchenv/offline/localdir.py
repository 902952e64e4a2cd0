"""Find a lock target's files offline: the artifact cache, a bundle (tar or folder), or loose files.

Why one finder for all three: a user on an air-gapped machine has some files in the cache
from an earlier install, a bundle someone copied, or a folder of wheels and ``.conda``
files they downloaded by hand. Every file is matched by name and then by sha256 against the
lock; what is missing or different is reported, all of it at once, before anything changes.

A tar bundle is streamed once: each needed member is hashed while it is copied into the
content-addressed cache (``paths.wheel_cache()``), so a later ``up --offline`` needs no
bundle at all. Wrong bytes never reach the cache.
"""
from __future__ import annotations

import hashlib
import os
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..fileio import temp_file
from ..i18n import _
from .layout import CONDA, FILES, Bundle

if TYPE_CHECKING:
    from ..lockfile.model import LockTarget
    from ..resolve.plan import Plan

ARTIFACT_SUFFIXES = (".whl", ".conda", ".tar.bz2")


@dataclass(frozen=True)
class Needed:
    filename: str
    sha256: str
    label: str                 # "torch 2.13.0+cpu" / "conda pytorch 2.5.1 (linux-64)"
    rel: str                   # where a bundle keeps it: files/x.whl, conda/linux-64/y.conda


@dataclass
class Located:
    found: dict[str, Path] = field(default_factory=dict)      # filename -> hash-checked local file
    problems: list[str] = field(default_factory=list)
    mismatched: set[str] = field(default_factory=set)         # filenames found with other bytes
    from_cache: int = 0
    from_source: int = 0


def needed(target: LockTarget) -> list[Needed]:
    out = [Needed(w.filename, w.sha256.lower().removeprefix("sha256:"), f"{w.name} {w.version}",
                  f"{FILES}/{w.filename}") for w in target.wheels]
    for c in target.conda:
        fn = c.url.rsplit("/", 1)[-1]
        out.append(Needed(fn, c.sha256.lower(), f"conda {c.name} {c.version} ({c.subdir})", f"{CONDA}/{c.subdir}/{fn}"))
    return out


def short(digest: str) -> str:
    return f"{digest[:12]}…"


def known_sha256(path: Path) -> str:
    """sha256 of a local file, remembered by (path, size, mtime) in the same memo ``fetch`` uses.

    Why share it: the completeness check hashes every file once; the install that follows
    (``fetch`` on the same path) then costs a ``stat``, not another pass over GBs of wheels.
    """
    from ..sources.fetch import verified_sha256

    return verified_sha256(path)


def cached(item: Needed) -> Path | None:
    from .. import paths

    path = paths.wheel_cache() / item.sha256[:2] / item.sha256 / item.filename
    if path.is_file():
        try:
            if known_sha256(path) == item.sha256:
                return path
        except OSError:
            return None
    return None


def index_dir(directory: Path) -> dict[str, list[Path]]:
    """Artifact files under ``directory`` by file name (``%2B`` in names written back as ``+``)."""
    out: dict[str, list[Path]] = {}
    for root, _dirs, files in os.walk(directory):
        for name in files:
            if name.endswith(ARTIFACT_SUFFIXES):
                out.setdefault(urllib.parse.unquote(name), []).append(Path(root) / name)
    return out


def _mismatch(where: str, item: Needed, got: str, target: str) -> str:
    return _("{where}: sha256 differs from torchenv.lock (expected {expected}, file has {got}), needed by target "
             "{target}").format(where=where, expected=short(item.sha256), got=short(got), target=target)


def _into_cache(path: Path, item: Needed) -> Path:
    """A verified file saved under another name (``%2B`` for ``+``): linked into the cache under its real name.

    Why: installers and ``fetch`` look files up by their index name; a hardlink costs nothing
    (a copy only when the folder is on another filesystem).
    """
    import shutil

    from .. import paths

    final = paths.wheel_cache() / item.sha256[:2] / item.sha256 / item.filename
    if not final.is_file():
        final.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = temp_file(final.parent, prefix=".partial-")
        os.close(fd)
        os.unlink(tmp)
        try:
            os.link(path, tmp)
        except OSError:
            shutil.copyfile(path, tmp)
        os.replace(tmp, final)
    return final


def locate_in_dir(items: list[Needed], directory: Path, target: str, result: Located) -> None:
    files = index_dir(directory)
    for item in items:
        bad = None
        for path in files.get(item.filename, []):
            got = known_sha256(path)
            if got == item.sha256:
                result.found[item.filename] = path if path.name == item.filename else _into_cache(path, item)
                result.from_source += 1
                bad = None
                break
            bad = _mismatch(str(path), item, got, target)
        if bad:
            result.problems.append(bad)
            result.mismatched.add(item.filename)


def import_from_tar(items: list[Needed], bundle: Bundle, target: str, result: Located, ui: Any = None) -> None:
    """Stream the tar once; hash-checked members land in the artifact cache."""
    from .. import paths

    want = {i.rel: i for i in items}
    by_name = {i.filename: i for i in items}
    root = paths.wheel_cache()
    total = sum(1 for _ in items)
    progress = ui.progress(_("reading {file}").format(file=bundle.path.name), total=total) if ui is not None else None
    advance = progress.__enter__() if progress is not None else (lambda n=1, total=None: None)
    try:
        with bundle.walk() as members:
            for member, opener in members:
                item = want.get(member.path) or by_name.get(member.path.rsplit("/", 1)[-1])
                if item is None or item.filename in result.found or not opener.regular:
                    continue
                final = root / item.sha256[:2] / item.sha256 / item.filename
                final.parent.mkdir(parents=True, exist_ok=True)
                fd, tmp = temp_file(final.parent, prefix=".partial-")
                try:
                    h = hashlib.sha256()
                    with os.fdopen(fd, "wb") as out, opener.open() as src:
                        for block in iter(lambda: src.read(1 << 20), b""):
                            out.write(block)
                            h.update(block)
                    if h.hexdigest() != item.sha256:
                        where = _("{member} in {bundle}").format(member=member.path, bundle=bundle.path.name)
                        result.problems.append(_mismatch(where, item, h.hexdigest(), target))
                        result.mismatched.add(item.filename)
                        continue
                    os.replace(tmp, final)
                finally:
                    Path(tmp).unlink(missing_ok=True)
                result.found[item.filename] = final
                result.from_source += 1
                advance(1)
    finally:
        if progress is not None:
            progress.__exit__(None, None, None)


def locate_target(target: LockTarget, from_path: Path | None, ui: Any = None) -> Located:
    """Every file of ``target`` from the cache and/or ``from_path``; problems listed, nothing changed."""
    result = Located()
    items = needed(target)
    rest = []
    for item in items:
        hit = cached(item)
        if hit is not None:
            result.found[item.filename] = hit
            result.from_cache += 1
        else:
            rest.append(item)
    if rest and from_path is not None:
        from_path = Path(from_path)
        if from_path.is_file():
            import_from_tar(rest, Bundle(from_path), target.name, result, ui)
        elif from_path.is_dir():
            locate_in_dir(rest, from_path, target.name, result)
    for item in rest:
        if item.filename not in result.found and item.filename not in result.mismatched:
            result.problems.append(
                _("missing: {label} ({file}), needed by target {target} in {folder} or the cache").format(
                    label=item.label, file=item.filename, target=target.name, folder=from_path) if from_path is not None
                else _("missing: {label} ({file}), needed by target {target} in the cache (no --from given)").format(
                    label=item.label, file=item.filename, target=target.name))
    return result


def check_dir_against_plan(directory: Path, plan: Plan) -> list[str]:
    """With no lock: are the plan's torch-family wheels (exact version and tags) in ``directory``?"""
    from ..sources.index import IndexFile, normalize
    from ..sources.locate import best_file, torch_family
    from ..sources.wheelfit import target_glibc, target_tags

    files = [IndexFile(name, p[0].as_uri(), None) for name, p in index_dir(directory).items()]
    ranking = {t: i for i, t in enumerate(target_tags(plan.python, plan.platform,
                                                             target_glibc(plan.machine, plan.platform)))}
    py = "cp" + plan.python.replace(".", "")
    plat = plan.platform.replace("-", "_")
    out = []
    for pkg in plan.packages:
        name = normalize(pkg.name)
        if name not in torch_family():
            continue
        if best_file(files, name, pkg.version, tier=plan.tier, ranking=ranking, allow_local=True) is None:
            out.append(_("missing: {name} {version} for {python} {platform} in {folder}").format(
                name=name, version=pkg.version, python=py, platform=plat, folder=directory))
    return out
