"""`torchenv run -- CMD ...`: run a command inside the project's environment, exit with its code.

Why not ``source .venv/bin/activate``: it differs per shell and OS and conda prefixes need
more than PATH; this works the same everywhere and in CI.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from ._options import add_project


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="run a command with the project environment activated",
                       description="Run CMD with the project's environment first on PATH (VIRTUAL_ENV or "
                                   "CONDA_PREFIX set, PYTHONHOME unset) and exit with its exit code.",
                       usage="torchenv run [-C DIR] [--env PATH] -- CMD [ARGS...]")
    add_project(p)
    p.add_argument("--env", metavar="PATH", help="environment to use (default: [env] path of torchenv.toml)")
    p.add_argument("cmd", nargs=argparse.REMAINDER, metavar="CMD", help="the command and its arguments")
    p.set_defaults(func=run, _parser=p)


def run(args: argparse.Namespace) -> int:
    from ..activation import activated_environ, find_env, project_env_path

    cmd = list(args.cmd)
    if cmd and cmd[0] == "--":
        cmd = cmd[1:]
    if not cmd:
        args._parser.error("give the command to run after --, e.g. `torchenv run -- python train.py`")
    env = find_env(project_env_path(Path(args.project).absolute(), args.env))
    environ = activated_environ(env)
    return run_command(cmd, environ)


def run_command(cmd: list[str], environ: dict[str, str]) -> int:
    """Run ``cmd`` (looked up on the activated PATH) and return its exit code (128+N for signal N)."""
    import shutil
    import subprocess

    exe = shutil.which(cmd[0], path=environ.get("PATH")) or cmd[0]
    try:
        proc = subprocess.Popen([exe, *cmd[1:]], env=environ)
    except FileNotFoundError:
        from ..ui import Ui

        Ui().error(f"{cmd[0]}: command not found in the environment or on PATH",
                   "install it into the env (e.g. `torchenv run -- python -m pip install NAME`) or check the name")
        return 127
    except PermissionError as exc:
        from ..ui import Ui

        Ui().error(f"{cmd[0]}: cannot execute ({exc.strerror})")
        return 126
    while True:
        try:
            code = proc.wait()
            break
        except KeyboardInterrupt:   # the child got the same SIGINT; let it decide to exit
            continue
    return 128 - code if code < 0 else code
