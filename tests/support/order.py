"""Run order for a parallel run: the few tests that build real torch envs or run ``./bootstrap`` go first,
and xdist hands them out one at a time.

Why: ``pytest -n auto`` hands tests to workers in collection order, and the real-torch tests sit in the
middle and at the end of it (``tests/up``, ``tests/verify``); one of them started last keeps one worker busy
for a minute while the others are idle. Started first, the many short tests fill in around them (longest
processing time first). Within each group the collection order stays, so no test depends on a new order.

Why one at a time: xdist's ``load`` scheduling starts each worker with a block of consecutive tests (an
eighth of the run on two workers), so every heavy test went to the first worker, one after another, while
the second ran short ones and then waited. With ``--maxschedchunk 1`` (set here unless given) each idle
worker takes the next test, and the heavy ones spread over all workers.
"""
from __future__ import annotations

import pytest

# fixtures that build (or wait for) a real torch env or a bootstrapped tool
HEAVY_FIXTURES = frozenset({"installed_torchenv", "real_mismatch_env", "real_project", "cpu_env", "cu130_env",
                            "cluster_env"})


def is_heavy(item: pytest.Item) -> bool:
    return item.get_closest_marker("integration") is not None or bool(HEAVY_FIXTURES & set(item.fixturenames))


def heavy_first(items: list[pytest.Item]) -> None:
    """Reorder ``items`` in place: heavy tests (``is_heavy``) first, each group in collection order."""
    items.sort(key=lambda item: not is_heavy(item))


def one_test_at_a_time(config: pytest.Config) -> None:
    """``--maxschedchunk 1`` for xdist's ``load`` scheduling when the command line gave no chunk size."""
    if getattr(config.option, "maxschedchunk", "no xdist") is None:
        config.option.maxschedchunk = 1
