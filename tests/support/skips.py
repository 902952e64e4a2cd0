"""The one way a test says it cannot check here: a skip with the reason locally, a failure under CI.

Why one helper: a skip reads as "fine" in a run's summary. A test that skips where CI cannot give it what
it needs (a tool, root, a real torch wheel) checks nothing there, and nobody notices; under CI (``CI`` set
to a true value) the same reason is a failure, so CI's machine must have all a test needs. Everything that
would skip goes through here (``tests/test_harness.py`` finds any other ``pytest.skip``/``skipif``)::

    unavailable("tclsh is not installed here")              # in a test or fixture
    @requires(sys.platform == "linux", "the fake channel's python links a Linux interpreter")
"""
from __future__ import annotations

import os
from typing import NoReturn

import pytest

MARK = "requires"       # @requires(condition, reason): checked before the test's set-up (tests/conftest.py)


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in {"1", "true", "yes", "on"}


def unavailable(reason: str) -> NoReturn:
    """Stop the test: fail under CI (it must have what the test needs), skip with ``reason`` elsewhere."""
    if in_ci():
        pytest.fail(f"{reason}; CI must have it", pytrace=False)
    pytest.skip(reason)


def unavailable_unless(condition: object, reason: str) -> None:
    if not condition:
        unavailable(reason)


def requires(condition: object, reason: str) -> pytest.MarkDecorator:
    """A marker for a test, class or module (``pytestmark``) that can only check where ``condition`` holds."""
    return getattr(pytest.mark, MARK)(bool(condition), reason=reason)


def check_requirements(item: pytest.Item) -> None:
    """``unavailable`` for the first ``@requires`` of ``item`` that does not hold (called at set-up)."""
    for mark in item.iter_markers(MARK):
        unavailable_unless(mark.args[0], mark.kwargs["reason"])
