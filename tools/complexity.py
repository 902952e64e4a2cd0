#!/usr/bin/env python3
"""Fail when too many functions of src/torchenv are too branchy to hold in one's head (radon's cyclomatic complexity).

    python tools/complexity.py             # every function above the soft limit as file:line name score;
                                           # exit 1 over the bar

Why one measure: radon counts every branch a reader has to follow, boolean operators included (`a and b or c` is two
more paths). ruff's C901 counts `if`/`for`/`while`/`except` only, so a function can pass C901 and still be a 25-way
decision. The bar (CONTRIBUTING.md, "Short functions"): at most ``MAX_OVER_SOFT`` functions above ``SOFT_LIMIT``, none
above ``HARD_LIMIT``. Methods and nested functions are counted on their own (radon does not add a closure's branches
to its parent's, so a closure must not be a place to hide them).

No function is exempt by where it lives or what it does (rendering included: a view splits into one function per
section as well as a decision does). The only allowance is ``HELD``: functions named one by one that are known to be
above the hard limit, each held to the score it has now, so it cannot grow while it waits to be split. An entry that
falls to the hard limit or below is stale and fails the check until it is removed (the function then counts like any
other); one that grows past its ceiling fails it too.
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

SOFT_LIMIT = 15  # above this a function counts against the budget below
MAX_OVER_SOFT = 10  # how many functions may sit above the soft limit
HARD_LIMIT = 20  # no function may be above this

# (path under src/torchenv, qualified name) -> the score it may not exceed while it is still above HARD_LIMIT.
# Held functions count against MAX_OVER_SOFT like every other.
HELD: dict[tuple[str, str], int] = {}


@dataclass(frozen=True)
class Score:
    """One function's complexity, with the place a reader opens to see it."""

    path: str  # relative to src/torchenv
    line: int
    name: str  # Class.method, outer.inner for a closure
    complexity: int

    def __str__(self) -> str:
        return f"src/torchenv/{self.path}:{self.line} {self.name} {self.complexity}"


def function_scores(root: Path) -> list[Score]:
    """Every function, method and closure under ``root`` with radon's score (classes are left out: a class's score is
    the sum of its methods', so it would count them twice)."""
    from radon.complexity import add_inner_blocks, cc_visit
    from radon.visitors import Function

    scores: list[Score] = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        blocks = add_inner_blocks(cc_visit(path.read_text(encoding="utf-8")))
        for block in blocks:
            if isinstance(block, Function):
                name = f"{block.classname}.{block.name}" if block.is_method else block.name
                scores.append(Score(rel, block.lineno, name, block.complexity))
    return sorted(scores, key=lambda s: (-s.complexity, s.path, s.line))


@dataclass(frozen=True)
class Verdict:
    over_soft: list[Score]  # counted against MAX_OVER_SOFT
    over_hard: list[Score]  # above HARD_LIMIT and not held, or grown past the ceiling HELD gives it
    stale: list[tuple[str, str]]  # HELD entries that name no function above HARD_LIMIT any more

    @property
    def failed(self) -> bool:
        return bool(self.over_hard) or bool(self.stale) or len(self.over_soft) > MAX_OVER_SOFT


def judge(scores: list[Score], held: dict[tuple[str, str], int]) -> Verdict:
    over_soft = [s for s in scores if s.complexity > SOFT_LIMIT]
    over_hard = [s for s in over_soft
                 if s.complexity > HARD_LIMIT and s.complexity > held.get((s.path, s.name), HARD_LIMIT)]
    still_high = {(s.path, s.name) for s in scores if s.complexity > HARD_LIMIT}
    return Verdict(over_soft, over_hard, sorted(set(held) - still_high))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    default_root = Path(__file__).resolve().parent.parent / "src" / "torchenv"
    parser.add_argument("--root", type=Path, default=default_root, help="the package to measure")
    args = parser.parse_args(argv)
    try:
        scores = function_scores(args.root)
    except ImportError:
        print("radon is not installed (it is in the test extra: pip install -e '.[test]')", file=sys.stderr)
        return 2
    verdict = judge(scores, HELD)
    for score in verdict.over_soft:
        ceiling = HELD.get((score.path, score.name))
        if score in verdict.over_hard:
            mark = f"  over the hard limit {HARD_LIMIT}" + (f" and its held ceiling {ceiling}" if ceiling else "")
        elif ceiling:
            mark = f"  held at {ceiling} (tools/complexity.py HELD): split it"
        else:
            mark = ""
        print(f"{score}{mark}")
    for path, name in verdict.stale:
        print(f"stale HELD entry (no longer above {HARD_LIMIT}): src/torchenv/{path} {name}: remove it")
    print(f"{len(verdict.over_soft)} functions above {SOFT_LIMIT} (at most {MAX_OVER_SOFT}), "
          f"{len(verdict.over_hard)} over the hard limit {HARD_LIMIT} (none allowed), "
          f"{len(HELD) - len(verdict.stale)} held")
    return 1 if verdict.failed else 0


if __name__ == "__main__":
    sys.exit(main())
