"""Index pages a bundle carries: PEP 503 ``simple/`` over ``files/``, and conda ``repodata.json``.

Why: torchenv itself installs a bundle from the lock (exact files, no index needed), but the
same bundle should serve people and tools that do not run torchenv: ``pip install
--index-url file:///.../simple`` and ``conda create --offline -c file:///.../conda`` work.

Conda repodata comes from the rattler adapter's indexer (it reads each package's own
``info/index.json``, the authoritative metadata). When that is unavailable, it is written
from the lock's records: name, version, build, subdir, sha256 are always there; build_number,
depends, constrains, md5, size, timestamp, license are copied when the lock has them, and
left out otherwise. A channel built that way installs by exact record (as torchenv does)
but a solver may see incomplete dependencies; the bundle's manifest says which way it was made.
"""
from __future__ import annotations

import html
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any
from urllib.parse import quote

_PAGE = "<!DOCTYPE html>\n<html><head><title>{title}</title></head><body>\n<h1>{title}</h1>\n{links}\n</body></html>\n"


def write_simple_index(root: Path, wheels: Iterable[tuple[str, str, str]]) -> list[Path]:
    """``root/simple/...`` for ``(project, filename, sha256)``; files are expected in ``root/files``."""
    from ..sources.index import normalize

    by_project: dict[str, list[tuple[str, str]]] = {}
    for project, filename, sha in wheels:
        by_project.setdefault(normalize(project), []).append((filename, sha))
    simple = root / "simple"
    written = []
    for project, files in sorted(by_project.items()):
        links = "\n".join(f'<a href="{html.escape(f"../../files/{quote(fn)}#sha256={sha}")}">{html.escape(fn)}</a><br/>'
                          for fn, sha in sorted(set(files)))
        page = simple / project / "index.html"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(_PAGE.format(title=f"Links for {project}", links=links), encoding="utf-8")
        written.append(page)
    top = "\n".join(f'<a href="{p}/">{p}</a><br/>' for p in sorted(by_project))
    simple.mkdir(parents=True, exist_ok=True)
    (simple / "index.html").write_text(_PAGE.format(title="Simple index", links=top), encoding="utf-8")
    return [simple / "index.html", *written]


def _record(pkg: Any) -> dict[str, Any]:
    rec: dict[str, Any] = {"name": pkg.name, "version": pkg.version, "build": pkg.build,
                           "build_number": int(getattr(pkg, "build_number", 0) or 0),
                           "depends": list(getattr(pkg, "depends", ()) or ()),
                           "constrains": list(getattr(pkg, "constrains", ()) or ()),
                           "subdir": pkg.subdir, "sha256": pkg.sha256}
    for key in ("md5", "size", "noarch", "timestamp", "license"):
        value = getattr(pkg, key, None)
        if value:
            rec[key] = value
    return rec


def repodata_from_lock(subdir: str, packages: Iterable[Any]) -> dict[str, Any]:
    """repodata.json for ``subdir`` from LockedCondaPackage-like records (see module doc for gaps)."""
    out: dict[str, Any] = {"info": {"subdir": subdir}, "packages": {}, "packages.conda": {},
                           "repodata_version": 1}
    for pkg in packages:
        filename = pkg.url.rsplit("/", 1)[-1]
        key = "packages.conda" if filename.endswith(".conda") else "packages"
        out[key][filename] = _record(pkg)
    return out


def _link_or_copy(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)


def conda_repodata(packages: list[tuple[Any, Path]], *, work_dir: Path, ui: Any = None) -> tuple[dict[str, bytes], str]:
    """``{subdir: repodata.json bytes}`` for ``(LockedCondaPackage, local file)`` pairs, and how it was made.

    Always includes ``noarch`` (conda clients require it). Tries the rattler indexer on a
    staging folder of hardlinks (``work_dir`` should be on the cache's filesystem).
    """
    subdirs = sorted({pkg.subdir for pkg, _ in packages} | {"noarch"})
    index_channel: Callable[[Path], None] | None
    try:
        from ..engines.rattler import index_channel
    except ImportError:
        index_channel = None
    if index_channel is not None and packages:
        work_dir.mkdir(parents=True, exist_ok=True)
        stage = Path(tempfile.mkdtemp(prefix="channel-", dir=work_dir))
        try:
            for pkg, path in packages:
                _link_or_copy(path, stage / pkg.subdir / pkg.url.rsplit("/", 1)[-1])
            index_channel(stage)
            out = {}
            for sub in subdirs:
                data = json.loads((stage / sub / "repodata.json").read_text())
                out[sub] = (json.dumps(data, indent=1, sort_keys=True) + "\n").encode()
            return out, "rattler index"
        except Exception as exc:
            if ui is not None:
                ui.warn(f"could not index the conda packages with the rattler engine ({exc}); "
                        "writing repodata.json from torchenv.lock's records instead")
        finally:
            from ..safety import remove_scratch

            remove_scratch(stage, inside=work_dir)
    out = {}
    for sub in subdirs:
        data = repodata_from_lock(sub, [pkg for pkg, _ in packages if pkg.subdir == sub])
        out[sub] = (json.dumps(data, indent=1, sort_keys=True) + "\n").encode()
    return out, "torchenv.lock records"
