"""`torchenv verify`: prove the project's environment works (import, versions, GPU, compute).

Exit 0 when every check passes, 1 when one fails. The report is also saved to
``<project>/.torchenv/verify.json`` so ``doctor`` and CI can read the last result.
"""
from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..i18n import _
from ._options import add_json, add_project, add_quiet

if TYPE_CHECKING:
    from ..ui import Ui


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("verify", help=_("prove the environment works: torch imports, GPU visible, matmul/AMP/conv run"),
                       description=_("Run layered checks inside the project's environment: import torch, versions "
                                     "against torchenv.lock, CUDA devices and compiled archs, matmul/backward/"
                                     "autocast/conv on every device; --deep also trains a small CNN."))
    add_project(p)
    add_json(p)
    add_quiet(p)
    p.add_argument("--env", metavar="PATH", help=_("environment to verify (default: [env] path of torchenv.toml)"))
    p.add_argument("--deep", action="store_true", help=_("also train a small CNN for a few hundred steps"))
    p.add_argument("--timeout", type=float, default=600, metavar="S", help=_("give up after S seconds (default 600)"))
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..flows.verifyenv import verify_project
    from ..i18n import _
    from ..ui import Ui, escape_markup
    from ..verification.report import render_report, shown

    ui = Ui(quiet=args.quiet, json_mode=args.json)

    def started(prefix: Path, expect: Any) -> None:
        for note in expect.notes:
            ui.info(f"[dim]{note}[/]")
        ui.step(_verifying_step(str(prefix), expect.target, args.deep))

    with _status(ui) as on_check:
        report, path = verify_project(Path(args.project), env=args.env, deep=args.deep, timeout=args.timeout,
                                      on_start=started, on_check=on_check)
    if args.json:
        from ._options import with_project

        ui.emit_json(with_project(report.to_json(), args))
    elif args.quiet:
        ui.console.print(shown(report.verdict()))
    else:
        render_report(ui, report)
        if path is not None:
            ui.info(f"[dim]{escape_markup(_('report saved to {path}').format(path=path))}[/]")
    if path is None:
        from ..verification.report import report_path

        ui.warn(escape_markup(_("the report could not be saved to {path} (the folder is not writable); the checks "
                                "above are the result").format(path=report_path(Path(args.project)))))
    return 0 if report.ok else 1


def _verifying_step(prefix: str, target: str | None, deep: bool) -> str:
    from ..i18n import _

    line = _("verifying {env} against lock target {target}") if target else _("verifying {env}")
    line = line.format(env=prefix, target=target)
    return line + _(" (deep: training a small CNN)") if deep else line


@contextmanager
def _status(ui: Ui) -> Iterator[Callable[[str, object], None] | None]:
    """A spinner naming the running check (importing torch alone takes seconds); none off a terminal."""
    from ..verification.report import shown

    if ui.quiet or ui.json_mode or not ui.console.is_terminal:
        yield None
        return
    with ui.console.status("verify: import torch") as status:
        def on_check(name: str, done: object) -> None:
            if done is None:
                status.update(f"verify: {shown(name)}")
        yield on_check
