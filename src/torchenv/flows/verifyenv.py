"""``torchenv verify`` for a project: find its env, read what the lock promises, run the checks, keep the result.

Why here and not in ``verification/``: this step reads the env's state and marker (``backends.state``,
``safety``), which sit above the checks themselves; ``verification/`` stays the floor that only runs
checks in an interpreter and reports.
"""
from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..verification.expect import Expectations
    from ..verification.report import VerifyReport


def verify_project(project: Path, *, env: str | Path | None = None, deep: bool = False, timeout: float = 600,
                   on_start: Callable[[Path, Expectations], None] | None = None,
                   on_check: Callable[[str, object], None] | None = None) -> tuple[VerifyReport, Path | None]:
    """Verify the project's env (or ``env``); ``(report, path of the saved verify.json)``, None where it
    could not be saved (a read-only project still gets its checks: the report is the answer, the file a copy).

    ``on_start(prefix, expectations)``: called before the checks run (the CLI prints what it verifies).
    """
    from ..activation import find_env, project_env_path
    from ..verification.expect import expectations, gpu_expected
    from ..verification.report import write_report
    from ..verification.runner import run_verify

    project = Path(project).absolute()
    found = find_env(project_env_path(project, str(env) if env is not None else None))
    expect = expectations(project, found.prefix)
    if on_start is not None:
        on_start(Path(found.prefix), expect)
    extra: dict[str, Any] = {"on_check": on_check} if on_check is not None else {}
    report = run_verify(found.python, expected=expect.expected, expects_gpu=gpu_expected(expect.tier, expect.os),
                        deep=deep, timeout=timeout, **extra)
    path: Path | None = None
    with contextlib.suppress(OSError):
        path = write_report(project, report)
    with contextlib.suppress(OSError):          # a read-only env: the next up verifies again, as before
        remember_result(Path(found.prefix), bool(report.ok))
    return report, path


def remember_result(prefix: Path, ok: bool) -> None:
    """In an env torchenv made, the next ``up`` verifies again until a verify passes (see backends.state)."""
    from .. import safety
    from ..backends import state as st

    if safety.read_owner(prefix) is not None:
        st.end_verify(prefix, ok)
