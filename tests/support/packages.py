"""Fake but valid wheels and PEP 503 index trees for tests.

Why valid: installers (uv, pip) and torchenv's own METADATA readers must accept them,
so a wheel has METADATA, WHEEL and a RECORD with correct hashes.
"""
from __future__ import annotations

import base64
import hashlib
import html
import re
import shutil
import zipfile
from pathlib import Path
from urllib.parse import quote


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def make_wheel(directory: Path | str, name: str, version: str, tag: str = "py3-none-any",
               requires: list[str] | tuple[str, ...] = (), *, payload: int = 0,
               requires_python: str | None = None, extra_files: dict[str, str] | None = None) -> Path:
    """Write ``<name>-<version>-<tag>.whl`` into ``directory`` and return its path.

    ``make_wheel(d, "torch", "2.4.1+cu121", tag="cp311-cp311-linux_x86_64",
    requires=["filelock"])``. The package imports as ``name`` (``-`` -> ``_``) and has
    ``__version__ = version``. ``payload`` adds that many incompressible bytes (stored, not
    deflated), for download/throughput tests. ``extra_files``: more files (path in the wheel -> text),
    e.g. ``{"torch/version.py": "cuda = None\n"}``.
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    dist = re.sub(r"[-_.]+", "_", name)
    module = dist.lower()
    info = f"{dist}-{version}.dist-info"
    metadata = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    if requires_python:
        metadata.append(f"Requires-Python: {requires_python}")
    metadata += [f"Requires-Dist: {r}" for r in requires]
    files: dict[str, bytes] = {
        f"{module}/__init__.py": f'__version__ = "{version}"\n'.encode(),
        f"{info}/METADATA": ("\n".join(metadata) + "\n").encode(),
        f"{info}/WHEEL": (f"Wheel-Version: 1.0\nGenerator: torchenv-tests\nRoot-Is-Purelib: "
                          f"{'true' if tag.endswith('-none-any') else 'false'}\nTag: {tag}\n").encode(),
    }
    files.update({p: text.encode() for p, text in (extra_files or {}).items()})
    if payload:
        seed = hashlib.sha256(f"{name}{version}{tag}".encode()).digest()
        blocks = bytearray()
        while len(blocks) < payload:
            seed = hashlib.sha256(seed).digest()
            blocks += seed
        files[f"{module}/_payload.bin"] = bytes(blocks[:payload])
    record = "".join(f"{p},{_record_hash(d)},{len(d)}\n" for p, d in files.items()) + f"{info}/RECORD,,\n"
    files[f"{info}/RECORD"] = record.encode()
    path = directory / f"{dist}-{version}-{tag}.whl"
    with zipfile.ZipFile(path, "w") as zf:
        for p, d in files.items():
            method = zipfile.ZIP_STORED if p.endswith("_payload.bin") else zipfile.ZIP_DEFLATED
            info_ = zipfile.ZipInfo(p, date_time=(2024, 1, 1, 0, 0, 0))
            info_.compress_type = method
            info_.external_attr = 0o644 << 16
            zf.writestr(info_, d)
    return path


def sha256_of(path: Path | str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def wheel_metadata(path: Path | str) -> bytes:
    """The ``*.dist-info/METADATA`` member of a wheel, as an index serves it in ``<file>.metadata``."""
    with zipfile.ZipFile(path) as zf:
        return zf.read(next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA")))


def build_index(root: Path | str, projects: dict[str, list[Path]], *, hashes: bool = True,
                metadata: bool = False) -> Path:
    """A PEP 503 tree under ``root``: ``simple/<project>/index.html`` + ``files/<file>``.

    Files are copied into ``root/files``; hrefs carry ``#sha256=`` fragments (unless
    ``hashes=False``) and write ``+`` as ``%2B``, as real indexes do. ``metadata=True``: each
    wheel's METADATA is also written as ``files/<file>.metadata`` and its link carries
    ``data-core-metadata="sha256=..."`` (PEP 658/714), as PyPI's pages do. Returns
    ``root/simple``; serve ``root`` with ``serve_dir`` and use ``base + "/simple"``, or
    use the returned path directly as a local index.
    """
    root = Path(root)
    simple, files = root / "simple", root / "files"
    files.mkdir(parents=True, exist_ok=True)
    simple.mkdir(parents=True, exist_ok=True)
    names = []
    for project, wheels in projects.items():
        norm = _norm(project)
        names.append(norm)
        links = []
        for wheel in wheels:
            wheel = Path(wheel)
            target = files / wheel.name
            if wheel.resolve() != target.resolve():
                shutil.copyfile(wheel, target)
            frag = f"#sha256={sha256_of(target)}" if hashes else ""
            href = html.escape(f"../../files/{quote(wheel.name)}{frag}")
            extra = ""
            if metadata and wheel.name.endswith(".whl"):
                meta = files / f"{wheel.name}.metadata"
                meta.write_bytes(wheel_metadata(target))
                extra = f' data-core-metadata="sha256={sha256_of(meta)}"'
            links.append(f'    <a href="{href}"{extra}>{html.escape(wheel.name)}</a><br/>')
        (simple / norm).mkdir(exist_ok=True)
        (simple / norm / "index.html").write_text(
            f"<!DOCTYPE html>\n<html><body>\n<h1>Links for {norm}</h1>\n" + "\n".join(links)
            + "\n</body></html>\n", encoding="utf-8")
    root_links = "\n".join(f'<a href="{n}/">{n}</a><br/>' for n in sorted(names))
    (simple / "index.html").write_text(f"<!DOCTYPE html>\n<html><body>\n{root_links}\n</body></html>\n",
                                       encoding="utf-8")
    return simple
