"""Who decided each word of the intent the resolver works from: the project, the user, or torchenv.

Why: a reason that says "asked for" must be true. A value written in torchenv.toml is the
project's (file:line); a flag is the user's; a followed lock is the project's lock; a value a
fallback tried is torchenv's own rule, and the reason says which one.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..intent.model import Intent


def who(intent: Intent, key: str) -> str:
    """``"the project (torchenv.toml:3)"``, ``"the user (--cuda)"``, ``"torchenv (fallback: ...)"``."""
    for k, by in intent.origins:
        if k == key:
            return by
    if intent.file is not None:
        line = _line(intent, key)
        if line is not None:
            return f"the project ({intent.file.name}:{line})"
    return "the caller"


def _line(intent: Intent, key: str) -> int | None:
    from ..intent.locate import key_lines

    assert intent.file is not None
    try:
        text = intent.file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return key_lines(text).get(tuple(key.split(".")))


def asked(who_text: str) -> bool:
    """Did a person ask (the project or the user), rather than torchenv's own rule?"""
    return not who_text.startswith("torchenv")
