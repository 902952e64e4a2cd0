"""What a running build is at, read from its output: ``[12/48]`` from ninja, ``[ 45%]`` from make.

Why: compiling CUDA ops takes minutes to hours; a spinner that shows nothing else for that long looks
frozen. ``torch.utils.cpp_extension`` builds with ninja, whose every line starts with ``[done/total]``;
CMake-driven builds (through make) print ``[ NN%]``. The live display shows that step next to the
elapsed time, and a bar where the total is known.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class BuildStep:
    shown: str                  # "[12/48]"
    done: int
    total: int


_FROM_UV = r"^\s*(?:DEBUG\s+)?"     # ``uv pip install -v`` streams a build's lines as ``DEBUG <line>``

# (the build tool, its progress prefix); the first that matches a line wins
STEP_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("ninja", re.compile(rf"{_FROM_UV}\[(?P<done>\d+)/(?P<total>\d+)\]\s")),
    ("make", re.compile(rf"{_FROM_UV}\[\s*(?P<percent>\d{{1,3}})%\]\s")),
)


def build_step(line: str) -> BuildStep | None:
    """The step a build output line reports, or ``None`` for any other line."""
    for _tool, pattern in STEP_RULES:
        m = pattern.match(line)
        if m is None:
            continue
        if m.groupdict().get("percent") is not None:
            percent = int(m.group("percent"))
            return BuildStep(f"[{percent}%]", percent, 100)
        done, total = int(m.group("done")), int(m.group("total"))
        return BuildStep(f"[{done}/{total}]", done, total)
    return None


def follower(advance: Any) -> Callable[[str], None]:
    """An ``on_line`` for ``run_streamed`` that moves the progress row ``advance`` to each step it reads."""
    shown = getattr(advance, "detail", None)     # the quiet/log stand-in has no row to show it on

    def on_line(line: str) -> None:
        step = build_step(line)
        if step is not None and shown is not None:
            shown(step.shown)
            advance(step.done - advance.row.done, total=step.total)

    return on_line
