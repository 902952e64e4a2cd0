"""``CUDA_VISIBLE_DEVICES``: plan for the GPUs a process started here will actually see.

Why in the probe: a GPU hidden by the variable cannot break a build, and an all-hiding value
("" or "-1") is the classic "torch.cuda.is_available() is False" cause users hunt for. Rules
follow CUDA's: a comma list of indices or ``GPU-<uuid>`` (a unique prefix is enough); the first
entry that names no GPU ends the list; ``-1`` or an empty value hides everything. ``MIG-<uuid>``
entries name MIG instances that only NVML could map to their GPU, so they leave the list as is.
Indices are nvidia-smi/NVML's (PCI order); ``CUDA_DEVICE_ORDER=FASTEST_FIRST`` may number them
differently, which changes which GPU is "0" but not which architectures must be served.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ...machine import Gpu
from ...reasons import MACHINE, reason


@dataclass
class Visibility:
    gpus: list[Gpu]
    hidden: int
    notes: list[str] = field(default_factory=list)


def _match(token: str, gpus: list[Gpu]) -> Gpu | None:
    if token.isdigit():
        return next((g for g in gpus if g.index == int(token)), None)
    if token.upper().startswith("GPU-"):
        hits = [g for g in gpus if g.uuid and g.uuid.lower().startswith(token.lower())]
        return hits[0] if len(hits) == 1 else None
    return None


def _listed(tokens: list[str], gpus: list[Gpu], shown: str, notes: list[str]) -> list[Gpu]:
    """The GPUs the entries name, in order, up to the first entry naming none (CUDA stops there)."""
    visible: list[Gpu] = []
    for token in tokens:
        gpu = _match(token, gpus)
        if gpu is None:
            if gpus and token not in ("", "-1"):
                notes.append(reason("probe.cvd_bad_entry", MACHINE, shown=shown, entry=repr(token)))
            break
        if gpu not in visible:
            visible.append(gpu)
    return visible


def _hidden_note(gpus: list[Gpu], visible: list[Gpu], shown: str) -> str | None:
    hidden = len(gpus) - len(visible)
    if gpus and not visible:
        return reason("probe.cvd_hides_all", MACHINE, shown=shown, count=len(gpus))
    if hidden:
        names = ", ".join(f"{g.index}: {g.name}" for g in gpus if g not in visible)
        return reason("probe.cvd_hides_some", MACHINE, shown=shown, hidden=hidden, count=len(gpus), names=names)
    return None


def apply_visible_devices(gpus: list[Gpu], value: str | None) -> Visibility:
    if value is None:
        return Visibility(list(gpus), 0)
    shown = f"CUDA_VISIBLE_DEVICES={value!r}" if not value.strip() else f"CUDA_VISIBLE_DEVICES={value}"
    tokens = [t.strip() for t in value.split(",")]
    if any(t.upper().startswith("MIG-") for t in tokens):
        return Visibility(list(gpus), 0, [reason("probe.mig", MACHINE, shown=shown, count=len(gpus))])
    notes: list[str] = []
    visible = _listed(tokens, gpus, shown, notes)
    note = _hidden_note(gpus, visible, shown)
    if note:
        notes.append(note)
    return Visibility(visible, len(gpus) - len(visible), notes)
