"""`torchenv plan`: show what `up` would install on this machine, and why.

Why a separate verb: deciding is kept apart from doing; a user (or CI, with ``--json``) can
check the tier, the exact pins and the reasons before anything is downloaded. The ``--json``
path imports no rich (start-up budget < 0.3 s).
"""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from ..i18n import _
from . import _options

if TYPE_CHECKING:
    from ..cluster.plan import ClusterPlan
    from ..errors import PlanRefused
    from ..resolve.plan import Plan
    from ..ui import Ui


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("plan", help=_("show the torch version, CUDA tier, Python and exact pins `up` would use, and why"),
                       description=_("Resolve torchenv.toml against this machine (or an assumed one) and explain "
                                     "every decision. Nothing is installed."))
    _options.add_project(p)
    _options.add_json(p)
    _options.add_quiet(p)
    _options.add_intent_overrides(p)
    _options.add_machine_assumptions(p)
    _options.add_mirror_flags(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..flows.planning import PlanRequest, plan_reachable
    from ..ui import Ui

    intent = _options.intent_from_args(args)
    ui = Ui(quiet=getattr(args, "quiet", False), json_mode=getattr(args, "json", False))
    from ..cluster.hooks import cluster_plan

    found = cluster_plan(intent, _options.machine_spec(args), _options.source_overrides(args))   # cluster.json
    if found is not None:
        if ui.json_mode:
            ui.emit_json(_options.with_project(found.to_json(), args))
        else:
            show_cluster_plan(ui, found)
        return 0
    try:
        # the planner `up` and `lock` ask, with the request they build from the same flags
        plan = plan_reachable(PlanRequest(intent, _options.machine_spec(args), _options.source_overrides(args)))
    except Exception as exc:
        from ..errors import PlanRefused

        if isinstance(exc, PlanRefused) and not ui.json_mode:
            show_refusal(ui, exc)
            return exc.exit_code
        raise                       # cli.main prints it (as JSON with --json)
    plan = with_project_requirements(plan)
    if ui.json_mode:
        ui.emit_json(_options.with_project(plan.to_json(), args))
    else:
        show_plan(ui, plan)
    return 0


def with_project_requirements(plan: Plan) -> Plan:
    """The plan, checked against the project's own requirement files as ``up`` will check them.

    Why in ``plan``: a ``torch==1.13.1`` in a file of ``[env] requirements`` would make ``up``
    refuse; ``plan`` refuses the same way, and says which pins agree and how the PyPI side
    is searched, so nothing ``up`` decides is news.
    """
    import dataclasses

    from ..intent import project_requirements as reqmod

    reqs, _warnings = reqmod.gather(plan.intent, plan.intent.project_dir)
    reqmod.check_against_plan(reqs, plan)
    extra = tuple(reqmod.agreeing_pins(reqs, plan))
    wanted = reqmod.kernel_wanted(plan.intent, plan.intent.project_dir, reqs)
    if wanted is not None:
        extra += (reqmod.kernel_reason(wanted),)
    if plan.sources is not None:
        extra += (plan.sources.pypi.index_rule(),)
    return dataclasses.replace(plan, reasons=plan.reasons + extra)


def _packages_table(plan: Plan) -> Any:
    """package | version | from: the torch index (or the local folder first) for the torch family, else PyPI."""
    from rich.table import Table

    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    table.add_column(_("package"))
    table.add_column(_("version"))
    table.add_column(_("from"))
    torch_origin = plan.sources.torch[0].url if plan.sources and plan.sources.torch \
        else _("torch index ({tier})").format(tier=plan.tier)
    for p in plan.packages:
        origin = "PyPI" if p.source == "pypi" else torch_origin
        local = _in_wheelhouse(plan, p.name, p.version)
        table.add_row(p.name, p.version, _("{folder} (your local folder), else {origin}").format(
            folder=local, origin=origin) if local else origin)
    return table


def _why_lines(plan: Plan) -> list[tuple[str, bool | None]]:
    """The "why" list: intent, the planner's reasons, the sources' own, the environment, conda specs, GPU code;
    each with rich's ``highlight`` (None: the console's default, kept for the environment and GPU-code lines)."""
    lines: list[tuple[str, bool | None]] = [(_("intent: {source}").format(source=_intent_source(plan)), False)]
    lines += [(reason_text(r), False) for r in plan.reasons]
    source_reasons = plan.sources.reasons if plan.sources else ()
    lines += [(_("sources: {why}").format(why=reason_text(r)), False) for r in source_reasons
              if r not in plan.reasons]
    if plan.backend_reason:
        lines.append((_("environment: {why}").format(why=reason_text(plan.backend_reason)), None))
    if plan.backend == "conda":
        from ..conda.specs import conda_request

        request = conda_request(plan)
        lines.append((_("conda specs: {specs}").format(specs=", ".join(request.specs)), False))
        lines += [(_("conda: {why}").format(why=r), False) for r in request.reasons]
    if plan.compiled_archs:
        lines.append((_("GPU code in this build: {archs}").format(archs=" ".join(plan.compiled_archs)), None))
    return lines


def show_plan(ui: Ui, plan: Plan) -> None:
    """Packages table, the "why" list, warnings: readable by someone who never heard of sm_61."""
    con = ui.console
    status = "" if plan.tier_status == "stable" else f" ({plan.tier_status})"
    cuda = f", CUDA {plan.cuda_version}" if plan.cuda_version else ""
    con.print(f"[bold]torch {plan.torch_version}[/] · tier [bold]{plan.tier}[/]{status}{cuda} · "
              f"Python {plan.python} · {plan.backend} · {plan.platform}")
    if not ui.quiet:
        con.print(_packages_table(plan))
        con.print(f"[bold]{_('why')}[/]")
        for line, highlight in _why_lines(plan):
            con.print(f"  • {line}", markup=False, highlight=highlight)
    for w in plan.warnings:
        ui.warn(reason_text(w))


def reason_text(reason: str) -> str:
    """A plan reason or warning as the user reads it, in the active language (rendered from its data)."""
    from ..reasons import shown

    return shown(reason)


def show_cluster_plan(ui: Ui, found: ClusterPlan) -> None:
    """``plan --machine cluster.json``: each target (with the node types it serves), then why."""
    for target in found.targets:
        ui.console.print(f"[bold]target {target.plan.target_name}[/] for node types {', '.join(target.node_types)}")
        show_plan(ui, target.plan)
    ui.console.print("[bold]why (whole cluster)[/]")
    for reason in found.reasons:
        ui.console.print(f"  • {reason_text(reason)}", markup=False, highlight=False)
    for target in found.targets if not found.single else ():
        for reason in target.reasons:
            ui.console.print(f"  • {reason_text(reason)}", markup=False, highlight=False)


def _intent_source(plan: Plan) -> str:
    """Which torchenv.toml was read (found by walking up from the current directory), or none."""
    if plan.intent.file:
        return str(plan.intent.file)
    return _("no torchenv.toml in {folder} or above it; defaults").format(folder=plan.intent.project_dir)


def _in_wheelhouse(plan: Plan, name: str, version: str) -> str | None:
    """The local wheel folder (e.g. a pip find-links dir) that already holds this exact release, if any."""
    import os

    prefix = f"{name.replace('-', '_')}-{version}-"
    for folder in (plan.sources.wheelhouses if plan.sources else ()):
        try:
            if any(f.startswith(prefix) and f.endswith(".whl") for f in os.listdir(folder)):
                return folder
        except OSError:
            continue
    return None


def show_refusal(ui: Ui, exc: PlanRefused) -> None:
    ui.error(reason_text(exc.message), reason_text(exc.hint) if exc.hint else None)
    err = ui.err
    if exc.reasons:
        err.print(f"[bold]{_('why')}[/]")
        for r in exc.reasons:
            err.print(f"  • {reason_text(r)}", markup=False, highlight=False)
    if exc.alternatives:
        err.print(f"[bold]{_('what would work instead')}[/]")
        from ..resolve.alternatives import as_flags

        for a in exc.alternatives:
            err.print(f"  • {reason_text(a.get('why', ''))}  ->  {reason_text(a.get('flags') or as_flags(a))}", markup=False,
                      highlight=False)
