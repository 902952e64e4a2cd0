"""``torchenv doctor``: what is wrong with an environment (any venv/conda/system Python) and the command that fixes it.

Exit code: 1 when a finding of severity ``error`` remains, else 0 (so CI can gate on it); 2 for bad input.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..i18n import N_, _
from . import _options

if TYPE_CHECKING:
    from ..diagnosis.model import Diagnosis


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("doctor", help=_("diagnose a PyTorch environment and print the commands that fix it"),
                       description=_("Inspect an environment (default: the active one, the project's .venv, or this "
                                     "Python) without importing torch, check it against the machine, and print each "
                                     "problem with an exact fix."))
    p.add_argument("--env", metavar="PATH", help=_("env to inspect: a venv/conda prefix or its python"))
    p.add_argument("--explain", metavar="TEXT", help=_("explain an error message ('-' reads a traceback from stdin)"))
    p.add_argument("--report", metavar="FILE", help=_("write a shareable Markdown report (secrets redacted)"))
    p.add_argument("--include-paths", action="store_true", help=_("keep home-directory paths and user names in --report"))
    p.add_argument("--no-import", action="store_true",
                   help=_("skip the import check in the env's interpreter (only read files)"))
    _options.add_project(p)
    _options.add_json(p)
    _options.add_machine_assumptions(p)
    p.add_argument("--torch-mirror", metavar="URL", help=_("torch wheel base URL used in fix commands (<base>/<tier>)"))
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..diagnosis import envscan
    from ..diagnosis.diagnose import diagnose
    from ..diagnosis.model import Context
    from ..errors import EnvError

    ctx = Context(environ=dict(os.environ), torch_mirror=args.torch_mirror)
    machine = _options.machine_from_args(args)
    prefix, _how = envscan.find_prefix(args.env, Path(args.project))
    if args.env and not prefix.is_dir():
        raise EnvError(_("{path}: no such environment").format(path=args.env),
                       hint=_("pass a venv or conda prefix (the folder holding bin/python or conda-meta/)"))
    text = None
    if args.explain is not None:
        text = sys.stdin.read() if args.explain == "-" else args.explain
    diag = diagnose(machine, prefix, ctx, import_check=not args.no_import and text is None)
    if text is not None:
        from ..diagnosis.explain import explain

        found_env = diag.env if args.env or (diag.env and diag.env.torch_version) else None
        diag.findings, diag.machine, diag.env = explain(text, diag.machine, found_env, diag.findings, ctx)
        from ..diagnosis.through_torchenv import route

        diag.findings = route(diag.findings, diag.env)
    if args.report:
        from ..diagnosis.report import write_report

        path = write_report(Path(args.report), diag, ctx.environ, include_paths=args.include_paths)
        if not args.json:
            sys.stderr.write(_("report written to {path}").format(path=path) + "\n")
    if args.json:
        from ..ui import Ui

        Ui(json_mode=True).emit_json(diag.to_json())
    else:
        _print(diag)
    return 1 if any(f.severity == "error" for f in diag.findings) else 0


def _print(diag: Diagnosis) -> None:
    from rich.markup import escape

    from ..ui import Ui

    ui = Ui()
    e = diag.env
    if e is not None:
        torch = f"torch {e.torch_version} ({e.tier})" if e.torch_version else _("no torch")
        ui.info(f"[bold]{_('env')}[/] {escape(e.prefix)} [dim]({e.kind})[/]: {escape(torch)}"
                + (", " + _("archs {archs}").format(archs=" ".join(e.archs)) if e.archs else ""))
    m = diag.machine
    gpus = ", ".join(f"{g.name} CC {g.compute_capability}" for g in m.gpus) or _("no NVIDIA GPU")
    driver = _("driver {driver}").format(driver=m.driver or _("none"))
    ui.info(f"[bold]{_('machine')}[/] {m.os}-{m.arch}, {escape(driver)}, {escape(gpus)}"
            + (f" [dim]{escape(_('(assumed)'))}[/]" if m.assumed else ""))
    if not diag.findings:
        ui.info(f"[green]{_('no problems found')}[/]")
    colors = {"error": "bold red", "warning": "yellow", "info": "cyan"}
    for f in diag.findings:
        ui.info(f"\n[{colors.get(f.severity, 'white')}]{_(SEVERITY_WORDS.get(f.severity, f.severity))}[/]: "
                f"[bold]{escape(f.title)}[/]")
        ui.info(f"  {escape(f.detail)}")
        if f.fix:
            ui.info(f"  [green]{_('fix:')}[/] {escape(f.fix)}")
        for alt in f.alternatives:
            ui.info(f"  [dim]{_('or:')}[/] {escape(alt)}")


SEVERITY_WORDS = {"error": N_("error"), "warning": N_("warning"), "info": N_("info")}
