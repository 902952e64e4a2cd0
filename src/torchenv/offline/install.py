"""``torchenv up --offline [--from BUNDLE.tar|DIR]``: install a lock target with no network at all.

Why check everything first: on an air-gapped machine a missing wheel cannot be fetched
later, so every file of the target is found and hash-checked (cache, bundle, loose folder)
*before* the env, the lock or the project is touched; the user gets the full list of what
is missing or different, each with the target that needs it.

``torchenv up --offline`` is the normal ``up`` orchestration (``flows.up.run_up``), forced
frozen; it calls in here for the offline steps:
* ``prepare_offline(target, from_path=, plan_sources=, ui=)``: the check, and the restricted
  ``Sources`` (local folders only, no torch index, no PyPI) plus a target whose conda URLs
  point at the local files; ``up`` then installs with those sources.
* ``no_network()``, ``borrowed_project``/``adopt_project_files`` (below), ``no_lock_error``.

A bundle whose project has no torchenv.toml/lock yet (a fresh folder) lends its own: they
are copied in only after the check passed.
"""
from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import LockError
from ..i18n import _

if TYPE_CHECKING:
    from ..lockfile.model import LockTarget
    from ..sources.model import Sources
    from ..ui import Ui

OFFLINE_ENV = "TORCHENV_OFFLINE"


def __getattr__(name: str) -> Any:
    """``OfflineIncomplete`` is built on first use: ``torchenv up`` imports this module for its
    flags, and the no-op ``up`` must not pay for ``offline.layout`` (tarfile)."""
    if name == "OfflineIncomplete":
        return _incomplete_class()
    raise AttributeError(name)


@lru_cache(maxsize=1)
def _incomplete_class() -> type:
    from .layout import BundleError

    class OfflineIncomplete(BundleError):
        """Files a target needs are missing or differ from the lock: refused before any change."""

        exit_code = 2

    OfflineIncomplete.__module__ = __name__
    return OfflineIncomplete


@dataclass(frozen=True)
class OfflinePrep:
    sources: Sources
    target: LockTarget             # conda URLs rewritten to the local files (digest unchanged)
    files: dict[str, Path]
    notes: tuple[str, ...]


def _bundle_simple(from_path: Path | None) -> Path | None:
    from .layout import SIMPLE, Bundle

    if from_path is None or not from_path.is_dir():
        return None
    bundle = Bundle(from_path)
    simple = bundle.root / SIMPLE
    return simple if simple.is_dir() else None


def offline_sources(found: dict[str, Path], from_path: Path | None, plan_sources: Sources | None) -> Sources:
    """Sources with nothing remote: the folders holding the found files, the bundle's own index."""
    from .. import paths
    from ..sources.model import PypiSide, Sources

    cache = paths.wheel_cache().resolve()
    dirs = sorted({str(p.parent) for name, p in found.items()
                   if name.endswith(".whl") and cache not in p.resolve().parents})
    simple = _bundle_simple(from_path) or (paths.cache_dir() / "offline-empty-index")
    pypi = PypiSide(index_url=simple.resolve().as_uri(), origin="offline (bundle/cache only)")
    canonical = plan_sources.canonical_torch if plan_sources is not None else Sources(torch=()).canonical_torch
    return Sources(torch=(), pypi=pypi, wheelhouses=tuple(dirs), conda_mirrors={}, canonical_torch=canonical,
                   reasons=("offline: every file from the artifact cache or " + (str(from_path) if from_path else
                            "nothing else (no --from)") + ", hash-checked against torchenv.lock",))


def adopt_built_wheels(from_path: Path, ui: Any) -> None:
    """The bundle's wheels built against torch (``built/``), each checked against its manifest, into the built-wheel
    cache: the offline ``up`` installs them without a compiler run."""
    import hashlib

    from ..backends.torchbuild import adopt_built
    from .layout import BUILT, Bundle, BundleError

    bundle = Bundle(from_path)
    if not bundle.has_manifest():
        return
    listed = {rel: entry for rel, entry in bundle.manifest()["files"].items() if rel.startswith(BUILT + "/")}
    got = bundle.read_many(sorted(listed)) if listed else {}
    for rel, data in got.items():
        if hashlib.sha256(data).hexdigest() != listed[rel].get("sha256"):
            raise BundleError(_("{path}: {rel} differs from the bundle's manifest").format(path=from_path, rel=rel),
                              hint=_("the bundle is damaged; make it again with `torchenv bundle`"))
    added = adopt_built({rel.removeprefix(BUILT + "/"): data for rel, data in got.items()})
    if added and ui is not None:
        ui.step(_("{count} wheel(s) built against torch taken from the bundle (no compile)").format(count=added))


def prepare_offline(target: LockTarget, *, from_path: Path | None, plan_sources: Sources | None = None,
                    ui: Any = None) -> OfflinePrep:
    """Find and hash-check every file of ``target``; ``OfflineIncomplete`` lists all problems."""
    from .layout import BundleError
    from .localdir import locate_target

    from_path = Path(from_path) if from_path else None
    if from_path is not None and not from_path.exists():
        raise BundleError(_("{path}: no such bundle or folder").format(path=from_path),
                          hint=_("pass the tar made by `torchenv bundle`, its unpacked folder, or a folder of wheels"))
    located = locate_target(target, from_path, ui)
    if from_path is not None:
        adopt_built_wheels(from_path, ui)
    if located.problems:
        head = located.problems[:12]
        more = _("\n  … and {count} more").format(count=len(located.problems) - 12) if len(located.problems) > 12 else ""
        raise _incomplete_class()(
            _("cannot install target {target} offline: {count} file(s) missing or different (nothing was changed):"
              "\n  {files}").format(target=target.name, count=len(located.problems), files="\n  ".join(head)) + more,
            url=str(from_path) if from_path else None,
            hint=_("make a bundle for this target where there is network (`torchenv bundle --target {target}`), or "
                   "add the listed files to the folder; files must match torchenv.lock").format(target=target.name))
    conda = tuple(dataclasses.replace(c, url=located.found[c.url.rsplit("/", 1)[-1]].resolve().as_uri())
                  for c in target.conda)
    local_target = dataclasses.replace(target, conda=conda)
    notes = (_("{cached} file(s) from the cache, {found} from {folder}").format(
        cached=located.from_cache, found=located.from_source, folder=from_path) if from_path
        else _("{cached} file(s) from the cache").format(cached=located.from_cache),)
    return OfflinePrep(offline_sources(located.found, from_path, plan_sources), local_target,
                       dict(located.found), notes)


@contextmanager
def no_network() -> Iterator[None]:
    """Tell every tool in this process and its children to stay offline (uv, pip, torchenv's fetch)."""
    keys = {OFFLINE_ENV: "1", "UV_OFFLINE": "1", "PIP_NO_INDEX": "1"}
    saved = {k: os.environ.get(k) for k in keys}
    os.environ.update(keys)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


# -- the whole `up --offline` ---------------------------------------------------------------------
_PROJECT_FILES_MAX = 64


def borrowed_project(project_dir: Path, from_path: Path | None, tmp: Path) -> Path | None:
    """A folder with the bundle's torchenv.toml/lock/requirements when the project has neither file."""
    from ..lockfile.model import LOCK_FILE
    from .layout import CONDA, FILES, MANIFEST, SIMPLE, TOOL, Bundle

    if (project_dir / LOCK_FILE).exists() or (project_dir / "torchenv.toml").exists() or from_path is None:
        return None
    if not (from_path.is_file() or (from_path.is_dir() and Bundle(from_path).has_manifest())):
        return None
    bundle = Bundle(from_path)
    reserved = (f"{FILES}/", f"{SIMPLE}/", f"{CONDA}/", f"{TOOL}/")
    wanted = [rel for rel in bundle.manifest()["files"]
              if not rel.startswith(reserved) and rel != MANIFEST and ".." not in rel.split("/")]
    if LOCK_FILE not in wanted:
        return None
    for rel, data in bundle.read_many(wanted[:_PROJECT_FILES_MAX]).items():
        dest = tmp / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(data)
    return tmp


def adopt_project_files(src: Path, project_dir: Path, ui: Ui) -> None:
    from ..lockfile.io import write_text_atomic

    for f in sorted(p for p in src.rglob("*") if p.is_file()):
        rel = f.relative_to(src)
        dest = project_dir / rel
        if not dest.exists():
            write_text_atomic(dest, f.read_text(encoding="utf-8"))
    ui.step(_("copied the bundle's torchenv.toml, torchenv.lock and requirement files into {path}").format(
        path=project_dir))


def no_lock_error(lock_path: Path, from_path: Path | None, plan: Any) -> LockError:
    """No torchenv.lock here or in the bundle: say what a lock needs, and what the folder lacks."""
    problems = []
    if from_path is not None and from_path.is_dir():
        from .localdir import check_dir_against_plan

        problems = check_dir_against_plan(from_path, plan)
    listing = _("; the folder lacks:\n  {files}").format(files="\n  ".join(problems)) if problems else ""
    return LockError(_("{path}: no lock file, and an offline install cannot resolve one").format(path=lock_path)
                     + listing,
                     hint=_("run `torchenv lock --target {target}` (or `torchenv bundle`) where there is network and "
                            "copy torchenv.lock (or the bundle) here").format(target=plan.target_name))
