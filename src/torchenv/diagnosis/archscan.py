"""Read the CUDA architectures a torch build carries from its shared libraries, without loading them.

Why from bytes: ``torch.cuda.get_arch_list()`` needs ``import torch`` and a working CUDA, which is
exactly what is broken when doctor runs. The list is a plain string in the binary (``CUDA_ARCH_FLAGS``,
e.g. ``sm_50 sm_60 ... sm_90``, or ``-gencode;arch=compute_90,code=sm_90`` flags). The scan is
bounded (bytes and chunks) so a 1 GB libtorch_cuda.so costs well under a second, and it is preferred
over the knowledge-base table because it also covers source builds and index variants whose PTX
status the tables do not know.
"""
from __future__ import annotations

import re
from pathlib import Path

_TOKEN = rb"(?:sm|compute)_\d{2,3}[af]?"
#: two or more arch tokens in a row: the CUDA_ARCH_FLAGS string (space or ';' separated)
_RUN = re.compile(rb"(?<![A-Za-z0-9_])" + _TOKEN + rb"(?:[ ;,]+" + _TOKEN + rb")+")
_GENCODE = re.compile(rb"arch=compute_(\d{2,3}[af]?),code=\[?((?:(?:sm|compute)_\d{2,3}[af]?,?)+)\]?")
_SINGLE = re.compile(rb"\x00(" + _TOKEN + rb")\x00")

CHUNK = 8 << 20
OVERLAP = 4096
MAX_BYTES = 1536 << 20      # never read more than this from one file


def _sort_key(tok: str) -> tuple[int, int, str]:
    kind, _, num = tok.partition("_")
    digits = "".join(c for c in num if c.isdigit())
    return (int(digits or 0), 0 if kind == "sm" else 1, tok)


def parse_arch_text(text: str) -> tuple[str, ...]:
    """Arch tokens from a flags string (``sm_80 sm_90 compute_90`` or gencode form), sorted and unique."""
    found: set[str] = set()
    for m in _GENCODE.finditer(text.encode()):
        for code in m.group(2).decode().split(","):
            if code:
                found.add(code)
    if not found:
        found.update(re.findall(_TOKEN.decode(), text))
    return tuple(sorted(found, key=_sort_key))


def scan_file(path: Path, max_bytes: int = MAX_BYTES) -> tuple[str, ...]:
    """The longest arch-flags run found in the first ``max_bytes`` of ``path`` (empty when none)."""
    best: bytes = b""
    gencode: set[str] = set()
    single: set[str] = set()
    try:
        with open(path, "rb") as fh:
            read = 0
            tail = b""
            while read < max_bytes:
                chunk = fh.read(min(CHUNK, max_bytes - read))
                if not chunk:
                    break
                read += len(chunk)
                buf = tail + chunk
                for m in _RUN.finditer(buf):
                    if len(m.group(0)) > len(best):
                        best = m.group(0)
                for m in _GENCODE.finditer(buf):
                    gencode.update(c.decode() for c in m.group(2).split(b",") if c)
                for m in _SINGLE.finditer(buf):
                    single.add(m.group(1).decode())
                tail = buf[-OVERLAP:]
    except OSError:
        return ()
    if best:
        return parse_arch_text(best.decode("ascii", "replace"))
    if gencode:
        return tuple(sorted(gencode, key=_sort_key))
    return tuple(sorted(single, key=_sort_key)) if len(single) == 1 else ()


def scan_torch_lib(lib_dir: Path) -> tuple[tuple[str, ...], str]:
    """Archs from torch's own libraries, smallest first; returns (archs, the file they came from)."""
    for name in ("libtorch_python.so", "libtorch_cuda.so", "torch_cuda.dll", "torch_python.dll"):
        candidate = lib_dir / name
        if candidate.is_file():
            archs = scan_file(candidate)
            if archs:
                return archs, str(candidate)
    return (), ""


def runs_on(archs: tuple[str, ...] | list[str], cc: tuple[int, int]) -> bool:
    """Can code compiled for ``archs`` run on a GPU of compute capability ``cc``?

    SASS ``sm_XY`` runs on the same major with minor >= Y; ``sm_90a``-style arch-specific code only on
    exactly 9.0; PTX ``compute_XY`` JIT-compiles for any CC >= X.Y (compat.md §2d).
    """
    major, minor = cc
    for tok in archs:
        kind, _, num = tok.partition("_")
        suffix = num[-1] if num and num[-1] in "af" else ""
        digits = num[:-1] if suffix else num
        if not digits.isdigit() or len(digits) < 2:
            continue
        a_major, a_minor = int(digits[:-1]), int(digits[-1])
        if kind == "sm":
            if suffix == "a" and (a_major, a_minor) != (major, minor):
                continue
            if a_major == major and a_minor <= minor:
                return True
        elif kind == "compute" and not suffix and (a_major, a_minor) <= (major, minor):
            return True
    return False
