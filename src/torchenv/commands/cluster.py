"""`torchenv cluster probe|up|verify`: one lock for every node type of a Slurm cluster, built and verified
through Slurm (``torchenv plan|lock|up --machine cluster.json`` plan for the whole cluster)."""
from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..cluster.build import Layout
    from ..cluster.model import Cluster
    from ..cluster.plan import ClusterPlan
    from ..ui import Ui

from ..i18n import _

DEFAULT_FILE = "cluster.json"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from ._options import add_json, add_project, add_quiet

    p = sub.add_parser("cluster", help=_("probe, build and verify on every node type of a Slurm cluster"),
                       description=_("Slurm is the engine: one job per node type (partition x GPU type). "
                                     "`cluster probe` writes cluster.json; `torchenv lock --machine cluster.json` "
                                     "locks one tier for every node type (or one target per type); `cluster up` "
                                     "builds it; `cluster verify` proves it on each type."))
    actions = p.add_subparsers(dest="cluster_action", metavar="ACTION", required=True)
    probe = actions.add_parser("probe", help=_("probe one node of every node type (srun torchenv probe --json)"))
    probe.add_argument("--partition", action="append", metavar="P", help=_("only this partition (repeatable)"))
    probe.add_argument("-o", "--output", metavar="FILE", default=DEFAULT_FILE,
                       help=_("where to write the cluster file (default: {file})").format(file=DEFAULT_FILE))
    up = actions.add_parser("up", help=_("build the locked env: once on the shared filesystem, or on every node's "
                                         "local disk (--local-dir) from an sbcast bundle"))
    up.add_argument("--local-dir", metavar="DIR",
                    help=_("node-local project dir on every node (%%n = the node's name); default: the shared project"))
    verify = actions.add_parser("verify", help=_("run `torchenv verify --json` on one node of every node type"))
    verify.add_argument("--local-dir", metavar="DIR", help=_("as given to `cluster up --local-dir`"))
    for action in (probe, up, verify):
        add_project(action)
        add_quiet(action)
        if action is not probe:
            add_json(action)
            action.add_argument("--machine", metavar="FILE", default=DEFAULT_FILE,
                                help=_("the cluster file from `cluster probe` (default: {file})").format(file=DEFAULT_FILE))
        action.add_argument("--torchenv", metavar="CMD",
                            help=_("how the nodes run torchenv (default: this Python with -m torchenv; it must "
                                   "exist at the same path on the nodes)"))
        action.add_argument("--pending-timeout", type=float, default=300, metavar="S",
                            help=_("give up on a job still pending after S seconds (default 300), with its reason"))
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..ui import Ui

    ui = Ui(quiet=getattr(args, "quiet", False), json_mode=getattr(args, "json", False))
    torchenv = shlex.split(args.torchenv) if args.torchenv else [sys.executable, "-m", "torchenv"]
    if args.cluster_action == "probe":
        return _probe(args, ui, torchenv)
    return _up(args, ui, torchenv) if args.cluster_action == "up" else _verify(args, ui, torchenv)


def _probe(args: argparse.Namespace, ui: Ui, torchenv: list[str]) -> int:
    from ..cluster.discover import probe_cluster
    from ..cluster.plan import describe_type
    from ..fileio import write_atomic

    output = Path(args.output)
    if not output.is_absolute():
        output = Path.cwd() / output
    cluster = probe_cluster(args.partition, torchenv, pending_timeout=args.pending_timeout)
    write_atomic(output, cluster.dumps())
    for t in cluster.node_types:
        ui.info(f"  {describe_type(t, t.probe())}: {len(t.nodes)} node(s) {','.join(t.nodes)}, probed on {t.probed_on}",
                markup=False)
    ui.step(f"wrote {output} ({len(cluster.node_types)} node types)")
    return 0


def _context(args: argparse.Namespace, torchenv: list[str]) -> tuple[Cluster, ClusterPlan, Layout]:
    from ..cluster.build import Layout
    from ..cluster.model import load_cluster
    from ..cluster.plan import plan_for_cluster
    from ._options import intent_from_args, source_overrides

    cluster_file = Path(args.machine).absolute()
    cluster = load_cluster(cluster_file)
    found = plan_for_cluster(intent_from_args(args), cluster, sources_overrides=source_overrides(args))
    layout = Layout(project=Path(args.project).absolute(), cluster_file=cluster_file, torchenv=tuple(torchenv),
                    local_dir=args.local_dir)
    return cluster, found, layout


def _up(args: argparse.Namespace, ui: Ui, torchenv: list[str]) -> int:
    from ..cluster.build import cluster_up

    cluster, found, layout = _context(args, torchenv)

    def bundle(path: Path) -> None:
        from ..flows.stages import bundle_current
        from ..options import BundleOptions
        from ._options import source_overrides

        options = BundleOptions(sources=source_overrides(args), output=path, tool=False,
                                targets=tuple(t.plan.target_name for t in found.targets))
        bundle_current(layout.project, options, ui)

    rows = cluster_up(cluster, found, layout, bundle, pending_timeout=args.pending_timeout)
    _table(ui, ["node type", "node", "result"], [[r.node_type, r.node, r.detail] for r in rows],
           [r.__dict__ for r in rows])
    bad = [r.node_type for r in rows if not r.ok]
    if bad:
        ui.error(f"cluster up failed on node type(s) {', '.join(bad)}", "see the result column; the job's own "
                 "output is in it")
        return 1
    return 0


def _verify(args: argparse.Namespace, ui: Ui, torchenv: list[str]) -> int:
    from ..cluster.check import cluster_verify

    cluster, found, layout = _context(args, torchenv)
    rows = cluster_verify(cluster, found, layout, pending_timeout=args.pending_timeout)
    _table(ui, ["node type", "node", "target", "torch", "CUDA", "arch coverage", "checks"],
           [[r.node_type, r.node, r.target, r.torch, r.cuda, r.archs, r.checks] for r in rows],
           [r.to_json() for r in rows])
    bad = [r.node_type for r in rows if not r.ok]
    if bad:
        ui.error(f"verify failed on node type(s) {', '.join(bad)}",
                 "run `srun -p PARTITION torchenv doctor` on one of those nodes for the cause")
        return 1
    return 0


def _table(ui: Ui, header: list[str], rows: list[list[str]], data: list[dict[str, Any]]) -> None:
    if ui.json_mode:
        ui.emit_json({"ok": all(d.get("ok") for d in data), "node_types": data})
        return
    from rich.table import Table

    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for column in header:
        table.add_column(column)
    for row in rows:
        table.add_row(*row)
    ui.console.print(table)
