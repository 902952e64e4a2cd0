"""What a translated output still says in English: runs of three or more English words.

Code, paths, URLs, file names, flags and their metavars are not sentences and are left out first
(`...`, quoted text, anything with a slash, a dot inside a word or a leading ``-``, words in
capitals such as FILE or GPU), as are the commands torchenv tells the user to run; what remains
of a Chinese line should hold no English phrase.
"""
from __future__ import annotations

import re

_NOT_WORDS = re.compile(r"`[^`]*`|(?<!\w)'[^']*'(?!\w)|\"[^\"]*\"|[^\s，。；：（）]*[/\\][^\s，。；：（）]*|\S+\.\S+"
                        r"|(?<![\w-])--?[A-Za-z][\w-]*|\b[A-Z][A-Z0-9]+\b")
_COMMANDS = ("torchenv run -- python", "torchenv cluster probe")
_PHRASE = re.compile(r"\b[A-Za-z]+(?: +[A-Za-z]+){2,}\b")


def english_left(text: str) -> list[str]:
    """The English phrases left in ``text``, line by line (``[]`` when it is all translated)."""
    found = []
    for line in text.splitlines():
        for command in _COMMANDS:
            line = line.replace(command, "")
        found += _PHRASE.findall(_NOT_WORDS.sub(" ", line))
    return found
