#!/usr/bin/env python3
"""Fail when too many functions of src/torchenv are too branchy to hold in one's head (radon's cyclomatic complexity).

    python tools/complexity.py             # offenders as file:line name score; exit 1 over the bar
    python tools/complexity.py --all       # every function above the soft limit, exempt ones included

Why one measure: radon counts every branch a reader has to follow, boolean operators included (`a and b or c` is two
more paths). ruff's C901 counts `if`/`for`/`while`/`except` only, so a function can pass C901 and still be a 25-way
decision. The bar (CONTRIBUTING.md, "Short functions"): at most ``MAX_OVER_SOFT`` functions above ``SOFT_LIMIT``, none
above ``HARD_LIMIT``. Methods and nested functions are counted on their own (radon does not add a closure's branches
to its parent's, so a closure must not be a place to hide them).

Exempt functions are named one by one in ``EXEMPT`` with the reason; there is no pattern, so a new function is never
exempt by where it lives or what it is called.
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

SOFT_LIMIT = 15  # above this a function counts against the budget below
MAX_OVER_SOFT = 10  # how many functions may sit above the soft limit
HARD_LIMIT = 20  # no function may be above this

# (path under src/torchenv, qualified name) -> why it may stay above the soft limit. Exempt functions are still
# printed with --all; they are neither counted against MAX_OVER_SOFT nor held to HARD_LIMIT.
EXEMPT: dict[tuple[str, str], str] = {}


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
    over_hard: list[Score]  # each one fails the check
    exempt: list[Score]  # above the soft limit but named in EXEMPT

    @property
    def failed(self) -> bool:
        return bool(self.over_hard) or len(self.over_soft) > MAX_OVER_SOFT


def judge(scores: list[Score], exempt: dict[tuple[str, str], str]) -> Verdict:
    above = [s for s in scores if s.complexity > SOFT_LIMIT]
    excused = [s for s in above if (s.path, s.name) in exempt]
    counted = [s for s in above if (s.path, s.name) not in exempt]
    return Verdict(counted, [s for s in counted if s.complexity > HARD_LIMIT], excused)


def stale_exemptions(scores: list[Score], exempt: dict[tuple[str, str], str]) -> list[tuple[str, str]]:
    """Entries of EXEMPT that no longer name a function above the soft limit (renamed, removed or simplified)."""
    live = {(s.path, s.name) for s in scores if s.complexity > SOFT_LIMIT}
    return sorted(set(exempt) - live)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    default_root = Path(__file__).resolve().parent.parent / "src" / "torchenv"
    parser.add_argument("--root", type=Path, default=default_root)
    parser.add_argument("--all", action="store_true", help="also list the exempt functions")
    args = parser.parse_args(argv)
    try:
        scores = function_scores(args.root)
    except ImportError:
        print("radon is not installed (it is in the test extra: pip install -e '.[test]')", file=sys.stderr)
        return 2
    verdict = judge(scores, EXEMPT)
    for score in verdict.over_soft:
        mark = "  over the hard limit" if score in verdict.over_hard else ""
        print(f"{score}{mark}")
    if args.all:
        for score in verdict.exempt:
            print(f"{score}  exempt: {EXEMPT[(score.path, score.name)]}")
    stale = stale_exemptions(scores, EXEMPT)
    for path, name in stale:
        print(f"stale exemption (no longer above {SOFT_LIMIT}): src/torchenv/{path} {name}")
    print(
        f"{len(verdict.over_soft)} functions above {SOFT_LIMIT} (at most {MAX_OVER_SOFT}), "
        f"{len(verdict.over_hard)} above {HARD_LIMIT} (none allowed), {len(verdict.exempt)} exempt"
    )
    return 1 if verdict.failed or stale else 0


if __name__ == "__main__":
    sys.exit(main())
