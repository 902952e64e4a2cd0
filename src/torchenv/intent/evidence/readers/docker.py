"""Dockerfile bases: ``FROM pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime``, ``FROM nvidia/cuda:12.1.0-devel``.

Why weakest: a base image is the recipe of one container, often older than the project's own
files; it speaks only when nothing else states the stack. Its ``RUN pip install`` lines are
commands like any other.
"""
from __future__ import annotations

import re

from ..model import Record
from .commands import INSTALL, read_command
from .specs import python_records, tier_or_none

_FROM = re.compile(r"^\s*FROM\s+(?:--platform=\S+\s+)?(\S+)", re.IGNORECASE)
_PYTORCH = re.compile(r"(?:docker\.io/)?pytorch/pytorch:(\d+\.\d+(?:\.\d+)?)-cuda(\d+\.\d+)", re.IGNORECASE)
_PYTHON = re.compile(r"(?:docker\.io/)?(?:library/)?python:(3\.\d+)", re.IGNORECASE)
_NVIDIA = re.compile(r"(?:[\w.-]+/)?nvidia/cuda:(\d+\.\d+)", re.IGNORECASE)


def read_dockerfile(text: str, file: str) -> list[Record]:
    from .prose import logical_lines

    out: list[Record] = []
    for no, line in logical_lines(text.splitlines()):
        m = _FROM.match(line)
        if m:
            image = m.group(1)
            torch = _PYTORCH.match(image)
            cuda = torch or _NVIDIA.match(image)
            if torch:
                out.append(Record(file, no, "version", f"=={torch.group(1)}", "image", line.strip()))
            tier = tier_or_none(cuda.group(2) if torch else cuda.group(1)) if cuda else None
            if tier:
                out.append(Record(file, no, "cuda", tier, "image", line.strip()))
            python = _PYTHON.match(image)
            if python:
                out += python_records(python.group(1), file, no, "image", line.strip())
        elif line.lstrip().upper().startswith("RUN"):
            for cmd in INSTALL.finditer(line):
                out += [r for r in read_command(cmd.group(0), file, no, "image") if r.field != "python"]
    return out
