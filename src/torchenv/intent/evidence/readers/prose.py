"""README / INSTALL / docs pages: the install commands a person is told to type, and "Python 3.10 is required".

Why prose counts: many projects state their stack only there (``pip install torch==2.1.2 --index-url
.../cu121``, ``conda create -n x python=3.8 pytorch==1.10.1 cudatoolkit=11.3``). A command under a
heading or beside words for another machine (ROCm, Apple silicon, CPU only, Windows) serves that
machine, so its record carries that ``target`` and is kept apart.
"""
from __future__ import annotations

import re

from ..model import ANY, Record, said
from .commands import INSTALL, TORCH_BACKEND_VAR, read_command
from .specs import python_records, requirement_records

_PYTHON_PROSE = re.compile(
    r"python\s*(?:version\s*)?(?:(>=|==|≥)\s*)?(3\.\d{1,2})(\+|\s*or\s+(?:higher|newer|later|above))?"
    r"[^.\n]{0,40}?\b(?:is\s+)?(?:required|recommended|needed)|"
    r"(?:requires?|needs?)\s+python\s*(>=|==|≥)?\s*(3\.\d{1,2})(\+)?", re.IGNORECASE)
# words of a nearby heading or line that say which machine a command is for
_TARGET_WORDS = (("rocm", re.compile(r"\brocm\b|\bamd\b", re.IGNORECASE)),
                 ("macos", re.compile(r"\bmac\s?os\b|apple silicon|\bmps\b|\bm[1-4]\b", re.IGNORECASE)),
                 ("npu", re.compile(r"\bascend\b|\bnpu\b", re.IGNORECASE)),
                 ("xpu", re.compile(r"\bintel\s+(?:gpu|arc)\b|\bxpu\b", re.IGNORECASE)),
                 ("cpu", re.compile(r"\bcpu[\s-]?only\b|\bcpuonly\b|\bwithout (?:a )?gpu\b", re.IGNORECASE)))
_OURS = re.compile(r"\bcuda\b|\bnvidia\b|\blinux\b|\bgpu\b(?![\s-]?only)", re.IGNORECASE)
_CONTEXT_LINES = 3


def read_prose(text: str, file: str) -> list[Record]:
    lines = text[:200_000].splitlines()
    out: list[Record] = []
    for no, line in logical_lines(lines):
        target, context = _target(lines, no)
        aside = bool(_ASIDE.search(context))
        found: list[Record] = []
        for m in INSTALL.finditer(line):
            found += read_command(m.group(0), file, no, "command", target)
        if TORCH_BACKEND_VAR.search(line) and not INSTALL.search(line):
            found += read_command(line, file, no, "command", target)
        out += [_set_aside(r) for r in found] if aside else found
        if not INSTALL.search(line):
            out += _stated(line, file, no, target)
    return out


def logical_lines(lines: list[str]) -> list[tuple[int, str]]:
    """(first line number, text) with shell continuations (``\\`` at the end) joined."""
    out: list[tuple[int, str]] = []
    joining = False
    for no, line in enumerate(lines, 1):
        if joining and out:
            out[-1] = (out[-1][0], out[-1][1].rstrip().rstrip("\\") + " " + line.strip())
        else:
            out.append((no, line))
        joining = line.rstrip().endswith("\\")
    return out


def _stated(line: str, file: str, no: int, target: str) -> list[Record]:
    """Words, not commands: "Python 3.10 is required", "(3.8 recommended)", "PyTorch >= 1.8.0"."""
    out: list[Record] = []
    for m in _PYTHON_PROSE.finditer(line):
        op, release, plus = (m.group(1), m.group(2), m.group(3)) if m.group(2) else \
            (m.group(4), m.group(5), m.group(6))
        spec = f">={release}" if plus or op in (">=", "≥") else release
        out += python_records(spec, file, no, "command", m.group(0), target)
    if not out and re.search(r"\bpython\b", line, re.IGNORECASE):
        said = _RECOMMENDED.search(line)
        if said:
            out += python_records(said.group(1), file, no, "command", said.group(0), target)
    for m in _TORCH_PROSE.finditer(line):       # a floor in words ("PyTorch >= 1.8"); an exact version in words
        name = m.group(1).lower().replace("pytorch", "torch")       # ("produced with torch==1.8.0") asks nothing
        out += requirement_records(f"{name}>={m.group(2)}", file, no, "command", m.group(0), target)
    return out


def _set_aside(r: Record) -> Record:
    return Record(r.file, r.line, r.field, r.value, "ignored", r.seen, r.target,
                  why=said("init.readme_optional"))


_RECOMMENDED = re.compile(r"\(?(3\.\d{1,2})\s+(?:is\s+)?recommended")
_TORCH_PROSE = re.compile(r"\b((?:py)?torch|torchvision|torchaudio)\]?(?:\([^)\s]*\))?\s*(?:>=|≥)\s*"
                          r"(\d+\.\d+(?:\.\d+)?)", re.IGNORECASE)
_ASIDE = re.compile(r"\(optional\)|#\s*optional|\boptional(?:ly)?\b|for example|another example|\be\.g\.",
                    re.IGNORECASE)


def _target(lines: list[str], no: int) -> tuple[str, str]:
    """(the machine the words on the line or its heading name, those words): "### ROCm", "On Apple silicon:".
    The context runs up from the line to its heading, or a few lines when there is none."""
    window = [lines[no - 1]]
    for back in range(no - 2, max(-1, no - 2 - _CONTEXT_LINES * 2), -1):
        above = lines[back]
        window.append(above)
        if above.lstrip().startswith("#") or re.fullmatch(r"[=\-~^]{3,}", lines[back + 1].strip()):
            break
        if len(window) > _CONTEXT_LINES and not above.strip():
            break
    text = " ".join(window)
    if _OURS.search(text):
        return ANY, text
    for target, words in _TARGET_WORDS:
        if words.search(text):
            return target, text
    return ANY, text
