"""What changed between two lock targets, in lines a user can read at a glance."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .model import LockTarget


def diff_targets(old: LockTarget | None, new: LockTarget) -> list[str]:
    """``tier: cu121 -> cu126``, ``torch 2.4.1+cu121 -> 2.5.1+cu126``, ``+ numpy 2.1.0``, ``- pillow 10.4.0``."""
    if old is None:
        return [f"new target {new.name}: torch {new.torch}, Python {new.python}, {len(new.wheels)} packages"]
    out = []
    for field in ("tier", "python", "backend"):
        before, after = getattr(old, field), getattr(new, field)
        if before != after:
            out.append(f"{field}: {before} -> {after}")
    if old.name != new.name:
        out.insert(0, f"target: {old.name} -> {new.name}")
    was = {w.name: w.version for w in old.wheels}
    now = {w.name: w.version for w in new.wheels}
    for name in sorted(was.keys() | now.keys()):
        if name not in now:
            out.append(f"- {name} {was[name]}")
        elif name not in was:
            out.append(f"+ {name} {now[name]}")
        elif was[name] != now[name]:
            out.append(f"  {name} {was[name]} -> {now[name]}")
    return out
