"""Find the project's environment and build an "activated" process environment for it.

Why one module: ``run``, ``shell`` and ``verify`` must agree on what the env is (venv with
``pyvenv.cfg`` or conda prefix with ``conda-meta/``), where its interpreter lives and what
activation means (PATH first, VIRTUAL_ENV / CONDA_PREFIX set, PYTHONHOME unset), without
sourcing shell scripts that differ per shell and per OS.
"""
from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .i18n import _

WINDOWS = os.name == "nt"
ACTIVE_VAR = "TORCHENV_ACTIVE"   # set in activated processes: the env prefix


@dataclass(frozen=True)
class EnvInfo:
    prefix: Path
    kind: str                  # venv | conda
    python: Path
    bin_dirs: tuple[Path, ...]

    @property
    def name(self) -> str:
        """Prompt label: the project folder for ``.venv``-like names, else the env folder."""
        if self.prefix.name in (".venv", "venv", ".conda", "env", ".env"):
            return prompt_label(self.prefix.parent.name or self.prefix.name)
        return prompt_label(self.prefix.name)


def prompt_label(text: str) -> str:
    """``text`` with every character a shell prompt could act on replaced by ``_``.

    Why replace instead of quote: the label ends up in PS1 (bash, zsh with PROMPT_SUBST, dash),
    fish and PowerShell prompt functions, ``%PROMPT%`` and ``VIRTUAL_ENV_PROMPT`` (read by
    prompt themes), and each expands ``$(...)``, backticks, ``%``, ``\\`` or quotes its own way
    at every prompt. A folder named ``x$(rm -rf ~)`` must never run anything; letters, digits
    and ``. _ - + @ : , = ( ) [ ]`` are what a prompt shows literally everywhere.
    """
    return "".join(c if c.isalnum() or c in "._-+@:,=()[] " else "_" for c in text)


def env_kind(prefix: Path) -> str | None:
    if (prefix / "conda-meta").is_dir():
        return "conda"
    if (prefix / "pyvenv.cfg").is_file():
        return "venv"
    return None


def _bin_dirs(prefix: Path, kind: str, windows: bool) -> tuple[Path, ...]:
    if not windows:
        return (prefix / "bin",)
    if kind == "venv":
        return (prefix / "Scripts",)
    # what `conda activate` puts on PATH on Windows
    return (prefix, prefix / "Library" / "mingw-w64" / "bin", prefix / "Library" / "usr" / "bin",
            prefix / "Library" / "bin", prefix / "Scripts", prefix / "bin")


def _python(prefix: Path, kind: str, windows: bool) -> Path:
    if windows:
        return prefix / ("python.exe" if kind == "conda" else "Scripts/python.exe")
    return prefix / "bin" / "python"


def find_env(path: Path | str, *, windows: bool = WINDOWS) -> EnvInfo:
    """The env at ``path``; raises ``EnvError`` (with "run `torchenv up` first") if there is none."""
    from .errors import EnvError

    prefix = Path(path).absolute()
    if prefix.is_symlink() and not prefix.exists():
        raise EnvError(_("{prefix} is a symbolic link to {value}, which does not exist").format(
                           prefix=prefix, value=os.readlink(prefix)),
                       hint=_("remove the link (`rm {prefix}`) and run `torchenv up`, or recreate its target").format(
                                prefix=prefix))
    if not prefix.exists():
        raise EnvError(_("{prefix}: no environment here yet").format(prefix=prefix),
                       hint=_("run `torchenv up` first (or pass --env PATH to use another environment)"))
    kind = env_kind(prefix)
    if kind is None:
        raise EnvError(_("{prefix}: not a virtual environment or conda prefix (no pyvenv.cfg or conda-meta/)").format(
                           prefix=prefix),
                       hint=_("point [env] path in torchenv.toml (or --env) at an environment, or run `torchenv "
                              "up` to create one"))
    python = _python(prefix, kind, windows)
    if not python.exists():
        raise EnvError(_("{prefix}: environment has no interpreter at {python}").format(
                           prefix=prefix, python=python),
                       hint=_("the environment is broken; `torchenv up` recreates it"))
    return EnvInfo(prefix=prefix, kind=kind, python=python, bin_dirs=_bin_dirs(prefix, kind, windows))


def activated_environ(env: EnvInfo, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """``base`` (default ``os.environ``) as the env's activate script would leave it."""
    out = dict(os.environ if base is None else base)
    path_key = next((k for k in out if k.upper() == "PATH"), "PATH")
    parts = [p for p in out.get(path_key, "").split(os.pathsep) if p]
    stale = out.get("VIRTUAL_ENV")
    if stale and Path(stale) != env.prefix:   # leave another active venv: drop its bin dir
        stale_bins = {str(d) for d in _bin_dirs(Path(stale), "venv", WINDOWS)}
        parts = [p for p in parts if p not in stale_bins]
    ours = [str(d) for d in env.bin_dirs]
    parts = ours + [p for p in parts if p not in ours]
    out[path_key] = os.pathsep.join(parts)
    out.pop("PYTHONHOME", None)
    if env.kind == "venv":
        out["VIRTUAL_ENV"] = str(env.prefix)
        out["VIRTUAL_ENV_PROMPT"] = env.name
    else:
        out.pop("VIRTUAL_ENV", None)
        out.pop("VIRTUAL_ENV_PROMPT", None)
        out["CONDA_PREFIX"] = str(env.prefix)
        out["CONDA_DEFAULT_ENV"] = str(env.prefix)
        out["CONDA_PROMPT_MODIFIER"] = f"({env.name}) "
    out[ACTIVE_VAR] = str(env.prefix)
    return out


def shell_family(shell: str) -> str:
    """bash | zsh | fish | csh | powershell | cmd | sh, from a shell path or name."""
    name = Path(shell).name.lower()
    name = name[:-4] if name.endswith(".exe") else name
    if name in ("pwsh", "powershell"):
        return "powershell"
    if name == "cmd":
        return "cmd"
    if name in ("csh", "tcsh"):
        return "csh"
    if name in ("bash", "zsh", "fish"):
        return name
    return "sh"


def activation_command(env: EnvInfo, shell: str = "bash") -> str:
    """The line a user types to activate the env in ``shell`` by hand."""
    family = shell_family(shell)
    if env.kind == "conda":
        return f"conda activate {_quote(str(env.prefix), family)}"
    scripts = env.bin_dirs[0]
    script = {"fish": "activate.fish", "csh": "activate.csh", "powershell": "Activate.ps1",
              "cmd": "activate.bat"}.get(family, "activate")
    target = scripts / script
    if family == "powershell":
        return f"& {_quote(str(target), family)}"
    if family == "cmd":
        return _quote(str(target), family)
    return f"{'.' if family == 'sh' else 'source'} {_quote(str(target), family)}"


def activation_lines(env: EnvInfo, shell: str = "bash") -> str:
    """What activating sets, as lines ``shell`` evaluates: for direnv-style tools (``.envrc``:
    ``eval "$(torchenv shell --print)"``), which load variables and cannot run ``conda activate``
    or keep the shell functions an activate script defines."""
    family = shell_family(shell)
    names = ("VIRTUAL_ENV", "VIRTUAL_ENV_PROMPT") if env.kind == "venv" else ("CONDA_PREFIX", "CONDA_DEFAULT_ENV")
    values = activated_environ(env, {})
    bins = os.pathsep.join(str(d) for d in env.bin_dirs)
    if family == "fish":
        return "\n".join([*(f"set -gx {n} {_quote(values[n], family)}" for n in names),
                          f"set -gx PATH {_quote(bins, family)} $PATH", "set -e PYTHONHOME"])
    if family == "csh":
        return "\n".join([*(f"setenv {n} {_quote(values[n], family)}" for n in names),
                          f'setenv PATH {_quote(bins, family)}:"$PATH"', "unsetenv PYTHONHOME"])
    if family in ("cmd", "powershell"):   # pragma: no cover - Windows: the activate script is the way there
        return activation_command(env, shell)
    return "\n".join([*(f"export {n}={_quote(values[n], family)}" for n in names),
                      f'export PATH={_quote(bins, family)}:"$PATH"', "unset PYTHONHOME"])


def _quote(text: str, family: str) -> str:
    if family in ("cmd", "powershell"):
        return f'"{text}"' if " " in text else text
    return shlex.quote(text)


def project_env_path(project_dir: Path | str, env_arg: str | None = None) -> Path:
    """``--env`` if given, else ``[env] path`` of torchenv.toml (relative to the project), else ``.venv``."""
    project = Path(project_dir)
    if env_arg:
        return Path(env_arg).expanduser().absolute()
    try:
        from .intent.load import load_project_intent
    except ImportError:   # intent loader not available: the documented default
        return (project / ".venv").absolute()
    raw = load_project_intent(project).env.path or ".venv"
    path = Path(raw).expanduser()
    return (path if path.is_absolute() else project / path).absolute()
