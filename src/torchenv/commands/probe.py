"""``torchenv probe [--json] [--save FILE]``: what this machine offers, as the planner sees it.

Why ``--save``: the file is what ``--machine FILE`` reads, so a plan or lock can be made for a
GPU server from a laptop. It is written atomically (temp file + ``os.replace``): an interrupted
run never leaves half a machine file behind.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..i18n import _
from ._options import add_json, add_quiet

if TYPE_CHECKING:
    from ..machine import Machine
    from ..ui import Ui


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("probe", help=_("show this machine: driver, GPUs and compute capability, Pythons"),
                       description=_("Probe this machine (NVIDIA driver and GPUs, ROCm, Apple MPS, Pythons, "
                                     "conda, CUDA toolkits). Problems found are reported, never fatal."))
    add_json(p)
    add_quiet(p)
    p.add_argument("--save", metavar="FILE",
                   help=_("also write the probe as JSON to FILE, for `--machine FILE` on another machine"))
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..probing import probe_machine
    from ..ui import Ui

    ui = Ui(quiet=getattr(args, "quiet", False), json_mode=args.json)
    machine = probe_machine()
    if args.save:
        save_machine(machine, Path(args.save))
    if args.json:
        ui.emit_json(probe_json(machine))
    else:
        render(ui, machine)
        if args.save:
            ui.info(f"saved to {args.save} (use it with --machine {args.save})")
    return 0


def probe_json(machine: Machine) -> dict[str, Any]:
    """The machine, plus (additive) the same facts as wheel-variant properties; ``--machine`` ignores the extra block."""
    from ..probing.variants import variants_block

    return {**machine.to_json(), "variants": variants_block(machine)}


def save_machine(machine: Machine, path: Path) -> None:
    """Write the machine file atomically; errors name the file."""
    from ..errors import MachineFileError
    from ..fileio import write_atomic

    path = path.expanduser()
    try:
        write_atomic(path, json.dumps(probe_json(machine), indent=2, sort_keys=True) + "\n")
    except OSError as exc:
        raise MachineFileError(_("{path}: cannot write the machine file ({value})").format(
                                   path=path, value=exc.strerror or exc),
                               hint=_("choose a writable path for --save")) from None


def arch_needed(cc: str | None) -> str:
    """What a build must contain to run on a GPU: SASS of the same major and ≤ minor, or PTX."""
    if not cc:
        return "unknown"
    major, _sep, minor = cc.partition(".")
    if minor in ("", "0"):
        return f"sm_{major}0 (or PTX)"
    return f"sm_{major}0…sm_{major}{minor} (or PTX)"


def _gpu_table(nv: Any) -> Any:
    from rich.table import Table

    table = Table("#", "GPU", "compute capability", "memory", "a build needs", box=None, pad_edge=False)
    for gpu in nv.gpus:
        memory = f"{gpu.memory_mib / 1024:.0f} GiB" if gpu.memory_mib else "?"
        table.add_row(str(gpu.index), gpu.name, gpu.compute_capability or "[yellow]unknown[/]",
                      memory, arch_needed(gpu.compute_capability))
    return table


def _render_nvidia(con: Any, machine: Machine) -> None:
    nv = machine.nvidia
    if nv is None:
        con.print("[bold]NVIDIA[/] no GPU")
        return
    con.print(f"[bold]NVIDIA[/] driver {nv.driver or 'unknown'}, supports CUDA up to "
              f"{nv.cuda_driver_version or 'unknown'} [dim](from {nv.source})[/]")
    if nv.gpus:
        con.print(_gpu_table(nv))
    if nv.hidden_by_cuda_visible_devices:
        con.print(f"  [dim]{nv.hidden_by_cuda_visible_devices} more hidden by "
                  f"CUDA_VISIBLE_DEVICES={machine.cuda_visible_devices}[/]")


def _render_other_gpus(con: Any, machine: Machine) -> None:
    if machine.rocm is not None:
        con.print(f"[bold]ROCm[/] {machine.rocm.version or 'not installed'}; GPUs: "
                  f"{', '.join(machine.rocm.gfx) or 'none'}")
    if machine.apple is not None:
        con.print(f"[bold]Apple[/] {machine.apple.chip or 'Apple silicon'}, MPS "
                  f"{'available' if machine.apple.mps else 'unavailable'}")


def _render_pythons(con: Any, machine: Machine) -> None:
    from rich.table import Table

    if not machine.pythons:
        con.print("[bold]Python[/] none found (torchenv can use a uv-managed Python)")
        return
    table = Table("Python", "from", "path", box=None, pad_edge=False, title_justify="left")
    for py in machine.pythons:
        table.add_row(py.version, py.source, py.path)
    con.print(table)


def _render_toolchains(con: Any, machine: Machine) -> None:
    """conda installs and CUDA toolkits: what can build or host an env besides the wheels."""
    from rich.table import Table

    if machine.conda:
        con.print("[bold]conda[/] " + ", ".join(f"{c.kind} {c.version or ''} ({c.path})".replace("  ", " ")
                                                 for c in machine.conda))
    if machine.cuda_toolkits:
        table = Table("CUDA toolkit", "from", "path", box=None, pad_edge=False)
        for tk in machine.cuda_toolkits:
            table.add_row(tk.version or "?", tk.source, tk.path)
        con.print(table)
        con.print("  [dim]torch wheels bring their own CUDA runtime; a toolkit matters only for compiling extensions[/]")


def render(ui: Ui, machine: Machine) -> None:
    """The probe as a person reads it: machine, GPUs by vendor, Pythons, toolchains, then what looked wrong."""
    from ..reasons import shown

    con = ui.console
    platform = f"{machine.os}-{machine.arch}"
    extras = [f"glibc {machine.glibc}" if machine.glibc else None, "WSL2" if machine.wsl else None]
    con.print(f"[bold]Machine[/] {platform}" + "".join(f", {e}" for e in extras if e))
    _render_nvidia(con, machine)
    _render_other_gpus(con, machine)
    _render_pythons(con, machine)
    _render_toolchains(con, machine)
    for finding in machine.findings:
        ui.warn(shown(finding))
