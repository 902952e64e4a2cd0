"""One install command as a person would type it: ``pip``/``uv pip``/``conda``/``mamba`` lines -> records.

Why shared: README prose, installer scripts (``TORCH_COMMAND``, ``install.sh``, ``*.bat``) and a
Dockerfile's ``RUN`` all tell the reader to type such a line; its pins, its ``--index-url`` tier,
``--torch-backend``/``UV_TORCH_BACKEND`` and conda's ``python=3.8 pytorch==1.10.1 cudatoolkit=11.3``
mean the same wherever the line is written.
"""
from __future__ import annotations

import re

from ..model import ANY, Record
from .specs import conda_records, requirement_records, tier_from_url, tier_or_none

_PIP_VALUE_OPTIONS = {"-r", "--requirement", "-c", "--constraint", "-e", "--editable", "-f", "--find-links",
                      "--target", "-t", "--prefix", "--root", "--python", "-p", "--upgrade-strategy",
                      "--extra-index-url", "-i", "--index-url", "--index", "--default-index", "--torch-backend",
                      "--trusted-host", "--platform", "--python-version", "--only-binary", "--no-binary"}
_CONDA_VALUE_OPTIONS = {"-c", "--channel", "-n", "--name", "-p", "--prefix", "--file", "-f"}
TORCH_BACKEND_VAR = re.compile(r"\bUV_TORCH_BACKEND\s*=\s*['\"]?([A-Za-z0-9.]+)")
INSTALL = re.compile(r"(?:\b(?:uv\s+)?pip3?(?:\.exe)?\s+install|\b(?:conda|mamba|micromamba)\s+(?:install|create))\b"
                     r"[^\n`]*", re.IGNORECASE)


def tokens(command: str) -> list[str]:
    import shlex

    try:
        return shlex.split(command, comments=True)
    except ValueError:
        return command.split()


def read_command(command: str, file: str, line: int | None, kind: str = "command",
                 target: str = ANY) -> list[Record]:
    """Records of one command line (it may chain several with ``&&``)."""
    out: list[Record] = []
    for m in TORCH_BACKEND_VAR.finditer(command):
        tier = tier_or_none(m.group(1))
        if tier:
            out.append(Record(file, line, "cuda", tier, kind, m.group(0), target))
    for part in re.split(r"&&|\|\||;|\|", command):
        words = tokens(part)
        low = [w.lower() for w in words]
        if "install" in low and any(w.startswith("pip") or w == "uv" for w in low[:low.index("install")]):
            out += _pip(words[low.index("install") + 1:], part.strip(), file, line, kind, target)
        elif any(w in ("conda", "mamba", "micromamba") for w in low) and ("install" in low or "create" in low):
            at = low.index("install") if "install" in low else low.index("create")
            out += _conda(words[at + 1:], part.strip(), file, line, kind, target)
    return out


def _pip(words: list[str], seen: str, file: str, line: int | None, kind: str, target: str) -> list[Record]:
    out: list[Record] = []
    skip = False
    for i, word in enumerate(words):
        if skip:
            skip = False
            continue
        if word.startswith("-"):
            name, eq, value = word.partition("=")
            if name in _PIP_VALUE_OPTIONS and not eq:
                value, skip = (words[i + 1] if i + 1 < len(words) else ""), True
            if name in ("-i", "--index-url", "--extra-index-url", "--index", "--default-index"):
                tier = tier_from_url(value)
                if tier:
                    out.append(Record(file, line, "cuda", tier, kind, seen, target))
            elif name == "--torch-backend":
                tier = tier_or_none(value)
                if tier:
                    out.append(Record(file, line, "cuda", tier, kind, seen, target))
            continue
        out += requirement_records(_wheel_requirement(word), file, line, kind, seen, target)
    return out


def _wheel_requirement(word: str) -> str:
    """A wheel URL or path (``.../torch-2.0.0%2Bcu118-cp310-...whl``) as ``torch==2.0.0+cu118``."""
    from urllib.parse import unquote

    m = re.search(r"(?:^|/)(torch|torchvision|torchaudio)-([^-/]+)-[^/]*\.whl$", unquote(word))
    return f"{m.group(1)}=={m.group(2)}" if m else word


def _conda(words: list[str], seen: str, file: str, line: int | None, kind: str, target: str) -> list[Record]:
    out: list[Record] = []
    skip = False
    for word in words:
        if skip:
            skip = False
            continue
        if word.startswith("-"):
            skip = word in _CONDA_VALUE_OPTIONS
            continue
        out += conda_records(word, file, line, kind, target) or []
    return out
