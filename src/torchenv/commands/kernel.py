"""`torchenv kernel install|remove|list`: the project env's Jupyter kernelspec, by hand.

Why by hand too: ``up`` registers a kernel when the project has notebooks or names Jupyter;
a project without either (a script repo opened from a user-level JupyterLab) asks here, and
a kernelspec whose env is gone is removed here. Only kernelspecs torchenv wrote are listed,
changed or removed.
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from ..i18n import _
from . import _options

if TYPE_CHECKING:
    from ..jupyter.kernelspec import Kernel
    from ..lockfile.model import LockTarget
    from ..ui import Ui


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("kernel", help=_("register, remove or list the project env's Jupyter kernel"),
                       description=_("Jupyter kernelspecs for torchenv's envs, in your Jupyter data dir "
                                     "(JUPYTER_DATA_DIR, else the platform's default)."))
    verbs = p.add_subparsers(dest="kernel_verb", metavar="ACTION", required=True)
    install = verbs.add_parser("install", help=_("register (or update) the kernel of the project's env"))
    _options.add_project(install)
    remove = verbs.add_parser("remove", help=_("remove the project env's kernel, a named one, or those whose env is gone"))
    _options.add_project(remove)
    remove.add_argument("name", nargs="?", help=_("a kernel name from `torchenv kernel list`"))
    remove.add_argument("--gone", action="store_true", help=_("every torchenv kernel whose environment is gone"))
    listing = verbs.add_parser("list", help=_("the kernels torchenv registered"))
    _options.add_json(listing)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..ui import Ui

    ui = Ui(json_mode=getattr(args, "json", False))
    if args.kernel_verb == "install":
        return _install(Path(args.project).resolve(), ui)
    if args.kernel_verb == "remove":
        return _remove(Path(args.project).resolve(), args.name, args.gone, ui)
    return _list(ui)


def _target_of(env: Path, project: Path) -> LockTarget:
    """The lock target the env was synced to (its state), which names the torch and tier of the kernel."""
    from ..backends.state import read_state
    from ..errors import EnvError
    from ..lockfile.io import read_lock
    from ..lockfile.model import LOCK_FILE

    state = read_state(env)
    lock_path = project / LOCK_FILE
    target = read_lock(lock_path).target(state.target) if state is not None and lock_path.is_file() else None
    if target is None:
        raise EnvError(_("{env} was not built by `torchenv up` from {lock}").format(env=env, lock=lock_path),
                       hint=_("run `torchenv up` first"))
    return target


def _install(project: Path, ui: Ui) -> int:
    from ..activation import find_env, project_env_path
    from ..envlayout import site_packages
    from ..errors import EnvError
    from ..jupyter.project import sync_kernel

    env = find_env(project_env_path(project))
    target = _target_of(env.prefix, project)
    if not (site_packages(env.prefix, target.python) / "ipykernel").is_dir():
        raise EnvError(_("{env} has no ipykernel, which a Jupyter kernel runs on").format(env=env.prefix),
                       hint=_("add `jupyter = true` under [env] in torchenv.toml and run `torchenv up` "
                              "(ipykernel is then locked like any package)"))
    done = sync_kernel(env.prefix, project, target)
    change = {"registered": _("registered"), "updated": _("updated"), "unchanged": _("unchanged")}[done.change]
    ui.info(_("kernel {name} ({display}) {change}: {folder}").format(
        name=done.kernel.name, display=done.kernel.display_name, change=change, folder=done.kernel.folder),
        markup=False)
    return 0


def _remove(project: Path, name: str | None, gone: bool, ui: Ui) -> int:
    from ..activation import project_env_path
    from ..errors import KernelError
    from ..jupyter import kernelspec

    known = kernelspec.ours()
    if gone:
        chosen = [k for k in known if k.env_gone]
    elif name:
        chosen = [k for k in known if k.name == name.lower()]
        if not chosen:
            raise KernelError(_("no kernel named {name} was registered by torchenv").format(name=name),
                              hint=_("`torchenv kernel list` shows torchenv's kernels; others are Jupyter's to "
                                     "remove (`jupyter kernelspec remove`)"))
    else:
        env = str(project_env_path(project))
        chosen = [k for k in known if k.env == env]
    for kernel in chosen:
        if kernelspec.remove(kernel):
            ui.info(_("removed kernel {name} ({display})").format(name=kernel.name, display=kernel.display_name),
                    markup=False)
        else:
            ui.warn(_("{folder} holds files torchenv did not write; left untouched").format(folder=kernel.folder))
    if not chosen:
        ui.info(_("no torchenv kernel to remove"))
    return 0


def _list(ui: Ui) -> int:
    from ..jupyter import kernelspec

    known = kernelspec.ours()
    if ui.json_mode:
        ui.emit_json({"kernels_dir": str(kernelspec.kernels_dir()), "kernels": [k.to_json() for k in known]})
        return 0
    if not known:
        ui.info(_("no torchenv kernels in {folder}").format(folder=kernelspec.kernels_dir()))
    for kernel in known:
        _show(kernel, ui)
    return 0


def _show(kernel: Kernel, ui: Ui) -> None:
    state = _("environment gone: `torchenv kernel remove {name}`").format(name=kernel.name) if kernel.env_gone else ""
    ui.info(f"{kernel.name}  {kernel.display_name}  {kernel.env}" + (f"  ({state})" if state else ""), markup=False)
