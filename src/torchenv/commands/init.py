"""``torchenv init``: write a commented torchenv.toml from what the project already says.

Why: a project's first torchenv.toml should keep the torch pin it already had (in
requirements.txt or pyproject.toml) rather than silently pick another, and the user should
see which line each value came from.
"""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ..i18n import _
from . import _options

if TYPE_CHECKING:
    from pathlib import Path

    from ..intent.evidence.project import Detected
    from ..intent.model import Intent
    from ..ui import Ui


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("init", help=_("write a torchenv.toml for this project"),
                       description=_("Write a commented torchenv.toml, carrying over the torch pin, CUDA "
                                     "tier, Python and companions the project states: its requirement files "
                                     "(those a README installs, requirements.txt, requirements/), pyproject.toml, "
                                     "pixi.toml, conda env files, setup.py/setup.cfg, lock files, README and docs "
                                     "install commands, installer scripts, Dockerfile bases and the code's "
                                     "torchvision/torchaudio imports (read, never run). Each statement is weighed "
                                     "(lock > exact pin > install command > range > base image > import); what "
                                     "was used and what was set aside is shown. "
                                     "Flags override what was found."))
    _options.add_project(p, walks_up=False)
    p.add_argument("--force", action="store_true",
                   help=_("replace an existing torchenv.toml (the old one is kept as torchenv.toml.bak)"))
    _options.add_intent_overrides(p)
    _options.add_mirror_flags(p)
    _options.add_quiet(p)
    _options.add_json(p)
    p.set_defaults(func=run)


def _intent_of(project: Path, found: Detected, args: argparse.Namespace) -> Intent:
    """What the project's files say, with the command line's overrides laid over it."""
    from dataclasses import replace

    from ..intent.load import apply_overrides
    from ..intent.model import Intent

    base = Intent(project=project)
    torch = replace(base.torch, version=found.version, cuda=found.cuda or "auto", python=found.python,
                    with_=tuple(sorted(set(found.with_))))
    env = replace(base.env, requirements=tuple(found.requirements), extras=tuple(found.extras))
    return apply_overrides(replace(base, torch=torch, env=env), _options.intent_overrides(args),
                           _options.source_overrides(args))


def _show(ui: Ui, found: Detected, target: Path, backup: Path | None, outer: Path | None) -> None:
    """What init read and wrote, as a person reads it."""
    from ..intent.model import INTENT_FILE
    from ..reasons import shown

    if not found.findings:
        ui.step(_("No torch pin found in the project's files (requirement files, pyproject.toml, pixi.toml, "
                  "conda env files, setup.py/setup.cfg, lock files, README install commands, installer scripts, "
                  "Dockerfiles): torchenv will choose the newest torch that fits each machine (cuda = \"auto\")"))
    for f in found.findings:                 # Ui.step escapes markup: "[env]" prints as text
        ui.step(f"{shown(f.where)}: {shown(f.seen)}  ->  {shown(f.meaning)}")
    if backup:
        ui.step(_("Kept the previous {file} as {backup}").format(file=INTENT_FILE, backup=backup.name))
    if outer:
        ui.step(_("Note: this folder is inside the project of {outer}; commands run here (and below) "
                  "now use the new {file} instead").format(outer=outer, file=target))
    ui.info(_("Wrote {file}. Next: `torchenv plan` to see what it resolves to, "
              "`torchenv up` to build it.").format(file=target), markup=False)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..errors import IntentError
    from ..intent.evidence.project import detect_project
    from ..intent.init_writer import refuse_existing, render_intent, write_intent_file
    from ..intent.load import intent_from_text
    from ..intent.model import INTENT_FILE
    from ..ui import Ui

    ui = Ui(quiet=args.quiet, json_mode=args.json)
    project = Path(args.project or ".").resolve()
    if not project.is_dir():
        raise IntentError(_("project directory does not exist"), file=str(project),
                          hint=_("pass an existing directory with -C DIR"))
    target = project / INTENT_FILE
    if not args.force:
        refuse_existing(target)             # before any work, so the refusal is the only output

    found = detect_project(project)
    intent = _intent_of(project, found, args)
    text = render_intent(intent, _notes(found, intent))
    intent_from_text(text, str(target))       # what init writes must load; a failure here is a bug
    backup = write_intent_file(project, text, force=args.force)
    outer = _intent_above(project)

    if args.json:
        ui.emit_json({"file": str(target), "backup": str(backup) if backup else None,
                      "inside_project": str(outer) if outer else None,
                      "found": [f.to_json() for f in found.findings],
                      "records": [r.to_json() for r in found.records],
                      "decisions": {k: d.to_json() for k, d in found.decisions.items()},
                      "skipped": [{"file": f, "why": why} for f, why in found.skipped],
                      "intent": intent.to_json()})
        return 0
    _show(ui, found, target, backup, outer)
    return 0


def _intent_above(project: Path) -> Path | None:
    """The torchenv.toml of an enclosing project, if any: ``init`` writes here regardless (a nested
    project is a legitimate choice), but says that this folder stops using the outer file."""
    from ..project import INTENT_NAME, find_project

    if project.parent == project:
        return None
    marker = find_project(project.parent).marker
    return marker if marker is not None and marker.name == INTENT_NAME else None


def _notes(found: Detected, intent: Intent) -> dict[str, str]:
    """End-of-line comments for keys whose value came from a project file (not from a flag)."""
    notes: dict[str, str] = {}
    for key, field, final in (("torch.version", "version", intent.torch.version),
                              ("torch.cuda", "cuda", intent.torch.cuda),
                              ("torch.python", "python", intent.torch.python)):
        d = found.decisions.get(field)
        if d is None or d.value is None or d.value != final:
            continue
        if d.candidates:
            notes[key] = "the project names " + ", ".join(d.candidates) + "; auto picks per machine"
        elif d.by is not None:
            notes[key] = "from " + d.by.where
    with_sources = [f.where for f in found.findings if f.meaning.startswith("with +=")]
    if with_sources and tuple(sorted(set(found.with_))) == intent.torch.with_:
        notes["torch.with"] = "from " + ", ".join(dict.fromkeys(with_sources))
    extras = [f.where for f in found.findings if f.meaning.startswith("extras =")]
    if extras and tuple(found.extras) == intent.env.extras:
        notes["env.extras"] = "from " + ", ".join(dict.fromkeys(extras))
    return notes
