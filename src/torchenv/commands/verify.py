"""`torchenv verify`: prove the project's environment works (import, versions, GPU, compute).

Exit 0 when every check passes, 1 when one fails. The report is also saved to
``<project>/.torchenv/verify.json`` so ``doctor`` and CI can read the last result.
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._options import add_json, add_project, add_quiet

if TYPE_CHECKING:
    from ..ui import Ui
    from ..verify.report import VerifyReport


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("verify", help="prove the environment works: torch imports, GPU visible, matmul/AMP/conv run",
                       description="Run layered checks inside the project's environment: import torch, versions "
                                   "against torchenv.lock, CUDA devices and compiled archs, matmul/backward/"
                                   "autocast/conv on every device; --deep also trains a small CNN.")
    add_project(p)
    add_json(p)
    add_quiet(p)
    p.add_argument("--env", metavar="PATH", help="environment to verify (default: [env] path of torchenv.toml)")
    p.add_argument("--deep", action="store_true", help="also train a small CNN for a few hundred steps")
    p.add_argument("--timeout", type=float, default=600, metavar="S", help="give up after S seconds (default 600)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..activation import find_env, project_env_path
    from ..i18n import _
    from ..ui import Ui, _escape
    from ..verify.expect import expectations, gpu_expected
    from ..verify.report import render_report, shown, write_report

    ui = Ui(quiet=args.quiet, json_mode=args.json)
    project = Path(args.project).absolute()
    env = find_env(project_env_path(project, args.env))
    expect = expectations(project, env.prefix)
    for note in expect.notes:
        ui.info(f"[dim]{note}[/]")
    expects_gpu = gpu_expected(expect.tier, expect.os)
    ui.step(_verifying_step(str(env.prefix), expect.target, args.deep))
    report = _run_with_status(ui, env.python, expected=expect.expected, expects_gpu=expects_gpu,
                              deep=args.deep, timeout=args.timeout)
    path = write_report(project, report)
    _remember_result(Path(env.prefix), bool(report.ok))
    if args.json:
        from ._options import with_project

        ui.emit_json(with_project(report.to_json(), args))
    elif args.quiet:
        ui.console.print(shown(report.verdict()))
    else:
        render_report(ui, report)
        ui.info(f"[dim]{_escape(_('report saved to {path}').format(path=path))}[/]")
    return 0 if report.ok else 1


def _verifying_step(prefix: str, target: str | None, deep: bool) -> str:
    from ..i18n import _

    line = _("verifying {env} against lock target {target}") if target else _("verifying {env}")
    line = line.format(env=prefix, target=target)
    return line + _(" (deep: training a small CNN)") if deep else line


def _run_with_status(ui: "Ui", python: Path, **kw: Any) -> "VerifyReport":
    """run_verify with a spinner naming the running check (importing torch alone takes seconds)."""
    from ..verify.report import shown
    from ..verify.runner import run_verify

    if ui.quiet or ui.json_mode or not ui.console.is_terminal:
        return run_verify(python, **kw)
    with ui.console.status("verify: import torch") as status:
        def on_check(name: str, done: object) -> None:
            if done is None:
                status.update(f"verify: {shown(name)}")
        return run_verify(python, on_check=on_check, **kw)


def _remember_result(prefix: Path, ok: bool) -> None:
    """In an env torchenv made, the next ``up`` verifies again until a verify passes (see install.state)."""
    from .. import safety
    from ..install import state as st

    if safety.read_owner(prefix) is not None:
        st.end_verify(prefix, ok)
