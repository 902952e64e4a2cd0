"""CPU seconds a block of a test spent, its own and those of the processes it ran and waited for.

Why not the wall clock: on a shared machine a test waits for a core as long as the others keep it, so a
sub-second wall-clock budget failed for reasons outside the code. The CPU seconds are what the code costs;
a budget on them still fails when torchenv does more work (a slow import, a re-parse, a second resolve)::

    with cpu_time() as spent:
        subprocess.run([...])
    assert spent.seconds < 0.5, spent
"""
from __future__ import annotations

import resource
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field


def _now() -> float:
    mine, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return mine.ru_utime + mine.ru_stime + children.ru_utime + children.ru_stime


@dataclass
class Spent:
    """Filled in when the block ends: user + system seconds of this process and its waited-for children."""

    seconds: float = field(default=0.0)


@contextmanager
def cpu_time() -> Iterator[Spent]:
    spent, start = Spent(), _now()
    try:
        yield spent
    finally:
        spent.seconds = _now() - start
