"""README / INSTALL / docs pages: the install commands a person is told to type, and "Python 3.10 is required".

Why prose counts: many projects state their stack only there (``pip install torch==2.1.2 --index-url
.../cu121``, ``conda create -n x python=3.8 pytorch==1.10.1 cudatoolkit=11.3``). A command under a
heading or beside words for another machine (ROCm, Apple silicon, CPU only, Windows) serves that
machine, so its record carries that ``target`` and is kept apart.
"""
from __future__ import annotations

import re

from ..model import ANY, Record
from .commands import _BACKEND, INSTALL, read_command
from .specs import python_records

_PYTHON_PROSE = re.compile(
    r"python\s*(?:version\s*)?(?:(>=|==|≥)\s*)?(3\.\d{1,2})(\+|\s*or\s+(?:higher|newer|later|above))?"
    r"[^.\n]{0,40}?\b(?:is\s+)?(?:required|recommended|needed)|"
    r"(?:requires?|needs?)\s+python\s*(>=|==|≥)?\s*(3\.\d{1,2})(\+)?", re.IGNORECASE)
# words of a nearby heading or line that say which machine a command is for
_TARGET_WORDS = (("rocm", re.compile(r"\brocm\b|\bamd\b", re.IGNORECASE)),
                 ("macos", re.compile(r"\bmac\s?os\b|apple silicon|\bmps\b|\bm[1-4]\b", re.IGNORECASE)),
                 ("npu", re.compile(r"\bascend\b|\bnpu\b", re.IGNORECASE)),
                 ("xpu", re.compile(r"\bintel\s+(?:gpu|arc)\b|\bxpu\b", re.IGNORECASE)))
_OURS = re.compile(r"\bcuda\b|\bnvidia\b|\blinux\b", re.IGNORECASE)
_CONTEXT_LINES = 3


def read_prose(text: str, file: str) -> list[Record]:
    lines = text[:200_000].splitlines()
    out: list[Record] = []
    for no, line in enumerate(lines, 1):
        target = _target(lines, no)
        for m in INSTALL.finditer(line):
            out += read_command(m.group(0), file, no, "command", target)
        if _BACKEND.search(line) and not INSTALL.search(line):
            out += read_command(line, file, no, "command", target)
        for m in _PYTHON_PROSE.finditer(line):
            op, release, plus = (m.group(1), m.group(2), m.group(3)) if m.group(2) else \
                (m.group(4), m.group(5), m.group(6))
            spec = f">={release}" if plus or op in (">=", "≥") else release
            out += python_records(spec, file, no, "command", m.group(0), target)
    return out


def _target(lines: list[str], no: int) -> str:
    """The machine the words on the line, or its heading (or the lines just above, up to a blank line) name:
    "### ROCm", "On Apple silicon:"."""
    window = [lines[no - 1]]
    for back in range(no - 2, max(-1, no - 2 - _CONTEXT_LINES * 2), -1):
        above = lines[back]
        if not above.strip() and not window[-1].lstrip().startswith(("#", "=", "-")) and len(window) > 2:
            break
        window.append(above)
        if above.lstrip().startswith("#") or (back + 1 < len(lines) and re.fullmatch(r"[=\-~^]{3,}", lines[back + 1])):
            break
    text = " ".join(window)
    if _OURS.search(text):
        return ANY
    for target, words in _TARGET_WORDS:
        if words.search(text):
            return target
    return ANY
