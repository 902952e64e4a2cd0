"""``up``'s verify stage: verify after a change, or when the env's last verify did not pass.

Why overlapped with the record stage: ``import torch`` in a fresh env takes seconds and needs
nothing from this process, so torchenv.lock and the env's pip.conf are written meanwhile.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from ..i18n import _

if TYPE_CHECKING:
    from ..lockfile.model import LockTarget
    from ..resolve.plan import Plan
    from ..ui import Ui
    from .up import UpStatus


def verify_if_needed(status: UpStatus, env: Path, python: Path, target: LockTarget, plan: Plan, project_dir: Path,
                     ui: Ui, *, meanwhile: Callable[[], None] = lambda: None) -> tuple[UpStatus, bool | None]:
    """Verify after a change, or when the env's last verify did not pass; ``(status, verify_ok)``.

    ``meanwhile`` (writing torchenv.lock and the env's pip.conf) runs exactly once: while the
    verify's ``import torch`` runs when there is a verify, else at once.

    Why re-verify rather than rebuild: a verify that was interrupted only needs to run again, and
    one that failed usually failed for a reason outside the env (driver, GPU, machine); the
    install itself was checked file by file. The marker stays until a verify passes.
    """
    from ..backends import state as st

    once = _Once(meanwhile)
    last = st.verify_problem(env)
    if status == "up-to-date":
        if last is None:
            once()
            return status, None
        ui.step(_("{env}: its last verify {problem}; verifying again").format(env=env, problem=_(last)))
        status = "verified"
    from ..verification import bytecode

    st.begin_verify(env)               # before the script starts: an interrupted verify leaves it behind
    site = st.site_packages(env, target.python)
    bytecode.lend(site, target, target.python)       # what an earlier env's verify compiled for these wheels
    ok = _verify(python, target, plan, project_dir, ui, meanwhile=once)
    once()                             # a verify that did not run it (one handed in by a test)
    st.end_verify(env, bool(ok))
    if ok:
        bytecode.keep(site, target, target.python)
    return status, ok


class _Once:
    """``work`` run on the first call only."""

    def __init__(self, work: Callable[[], None]) -> None:
        self.work, self.done = work, False

    def __call__(self) -> None:
        if not self.done:
            self.done = True
            self.work()


@contextmanager
def _bytecode_allowed() -> Iterator[None]:
    """Let verify's ``import torch`` write ``.pyc`` even when PYTHONDONTWRITEBYTECODE=1 is exported.

    Why: uv installs without bytecode (compiling costs ~6 s per install); the first import
    writes ``.pyc`` for exactly the modules ``import torch`` needs (~0.35 s extra once), and
    every later ``import torch`` then takes ~1.1 s instead of ~2.5 s (baseline-bench.md §4).
    """
    saved = os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    try:
        yield
    finally:
        if saved is not None:
            os.environ["PYTHONDONTWRITEBYTECODE"] = saved


def verify_env(python: Path, target: LockTarget, plan: Plan, project_dir: Path, ui: Ui, *,
               meanwhile: Callable[[], None] = lambda: None) -> bool:
    """Verify the env; ``meanwhile`` runs while its interpreter starts and imports torch.

    Why start the script first: ``import torch`` takes 2-4 s on a fresh env and needs nothing
    from this process; writing torchenv.lock and the env's pip.conf (and importing what the
    report is rendered with) meanwhile takes that work off the wall clock. Whatever
    ``meanwhile`` raises stops the script: no verify outlives the run it belongs to.
    """
    from ..verification import render_report, write_report
    from ..verification.expect import expected_from_target, gpu_expected
    from ..verification.runner import start_verify

    # one rule for "expects a GPU", shared with `torchenv verify`: a GPU tier, and a GPU on the planned machine
    expects_gpu = gpu_expected(target.tier, target.os, plan.machine)
    with _bytecode_allowed():          # the script's environment is taken when it starts
        running = start_verify(python, expected=expected_from_target(target), expects_gpu=expects_gpu)
    try:
        meanwhile()
        with ui.progress(_("verifying (import torch, devices, a small computation)")):
            report = running.result()
    except BaseException:
        running.stop()
        raise
    write_report(project_dir, report)
    if ui.quiet:
        if not report.ok:
            ui.error(report.verdict())
    elif not ui.json_mode:
        render_report(ui, report)
    return bool(report.ok)


_verify = verify_env   # the call point `up` uses (tests/support/hooked_cli.py pauses there)
