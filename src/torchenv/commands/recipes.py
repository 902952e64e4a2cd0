"""``torchenv recipes refresh [--from URL|DIR]``: learn torch releases newer than the shipped recipes.

Why a verb: a new torch (2.16 in December 2026) should be plannable the day it lands, without
waiting for a torchenv release. Refresh reads index pages and PEP 658 metadata only (no wheel
downloads) and writes a user-level overlay; ``plan`` marks everything it infers from it.
"""
from __future__ import annotations

import argparse

from ..i18n import _
from ._options import add_json, add_quiet


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("recipes", help=_("refresh torchenv's knowledge of torch releases from an index"),
                       description=_("Read a download.pytorch.org-shaped index (or a mirror / local copy of one) and "
                                     "record the torch releases the shipped recipes do not know in a user-level "
                                     "overlay."))
    verbs = p.add_subparsers(dest="recipes_command", metavar="ACTION", required=True)
    r = verbs.add_parser("refresh", help=_("read an index and write the releases it has that torchenv does not know"))
    r.add_argument("--from", dest="source", metavar="URL|DIR", default=None,
                   help=_("index root holding <tier>/<project>/ pages (default https://download.pytorch.org/whl)"))
    r.add_argument("--tier", action="append", default=[], metavar="TIER",
                   help=_("also read this tier's pages (a tier newer than the recipes, e.g. cu134); repeatable"))
    add_json(r)
    add_quiet(r)
    r.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..resolve.refresh import DEFAULT_INDEX, refresh
    from ..ui import Ui

    ui = Ui(quiet=getattr(args, "quiet", False), json_mode=getattr(args, "json", False))
    result = refresh(args.source or DEFAULT_INDEX, tuple(args.tier))
    if getattr(args, "json", False):
        ui.emit_json({"overlay": str(result.overlay), "source": result.source, "added": list(result.added),
                      "new_tiers": list(result.new_tiers), "already_known": list(result.skipped),
                      "learnt_builds": list(result.learnt)})
        return 0
    if result.added:
        ui.info(f"learnt torch {', '.join(result.added)} from {result.source}", markup=False)
    else:
        ui.info(f"{result.source} has no torch release the recipes do not already know", markup=False)
    if result.learnt:
        ui.info(f"builds of known releases the recipes did not list: {', '.join(result.learnt)}", markup=False)
    if result.new_tiers:
        ui.info(f"new tiers: {', '.join(result.new_tiers)} (driver floors inferred, unverified)", markup=False)
    ui.info(f"written to {result.overlay}; `torchenv plan` uses it and marks what it inferred", markup=False)
    return 0
