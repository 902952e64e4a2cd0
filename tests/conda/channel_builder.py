"""Build real conda packages (``.conda`` and ``.tar.bz2``) into a local channel, then index it.

Why hand-made: conda channels are unreachable here and no conda-build exists, yet the engine
must be tested against real archives (rattler validates sha256, extracts, rewrites prefix
placeholders). The ``torch_channel`` layout mimics conda-forge's pytorch packaging (see
shared/reference/conda-engine.md §4.2): ``cuda-version`` with ``constrains: __cuda >=12``, a
CUDA ``pytorch`` build depending on ``__cuda`` with build number +200, a CPU build, the
``pytorch-gpu``/``pytorch-cpu`` metapackages, ``cuda-nvcc`` per CUDA version and ``libfoo``
carrying a prefix placeholder.
"""
from __future__ import annotations

import asyncio
import hashlib
import io
import json
import os
import tarfile
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

PLACEHOLDER = "/opt/anaconda1anaconda2anaconda3"
_TS = 1_700_000_000_000  # ms; rattler's solver requires a timestamp by default


@dataclass
class Pkg:
    name: str
    version: str
    build: str = "0"
    build_number: int = 0
    subdir: str = "linux-64"
    depends: list[str] = field(default_factory=list)
    constrains: list[str] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)        # path -> text content
    placeholder_files: tuple[str, ...] = ()                      # files whose text holds PLACEHOLDER
    symlinks: dict[str, str] = field(default_factory=dict)      # path -> target
    fmt: str = ".conda"                                          # .conda | .tar.bz2

    @property
    def stem(self) -> str:
        return f"{self.name}-{self.version}-{self.build}"


def _tar_bytes(members: dict[str, bytes], symlinks: dict[str, str], mode: str) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=mode) as tf:
        for path, data in sorted(members.items()):
            info = tarfile.TarInfo(path)
            info.size, info.mtime = len(data), 1_700_000_000
            info.mode = 0o755 if path.startswith("bin/") else 0o644
            tf.addfile(info, io.BytesIO(data))
        for path, target in sorted(symlinks.items()):
            info = tarfile.TarInfo(path)
            info.type, info.linkname, info.mtime = tarfile.SYMTYPE, target, 1_700_000_000
            tf.addfile(info)
    return buf.getvalue()


def _zstd_tar(members: dict[str, bytes], symlinks: dict[str, str]) -> bytes:
    import zstandard

    return zstandard.ZstdCompressor().compress(_tar_bytes(members, symlinks, "w"))


def build_package(pkg: Pkg, channel: Path) -> Path:
    """Write one package archive into ``channel/<subdir>/`` and return its path."""
    payload = {p: c.encode() for p, c in pkg.files.items()}
    index = {"name": pkg.name, "version": pkg.version, "build": pkg.build,
             "build_number": pkg.build_number, "depends": pkg.depends, "constrains": pkg.constrains,
             "subdir": pkg.subdir, "timestamp": _TS, "license": "BSD-3-Clause"}
    if pkg.subdir == "noarch":
        index["noarch"] = "generic"
    else:
        index["platform"], index["arch"] = pkg.subdir.split("-")[0], "x86_64"
    entries = []
    for path, data in sorted(payload.items()):
        entry = {"_path": path, "path_type": "hardlink", "sha256": hashlib.sha256(data).hexdigest(),
                 "size_in_bytes": len(data)}
        if path in pkg.placeholder_files:
            entry.update(prefix_placeholder=PLACEHOLDER, file_mode="text")
        entries.append(entry)
    entries += [{"_path": p, "path_type": "softlink", "sha256": "0" * 64, "size_in_bytes": 0}
                for p in sorted(pkg.symlinks)]
    info = {"info/index.json": json.dumps(index, indent=2).encode(),
            "info/paths.json": json.dumps({"paths": entries, "paths_version": 1}, indent=2).encode(),
            "info/files": "".join(f"{p}\n" for p in sorted([*payload, *pkg.symlinks])).encode()}
    if pkg.placeholder_files:
        info["info/has_prefix"] = "".join(f"{PLACEHOLDER} text {p}\n" for p in pkg.placeholder_files).encode()
    out_dir = channel / pkg.subdir
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / (pkg.stem + pkg.fmt)
    if pkg.fmt == ".tar.bz2":
        out.write_bytes(_tar_bytes({**info, **payload}, pkg.symlinks, "w:bz2"))
    else:
        with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED) as zf:
            zf.writestr("metadata.json", json.dumps({"conda_pkg_format_version": 2}))
            zf.writestr(f"pkg-{pkg.stem}.tar.zst", _zstd_tar(payload, pkg.symlinks))
            zf.writestr(f"info-{pkg.stem}.tar.zst", _zstd_tar(info, {}))
    return out


def index_channel(channel: Path) -> None:
    """repodata.json per subdir, written by rattler's own indexer (what real channels serve)."""
    from rattler.index import index_fs

    (channel / "noarch").mkdir(parents=True, exist_ok=True)
    asyncio.run(index_fs(channel, write_zst=False, write_shards=False, force=True))


def build_channel(channel: Path, packages: list[Pkg]) -> Path:
    for pkg in packages:
        build_package(pkg, channel)
    index_channel(channel)
    return channel


def python_package(version: str = "3.12.1", real_interpreter: str | None = None) -> Pkg:
    """A ``python`` stand-in. With ``real_interpreter`` (a base CPython ``bin/pythonX.Y``), the
    package ships a venv-style interpreter (``bin/python`` symlink + ``pyvenv.cfg``), so the
    prefix it lands in has a working Python for the wheel half of hybrid mode."""
    mm = ".".join(version.split(".")[:2])
    files = {f"lib/python{mm}/site-packages/README.txt": "site-packages of the fake python\n"}
    symlinks: dict[str, str] = {}
    if real_interpreter:
        home = os.path.dirname(real_interpreter)
        files["pyvenv.cfg"] = f"home = {home}\ninclude-system-site-packages = false\nversion = {version}\n"
        symlinks = {"bin/python": real_interpreter, f"bin/python{mm}": "python", "bin/python3": "python"}
    else:
        files[f"bin/python{mm}"] = "#!/bin/sh\necho fake python\n"
    short = mm.replace(".", "")
    return Pkg("python", version, f"h0_0_cp{short}", depends=[f"python_abi {mm}.* *_cp{short}"],
               files=files, symlinks=symlinks)


def torch_channel(channel: Path, *, python: Pkg | None = None, legacy: bool = False) -> Path:
    """A conda-forge-shaped channel with pytorch 2.5.1 (CUDA 12.6 and CPU builds) and friends."""
    py = python or python_package()
    mm = ".".join(py.version.split(".")[:2])
    short = mm.replace(".", "")
    pyreq = [f"python {mm}.*", f"python_abi {mm}.* *_cp{short}"]
    pkgs = [
        py,
        Pkg("python_abi", mm, f"8_cp{short}", subdir="linux-64", fmt=".tar.bz2"),
        Pkg("libfoo", "1.0", "h0_0", files={"etc/libfoo.conf": f"prefix={PLACEHOLDER}\n",
                                              "lib/libfoo.txt": "binary-ish payload\n"},
            placeholder_files=("etc/libfoo.conf",)),
        Pkg("pytorch", "2.5.1", f"cpu_generic_py{short}_h0_0", 0, depends=[*pyreq, "libfoo >=1.0"],
            constrains=["pytorch-gpu <0.0a0"], files={"lib/torch_cpu.txt": "cpu build\n"}),
        Pkg("pytorch-cpu", "2.5.1", "cpu_generic_h0_0", subdir="noarch", fmt=".tar.bz2",
            depends=["pytorch 2.5.1 cpu_*"]),
        Pkg("pytorch-gpu", "2.5.1", "cuda_generic_h0_200", 200, subdir="noarch", fmt=".tar.bz2",
            depends=["pytorch 2.5.1 cuda*"]),
        Pkg("conda-only-tool", "0.1", "h0_0", subdir="noarch", fmt=".tar.bz2",
            files={"share/conda-only-tool/README": "a noarch data package\n"}),
    ]
    for cuda in ("12.6", "12.8"):
        major = cuda.split(".")[0]
        pkgs += [
            Pkg("cuda-version", cuda, "h0_3", 3, subdir="noarch", fmt=".tar.bz2",
                constrains=[f"__cuda >={major}", f"cudatoolkit {cuda}|{cuda}.*"]),
            Pkg("cuda-nvcc", f"{cuda}.85", "h0_0", depends=[f"cuda-version {cuda}.*"],
                files={"bin/nvcc": f"#!/bin/sh\necho 'Cuda compilation tools, release {cuda}'\n"}),
        ]
    pkgs.append(Pkg("pytorch", "2.5.1", f"cuda126_generic_py{short}_h0_200", 200,
                    depends=[*pyreq, "libfoo >=1.0", "__cuda", "cuda-version >=12.6,<13"],
                    constrains=["pytorch-cpu <0.0a0"], files={"lib/torch_cuda.txt": "cuda 12.6 build\n"}))
    if legacy:
        pkgs += [
            Pkg("pytorch-mutex", "1.0", "cuda", subdir="noarch", fmt=".tar.bz2"),
            Pkg("pytorch-mutex", "1.0", "cpu", subdir="noarch", fmt=".tar.bz2"),
            Pkg("pytorch-cuda", "12.4", "h0_0", subdir="noarch", fmt=".tar.bz2", depends=["pytorch-mutex 1.0 cuda"]),
            Pkg("cpuonly", "2.0", "0", subdir="noarch", fmt=".tar.bz2", depends=["pytorch-mutex 1.0 cpu"]),
        ]
    return build_channel(channel, pkgs)


if __name__ == "__main__":  # pragma: no cover - manual use: python channel_builder.py DIR
    import sys

    t0 = time.perf_counter()
    print(torch_channel(Path(sys.argv[1])), f"{time.perf_counter() - t0:.2f}s")
