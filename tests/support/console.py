"""CLI text as a user reads it, whatever width the console wrapped it at.

Why one helper: the console wraps a long line at a space and folds a word longer than the line (a temp path,
a URL) inside the word. Collapsing whitespace (``" ".join(text.split())``) undoes the first but turns the
second into a space inside the path, so a test matching a path or a phrase passed or failed with the length
of the machine's temp folder. ``unwrapped(text)`` matches a phrase across any line break the console may
have put in it, and nowhere else::

    said = unwrapped(ran.err)
    assert f"{project / 'torchenv.toml'}:3" in said and "expected a string" in said
    said[:120]                     # the text, whitespace collapsed: for messages and the reliability table
"""
from __future__ import annotations

import functools
import re

_BREAK = r"(?:[ \t]*\n[ \t]*)?"        # where the console may have broken a word across lines


class Unwrapped(str):
    """The text with whitespace runs collapsed; ``phrase in it`` looks through the console's line breaks."""

    raw: str

    def __new__(cls, text: str) -> Unwrapped:
        self = super().__new__(cls, " ".join(text.split()))
        self.raw = text
        return self

    def __contains__(self, phrase: object) -> bool:
        if not isinstance(phrase, str):
            raise TypeError(f"'in <Unwrapped>' requires a string, not {type(phrase).__name__}")
        return _pattern(phrase).search(self.raw) is not None


def unwrapped(text: str) -> Unwrapped:
    """``text`` (a command's output, an error's message) with the console's wrapping taken out."""
    return Unwrapped(text)


@functools.lru_cache(maxsize=4096)
def _pattern(phrase: str) -> re.Pattern[str]:
    """``phrase`` as a regex: a space matches any whitespace, and between two other characters a line break
    (with the indentation around it) may stand."""
    words = phrase.split()
    if not words:
        return re.compile(re.escape(phrase))
    body = r"\s+".join(_BREAK.join(re.escape(ch) for ch in word) for word in words)
    lead, trail = (r"\s+" if end.isspace() else "" for end in (phrase[0], phrase[-1]))
    return re.compile(lead + body + trail)
