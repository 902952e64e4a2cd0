"""`torchenv bundle`: carry a lock's files to a machine with no network; `torchenv bundle verify FILE`."""
from __future__ import annotations

import argparse

from ..i18n import _


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from ._options import add_json, add_mirror_flags, add_project, add_quiet

    p = sub.add_parser("bundle", help=_("pack torchenv.lock's files (and torchenv) into one tar for offline machines"),
                       description=_("Collect every wheel and conda package of the lock's targets (hash-checked) into "
                                     "one tar with a PEP 503 index, a conda channel, a manifest and torchenv's own "
                                     "wheels. On the offline machine: `./bootstrap --offline FILE.tar`, then "
                                     "`torchenv up --offline --from FILE.tar`."))
    add_project(p)
    add_quiet(p)
    add_mirror_flags(p)
    p.add_argument("-o", "--output", metavar="FILE.tar",
                   help=_("where to write the bundle (.tar, or .tar.gz to compress; default: ./<project>-bundle.tar)"))
    p.add_argument("--target", action="append", metavar="NAME",
                   help=_("lock target to include (repeatable; default: every target in torchenv.lock)"))
    p.add_argument("--no-tool", action="store_true",
                   help=_("leave out torchenv's own wheels (the offline machine already has torchenv)"))
    actions = p.add_subparsers(dest="bundle_action", metavar="ACTION")
    v = actions.add_parser("verify", help=_("check a bundle against its manifest (sizes, sha256, no extra files)"))
    v.add_argument("bundle", metavar="FILE.tar|DIR")
    add_json(v)
    add_quiet(v)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..ui import Ui

    ui = Ui(quiet=getattr(args, "quiet", False), json_mode=getattr(args, "json", False))
    if getattr(args, "bundle_action", None) == "verify":
        from ..offline.build import human_size
        from ..offline.manifest import verify_bundle

        result = verify_bundle(Path(args.bundle), ui)
        if ui.json_mode:
            ui.emit_json({"ok": True, "files": result.files, "bytes": result.bytes, "targets": list(result.targets)})
        else:
            ui.info(f"[bold green]ok:[/] {args.bundle}: {result.files} files, {human_size(result.bytes)}, all match "
                    f"the manifest (targets: {', '.join(result.targets) or 'none'})", markup=True)
        return 0
    from ..flows.stages import bundle_current
    from ._options import bundle_options

    bundle_current(Path(args.project or "."), bundle_options(args), ui)
    return 0
