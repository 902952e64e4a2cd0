"""One statement a project makes about its stack (``Record``) and how much it weighs.

Why this order: a lock is what was actually installed; an exact pin in a file the project
installs is what its users get; an install command in prose is what a person is told to type;
a range only bounds; a Dockerfile base is a build recipe for one image; an import says only
that a package is used.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...reasons import Reason

# kind -> strength (higher wins); "tag" is a local version tag (+cu121) in a file the project installs,
# which names the build exactly and so beats that file's index URL
# "ignored" is a statement read and not counted (its ``why`` says why): it never decides
STRENGTH = {"ignored": 0, "lock": 7, "tag": 6, "pin": 5, "command": 4, "range": 3, "image": 2, "import": 1}
# how init says each kind to a person (texts.py holds the same words for translation)
def said(id: str, **params: Any) -> Reason:
    """A sentence of what ``init`` found (``reason_catalogue``, ``init.*``): English as text, shown in the user's
    language, carried as data by ``init --json``; decided by the project's files."""
    from ...reasons import PROJECT, reason

    return reason(id, PROJECT, **params)


def kind_words(kind: str) -> Reason:
    """What kind of evidence a record is ("exact pin"), as a sentence: ``init.kind_<kind>`` of the catalogue."""
    return said(f"init.kind_{kind}")
FIELDS = ("version", "cuda", "python", "with", "requirements")
ANY = "any"


@dataclass(frozen=True)
class Record:
    file: str                   # "requirements.txt", "README.md", "pyproject.toml [project] dependencies"
    line: int | None            # 1-based, when known
    field: str                  # one of FIELDS
    value: str                  # "==2.4.1", "cu121", "3.10", ">=3.9,<3.13", "torchvision", "requirements.txt"
    kind: str                   # a key of STRENGTH
    seen: str = ""              # the text that was read
    target: str = ANY           # the machine it serves: "any", "linux", "windows", "macos", "cuda", "rocm", ...
    why: str = ""               # for kind "ignored": why it does not count

    @property
    def strength(self) -> int:
        return STRENGTH[self.kind]

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}" if self.line else self.file

    def to_json(self) -> dict[str, object]:
        return {"file": self.file, "line": self.line, "field": self.field, "value": self.value,
                "kind": self.kind, "strength": self.strength, "seen": self.seen, "target": self.target,
                **({"why": self.why} if self.why else {})}


@dataclass(frozen=True)
class Decision:
    """The value one field takes, the record that decided it, and the records set aside (with why)."""
    field: str
    value: str | None
    by: Record | None
    agree: tuple[Record, ...] = ()
    set_aside: tuple[tuple[Record, str], ...] = ()
    candidates: tuple[str, ...] = ()    # cuda: the project's tiers when it names several

    def to_json(self) -> dict[str, object]:
        return {"field": self.field, "value": self.value, "by": self.by.to_json() if self.by else None,
                "candidates": list(self.candidates),
                "set_aside": [{"record": r.to_json(), "why": why} for r, why in self.set_aside]}
