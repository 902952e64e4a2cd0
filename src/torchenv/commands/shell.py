"""`torchenv shell`: an interactive shell with the project's environment activated.

Why spawn a subshell instead of printing ``source ...``: it works for conda prefixes and
venvs alike and `exit` returns the user to where they were. Without a terminal (CI,
pipes) it prints the activation command instead, which is what a script can use.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ..i18n import _
from ._options import add_project


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("shell", help=_("start a shell with the project environment activated"),
                       description=_("Spawn $SHELL (cmd/PowerShell on Windows) with the environment activated; "
                                     "without a terminal, print the command that activates it."))
    add_project(p)
    p.add_argument("--env", metavar="PATH", help=_("environment to use (default: [env] path of torchenv.toml)"))
    p.add_argument("--print", dest="print_only", action="store_true",
                   help=_("print the lines that activate the environment in your shell (for direnv: "
                          "eval \"$(torchenv shell --print)\" in .envrc)"))
    p.set_defaults(func=run)


def user_shell() -> str | None:
    if os.name == "nt":  # pragma: no cover - Windows
        if os.environ.get("PSModulePath") and not os.environ.get("PROMPT"):  # noqa: SIM112 -- Windows spells it so
            return "powershell.exe"
        return os.environ.get("COMSPEC") or "cmd.exe"
    return os.environ.get("SHELL") or None


def run(args: argparse.Namespace) -> int:
    from ..activation import (
        ACTIVE_VAR,
        activated_environ,
        activation_command,
        activation_lines,
        find_env,
        project_env_path,
    )
    from ..ui import Ui

    env = find_env(project_env_path(Path(args.project).absolute(), args.env))
    shell = user_shell()
    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    if args.print_only:
        print(activation_lines(env, shell or "sh"))
        return 0
    if not shell or not interactive:
        print(activation_command(env, shell or "sh"))
        return 0
    ui = Ui()
    if os.environ.get(ACTIVE_VAR) == str(env.prefix):
        ui.warn(f"already inside {env.prefix} (started by `torchenv shell`); `exit` leaves it")
        return 0
    environ = activated_environ(env)
    argv, cleanup = shell_argv(shell, env.name, environ)
    ui.info(f"[bold cyan]>[/] entering {env.prefix} ({env.kind}); type `exit` to leave")
    from .run import run_command

    try:
        return run_command(argv, environ)
    finally:
        for path in cleanup:
            path.unlink(missing_ok=True)


def shell_argv(shell: str, label: str, environ: dict[str, str]) -> tuple[list[str], list[Path]]:
    """How to start ``shell`` so its prompt shows ``(label)``; temp files to remove afterwards.

    Why per shell: rc files reset PS1, so the hint has to be applied after them (bash
    ``--rcfile``, fish ``-C``); other shells get VIRTUAL_ENV_PROMPT / PS1 and their own rc.
    """
    import tempfile

    from ..activation import prompt_label, shell_family

    family = shell_family(shell)
    prefix = f"({prompt_label(label)}) "
    if family == "bash":
        fd, name = tempfile.mkstemp(prefix="torchenv-bashrc-", suffix=".sh")
        with os.fdopen(fd, "w") as fh:
            fh.write('[ -f "$HOME/.bashrc" ] && . "$HOME/.bashrc"\n'
                     f'PS1="{prefix}${{PS1-}}"\n')
        return [shell, "--rcfile", name, "-i"], [Path(name)]
    if family == "fish":
        return [shell, "-C", f"functions -c fish_prompt _torchenv_old_prompt 2>/dev/null; "
                             f"function fish_prompt; echo -n '{prefix}'; _torchenv_old_prompt; end"], []
    if family == "cmd":  # pragma: no cover - Windows
        environ["PROMPT"] = prefix + environ.get("PROMPT", "$P$G")
        return [shell], []
    if family == "powershell":  # pragma: no cover - Windows
        return [shell, "-NoExit", "-Command",
                f"function global:prompt {{ '{prefix}' + 'PS ' + (Get-Location) + '> ' }}"], []
    environ["PS1"] = prefix + environ.get("PS1", "$ ")
    return [shell, "-i"], []
