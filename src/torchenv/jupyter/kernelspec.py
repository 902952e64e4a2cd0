"""The kernelspecs torchenv registers: one per project env, in the user's Jupyter data dir.

Why files and not ``jupyter_client``: a kernelspec is a folder holding ``kernel.json`` (its
format is documented by jupyter_client), and torchenv must work where Jupyter is not installed
beside it (the Jupyter that starts the kernel runs elsewhere: a user-level JupyterLab, a hub,
an editor). The data dir follows jupyter_core's own rules (``JUPYTER_DATA_DIR``, then
``JUPYTER_PLATFORM_DIRS``, then the per-OS default), so ``jupyter kernelspec list`` finds it.

Why a marker: ``metadata.torchenv`` names the env and the project, so a kernelspec is found
again by its env (updated, never duplicated), and only those kernelspecs are ever changed or
removed; any other kernelspec, even one with the name torchenv would choose, is left alone.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import KernelError
from ..i18n import _

if TYPE_CHECKING:
    from ..activation import EnvInfo
    from ..lockfile.model import LockTarget

MARKER = "torchenv"
SCHEMA = 1
KERNEL_FILE = "kernel.json"


def data_dir(environ: Mapping[str, str] | None = None) -> Path:
    """The user's Jupyter data dir, by jupyter_core's rules (``jupyter --data-dir`` prints the same)."""
    env = os.environ if environ is None else environ
    if env.get("JUPYTER_DATA_DIR"):
        return Path(env["JUPYTER_DATA_DIR"]).expanduser()
    if env.get("JUPYTER_PLATFORM_DIRS", "no").lower() not in ("no", "n", "false", "off", "0", "0.0"):
        import platformdirs

        app = "Jupyter" if sys.platform in ("darwin", "win32") else "jupyter"
        return Path(platformdirs.user_data_dir(app, appauthor=False))
    home = Path(env.get("HOME") or Path.home())
    if sys.platform == "darwin":
        return home / "Library" / "Jupyter"
    if os.name == "nt":   # pragma: no cover - Windows
        appdata = env.get("APPDATA")
        return Path(appdata) / "jupyter" if appdata else home / ".jupyter" / "data"
    return Path(env.get("XDG_DATA_HOME") or home / ".local" / "share") / "jupyter"


def kernels_dir(environ: Mapping[str, str] | None = None) -> Path:
    return data_dir(environ) / "kernels"


@dataclass(frozen=True)
class Kernel:
    """One of torchenv's kernelspecs, as read from (or about to be written to) its folder."""

    name: str                 # the folder name: what `jupyter kernelspec list` shows, lower case
    folder: Path
    display_name: str
    env: str                  # absolute env prefix
    project: str
    target: str = ""
    torch: str = ""

    @property
    def env_gone(self) -> bool:
        from ..activation import env_kind

        return env_kind(Path(self.env)) is None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "folder": str(self.folder), "display_name": self.display_name, "env": self.env,
                "project": self.project, "target": self.target, "torch": self.torch, "env_gone": self.env_gone}


def kernel_name(env: Path, project: Path) -> str:
    """Stable for an env: the project's name (as Jupyter allows names) and a digest of the env's path."""
    slug = re.sub(r"[^a-z0-9._-]+", "-", project.name.lower()).strip("-.") or "project"
    return f"torchenv-{slug[:40]}-{hashlib.sha256(str(env).encode()).hexdigest()[:8]}"


def display_name(project: Path, target: LockTarget) -> str:
    """What a notebook's kernel menu shows: ``proj (torch 2.13.0, cu126)``."""
    return f"{project.name} (torch {target.torch.split('+')[0]}, {target.tier})"


def _read(folder: Path) -> Kernel | None:
    try:
        spec = json.loads((folder / KERNEL_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    marker = (spec.get("metadata") or {}).get(MARKER) if isinstance(spec, dict) else None
    if not isinstance(marker, dict) or not isinstance(marker.get("env"), str):
        return None
    return Kernel(folder.name, folder, str(spec.get("display_name", folder.name)), marker["env"],
                  str(marker.get("project", "")), str(marker.get("target", "")), str(marker.get("torch", "")))


def ours(environ: Mapping[str, str] | None = None) -> list[Kernel]:
    """Every kernelspec of the data dir that carries torchenv's marker, by name."""
    root = kernels_dir(environ)
    try:
        folders = sorted(p for p in root.iterdir() if p.is_dir() and not p.is_symlink())
    except OSError:
        return []
    return [k for k in map(_read, folders) if k is not None]


def spec_json(env: EnvInfo, project: Path, target: LockTarget, cuda_home: str | None) -> dict[str, Any]:
    """The ``kernel.json`` of ``env``: its interpreter, and what activating it sets (``${PATH}`` is
    expanded by jupyter_client from the server's own environment when the kernel starts)."""
    variables = {"PATH": os.pathsep.join([*(str(d) for d in env.bin_dirs), "${PATH}"])}
    variables["CONDA_PREFIX" if env.kind == "conda" else "VIRTUAL_ENV"] = str(env.prefix)
    if cuda_home:
        variables["CUDA_HOME"] = cuda_home
    return {"argv": [str(env.python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": display_name(project, target), "language": "python", "env": variables,
            "metadata": {"debugger": True,
                         MARKER: {"schema": SCHEMA, "env": str(env.prefix), "project": str(project),
                                  "target": target.name, "torch": target.torch}}}


@dataclass(frozen=True)
class Registered:
    kernel: Kernel
    change: str               # registered | updated | unchanged


def register(env: EnvInfo, project: Path, target: LockTarget, *, cuda_home: str | None = None,
             environ: Mapping[str, str] | None = None) -> Registered:
    """Write (or update) the kernelspec of ``env``; refuses a folder of that name torchenv did not write."""
    from ..fileio import write_atomic

    name = kernel_name(env.prefix, project)
    folder = kernels_dir(environ) / name
    found = _read(folder) if folder.exists() else None
    if folder.exists() and (found is None or found.env != str(env.prefix) or folder.is_symlink()):
        raise KernelError(_("{folder} is a kernelspec torchenv did not write for {env}; it was left untouched").format(
                              folder=folder, env=env.prefix),
                          hint=_("remove it yourself (`jupyter kernelspec remove {name}`) if it is stale, then run "
                                 "`torchenv kernel install`").format(name=name))
    body = json.dumps(spec_json(env, project, target, cuda_home), indent=1, sort_keys=True) + "\n"
    try:
        old = (folder / KERNEL_FILE).read_text(encoding="utf-8") if found else None
    except OSError:
        old = None
    if old != body:
        write_atomic(folder / KERNEL_FILE, body)
    kernel = _read(folder)
    assert kernel is not None, "the kernelspec was just written"
    return Registered(kernel, "unchanged" if old == body else "updated" if found else "registered")


def remove(kernel: Kernel) -> bool:
    """Remove one of torchenv's kernelspecs (re-checked by ``safety``); ``False``: it was refused."""
    from .. import safety

    return safety.remove_kernelspec(kernel.folder, env=kernel.env)


def of_project(project: Path, environ: Mapping[str, str] | None = None) -> list[Kernel]:
    return [k for k in ours(environ) if k.project == str(project)]
