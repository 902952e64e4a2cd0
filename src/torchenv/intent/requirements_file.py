"""pip's requirements-file format, read the way pip reads it (stdlib only).

Why one reader for ``init`` and ``up``: both must agree on what a line means. pip's own
rules are the spec (``pip/_internal/req/req_file.py``): ``\\`` joins lines, ``#`` after
whitespace starts a comment, a line starting with ``-`` is a file option (``-r``, ``-c``,
``-e``, ``--index-url``...), and anything else is a requirement whose first token starting
with ``-`` begins its per-requirement options (``--hash=sha256:...`` from pip-compile,
``--index-url URL``, ``--config-settings``). Stdlib only, because the no-op ``up`` reads the
requirements too and must start fast.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

# file option -> the kind of line it makes; options not listed here are "option"
_FILE_OPTIONS = {
    "-r": "include", "--requirement": "include",
    "-c": "constraint", "--constraint": "constraint",
    "-e": "editable", "--editable": "editable",
    "-i": "index", "--index-url": "index", "--extra-index-url": "index",
    "-f": "find-links", "--find-links": "find-links",
}
_COMMENT = re.compile(r"(^|\s+)#.*$")


@dataclass(frozen=True)
class ReqLine:
    line: int                                   # first physical line (1-based)
    kind: str        # requirement | include | constraint | editable | index | find-links | option
    text: str                                   # the requirement without its options, or the option's value
    option: str = ""                            # the file option as written ("-r", "--index-url"), "" for a requirement
    options: tuple[tuple[str, str], ...] = ()   # a requirement's own options: (("--hash", "sha256:..."), ...)

    def values(self, *names: str) -> list[str]:
        """Values of this requirement's options named ``names`` (e.g. "--index-url", "-i")."""
        return [value for name, value in self.options if name in names]


def logical_lines(text: str) -> list[tuple[int, str]]:
    """(first line number, text): ``\\`` continuations joined, comments and blank lines dropped."""
    out: list[tuple[int, str]] = []
    buf, start = "", 0
    for no, line in enumerate(text.splitlines(), start=1):
        if not buf:
            start = no
        if line.endswith("\\") and not _COMMENT.search(line[:-1]):
            buf += line[:-1] + " "
            continue
        buf = _COMMENT.sub("", buf + line).strip()
        if buf:
            out.append((start, buf))
        buf = ""
    buf = _COMMENT.sub("", buf).strip()
    if buf:
        out.append((start, buf))
    return out


def parse_requirements_text(text: str) -> list[ReqLine]:
    """Every meaningful line of a requirements file, classified."""
    return [_classify(no, line) for no, line in logical_lines(text)]


def _classify(no: int, line: str) -> ReqLine:
    if line.startswith("-"):
        option, value = _split_option(line)
        return ReqLine(no, _FILE_OPTIONS.get(option, "option"), value, option=option)
    tokens = line.split(" ")
    cut = next((i for i, tok in enumerate(tokens) if tok.startswith("-")), len(tokens))
    requirement = " ".join(tokens[:cut]).strip()
    return ReqLine(no, "requirement", requirement, options=_pairs(" ".join(tokens[cut:])))


def _split_option(line: str) -> tuple[str, str]:
    """``-r x.txt`` / ``-rx.txt`` / ``--requirement=x.txt`` -> ("-r"/"--requirement", "x.txt")."""
    m = re.match(r"(--[A-Za-z][\w-]*)(?:=|\s+|$)(.*)", line) or re.match(r"(-[A-Za-z])\s*(.*)", line)
    if not m:
        return line, ""
    return m.group(1), m.group(2).strip()


def _pairs(text: str) -> tuple[tuple[str, str], ...]:
    """``--hash=sha256:a --hash sha256:b --index-url URL`` -> (("--hash", "sha256:a"), ...)."""
    import shlex

    try:
        tokens = shlex.split(text)
    except ValueError:
        tokens = text.split()
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if "=" in tok and tok.startswith("--"):
            name, _, value = tok.partition("=")
        elif i + 1 < len(tokens) and not tokens[i + 1].startswith("-"):
            name, value = tok, tokens[i + 1]
            i += 1
        else:
            name, value = tok, ""
        out.append((name, value))
        i += 1
    return tuple(out)


def is_the_project_itself(editable: str, file_dir: Path, project: Path) -> bool:
    """``-e .`` / ``-e .[dev]`` / ``-e file:.`` (or ``-e ..`` from ``requirements/``): the project itself."""
    target = re.sub(r"^file:(//)?", "", editable.strip()).split("[", 1)[0] or "."
    if "://" in target or target.startswith("git+"):
        return False
    return (file_dir / target).resolve() == project.resolve()


# the byte-order marks pip's ``auto_decode`` looks for, longest first (UTF-32 LE starts like UTF-16 LE)
_BOMS = ((b"\xef\xbb\xbf", "utf-8"), (b"\xff\xfe\x00\x00", "utf-32-le"), (b"\x00\x00\xfe\xff", "utf-32-be"),
         (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"))


def decode_requirements(raw: bytes) -> str:
    """A requirements file's text as pip reads it: a BOM names the encoding (PowerShell's ``>`` writes UTF-16
    with one), else UTF-8. Raises ``UnicodeDecodeError`` like ``bytes.decode``."""
    for bom, encoding in _BOMS:
        if raw.startswith(bom):
            return raw[len(bom):].decode(encoding)
    return raw.decode("utf-8")


_REQUIREMENT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*\s*(\[[^\]]*\]\s*)?(\(?\s*([<>=!~]=?|===|@|;)|;|$)")
_LOCATED = re.compile(r"\.{0,2}/|~|[A-Za-z][\w+.-]*://|[\w.+-]+\.(whl|zip|tar\.gz|tgz|tar\.bz2)$")


def looks_like_requirement(text: str) -> bool:
    """A PEP 508 requirement or a location pip installs (path, URL, archive): what a requirements line holds.

    Why plain text: an included file that is not a requirements file (``-r /etc/passwd``) is caught
    as it is read, before any download; ``packaging`` would cost the no-op ``up`` its start-up.
    """
    return bool(_REQUIREMENT.match(text) or _LOCATED.match(text))
