"""`torchenv up`: create or update the project's environment from torchenv.toml and torchenv.lock, then verify it."""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, cast

from ..i18n import _

if TYPE_CHECKING:
    from pathlib import Path

    from ..flows.up import UpResult
    from ..ui import Ui


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from ._options import add_intent_overrides, add_machine_assumptions, add_mirror_flags, add_project, add_quiet

    p = sub.add_parser("up", help=_("create/update the project's environment (locked, verified)"),
                       description=_("Plan, lock and install the project's PyTorch environment, then verify it. "
                                     "When nothing changed this is a no-op that takes a fraction of a second."))
    add_project(p)
    add_quiet(p)
    add_intent_overrides(p)
    add_machine_assumptions(p)
    add_mirror_flags(p)
    p.add_argument("--no-verify", action="store_true", help=_("skip the verification step after installing"))
    p.add_argument("--force", action="store_true",
                   help=_("replace a Python environment at the env path that torchenv did not create "
                          "(deleted only after the new one works); never a project, a plain folder or a file"))
    p.add_argument("--save", action="store_true",
                   help=_("write the intent flags (--torch, --cuda, --python, ...) into torchenv.toml, comments kept"))
    p.add_argument("--reset-overrides", action="store_true",
                   help=_("plan from torchenv.toml alone, dropping the flags torchenv.lock remembers from the last up"))
    p.add_argument("--exact", action="store_true",
                   help=_("remove packages added to the env by hand (not in torchenv.lock); a plain up keeps them"))
    p.add_argument("--frozen", action="store_true",
                   help=_("install exactly what torchenv.lock says; fail instead of re-resolving"))
    p.add_argument("--vscode", action="store_true",
                   help=_("also set python.defaultInterpreterPath in .vscode/settings.json (other settings kept)"))
    from ._options import add_offline_flags

    add_offline_flags(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..flows.up import run_up
    from ..i18n import _
    from ._options import up_options

    ui = cast("Ui", _LazyUi(quiet=getattr(args, "quiet", False)))   # a stand-in that forwards every call to a Ui
    result = run_up(Path(args.project or "."), up_options(args), ui)
    if getattr(args, "vscode", False) and result.verify_ok is not False:
        _vscode(result, ui)
    if result.status == "up-to-date":
        from ..flows.noop import say_up_to_date

        say_up_to_date(result.env_path, result.lock_path.name, result.target, result.notes, result.warnings)
        return 0
    if result.verify_ok is False:
        ui.error(_("{env} was installed but did not pass verification").format(env=result.env_path),
                 _("see the report above (saved in .torchenv/verify.json); `torchenv doctor` explains common "
                   "causes"))
        return result.exit_code
    _activation_hint(result, ui)
    return result.exit_code


def _vscode(result: UpResult, ui: Ui) -> None:
    from ..activation import find_env
    from ..editors import write_vscode_interpreter

    python = find_env(result.env_path).python
    done = write_vscode_interpreter(result.lock_path.parent, python)
    if done.changed:
        ui.step(_("{file}: python.defaultInterpreterPath = {python}").format(file=_rel(done.file), python=python))


def _rel(path: Path | str) -> str:
    import os

    try:
        rel = os.path.relpath(path)
    except ValueError:
        return str(path)
    return rel if not rel.startswith("..") else str(path)


def _activation_hint(result: UpResult, ui: Ui) -> None:
    if ui.quiet:          # ui.info prints nothing then: no activation line to work out
        return
    try:
        import os

        from ..activation import activation_command, find_env

        line = activation_command(find_env(result.env_path), os.environ.get("SHELL", "bash"))
    except Exception:
        line = f"source {result.env_path}/bin/activate"
    from ..i18n import _

    ui.info(f"[bold green]{_('ready:')}[/] " + _("{env} (target {target}, {status})").format(
        env=result.env_path, target=result.target, status=_status_words(result.status)))
    ui.info(_("  activate: {command}\n  or run:   {run}").format(
        command=line, run="torchenv run -- python your_script.py"))
    if result.kernel:
        ui.info(_("  jupyter:  kernel {kernel}").format(kernel=result.kernel))
    interpreter = _editor_interpreter(result)
    if interpreter:
        ui.info(_("  editor:   pick the interpreter {python}").format(python=interpreter))


def _editor_interpreter(result: UpResult) -> str:
    """The interpreter to pick in an editor, when it will not find the env by itself: a conda prefix, or an env
    outside the project (VS Code and PyCharm find a ``.venv`` at the project root as is)."""
    from ..activation import find_env
    from ..errors import TorchenvError

    try:
        env = find_env(result.env_path)
    except TorchenvError:
        return ""
    project = result.lock_path.parent.resolve()
    inside = env.prefix.resolve().parent == project and env.prefix.name in (".venv", "venv")
    return "" if env.kind == "venv" and inside else str(env.python)


def _status_words(status: str) -> str:
    """The result status as a person reads it; ``--json`` keeps the word itself."""
    from ..i18n import _

    return {"installed": _("installed"), "synced": _("synced"), "repaired": _("repaired"), "rebuilt": _("rebuilt"),
            "verified": _("verified"), "up-to-date": _("up to date")}.get(status, status)


class _LazyUi:
    """Builds the real Ui (and imports rich) only when something is printed."""

    def __init__(self, *, quiet: bool) -> None:
        self.quiet = quiet
        self.json_mode = False
        self._ui: Ui | None = None

    def __getattr__(self, name: str) -> Any:   # whatever the Ui has: its methods and consoles
        if self._ui is None:
            from ..ui import Ui

            self._ui = Ui(quiet=self.quiet)
        return getattr(self._ui, name)
