"""Who decided each word of the intent the resolver works from: the project, the user, or torchenv.

Why: a reason that says "asked for" must be true. A value written in torchenv.toml is the
project's (file:line); a flag is the user's; a followed lock is the project's lock; a value a
fallback tried is torchenv's own rule, and the reason says which one.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..reasons import CALLER, PROJECT, Reason, reason

if TYPE_CHECKING:
    from ..intent.model import Intent


def who(intent: Intent, key: str) -> Reason:
    """``"the project (torchenv.toml:3)"``, ``"the user (--cuda)"``, ``"torchenv (fallback: ...)"``: a reason
    whose ``decided_by`` says which of them."""
    for k, by in intent.origins:
        if k == key:
            return by if isinstance(by, Reason) else reason("who.recorded", text=by)
    if intent.file is not None:
        line = _line(intent, key)
        if line is not None:
            return reason("who.project", PROJECT, where=f"{intent.file.name}:{line}")
    return reason("who.caller", CALLER)


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
    if isinstance(who_text, Reason):
        return who_text.decided_by != "torchenv"
    return not who_text.startswith("torchenv")
