"""Flags an env was built with are not forgotten: ``torchenv.lock`` remembers them.

Why the lock: after ``up --cuda cu130 --python 3.11`` worked, a plain ``up`` that re-planned
from torchenv.toml alone would throw away a working env (or fail where the flags were
needed). The lock records the intent flags of the ``up`` that wrote it, with the hash of
torchenv.toml they were applied to; a plain ``up`` applies them again while torchenv.toml is
unchanged, and says so. Flags given on the command line replace the remembered ones;
``--reset-overrides`` plans from torchenv.toml alone; ``--save`` writes them into
torchenv.toml (comments kept, through tomlkit) so teammates get them too.

Standard library only on the no-op path (``remembered_args`` and ``said``).
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import IntentError
from ..intent.load import _FLAGS

if TYPE_CHECKING:
    from ..intent.model import Intent
    from ..lock.model import Lockfile

# (args attribute, flag, torchenv.toml section, key): the flags that change the intent's meaning
# (``[mirror]`` is not part of it), plus the two flags ``apply_overrides`` handles by hand
INTENT_FLAGS = (*(f for f in _FLAGS if f[2] != "mirror"),
                ("with_", "--with", "torch", "with"), ("experimental", "--experimental", "torch", "experimental"))
TOML_HASH = "toml-hash"


def given(args: argparse.Namespace) -> dict[str, Any]:
    """``{attribute: value}`` of the intent flags on this command line."""
    out = {}
    for attr, _flag, _section, _key in INTENT_FLAGS:
        value = getattr(args, attr, None)
        if value not in (None, False, [], ()):
            out[attr] = list(value) if isinstance(value, (list, tuple)) else value
    return out


def record(args: argparse.Namespace, base: "Intent") -> dict[str, Any]:
    """The lock's ``[overrides]`` table: the flags applied, and which torchenv.toml they were applied to."""
    flags = given(args)
    return {TOML_HASH: base.hash(), **flags} if flags else {}


def remembered_args(args: argparse.Namespace, base: "Intent",
                    lock: "Lockfile | None") -> tuple[argparse.Namespace, dict[str, Any]]:
    """``args`` with the lock's remembered flags filled in, and those flags (empty when none apply).

    They apply only to a command line without intent flags, without ``--reset-overrides``,
    and while torchenv.toml means what it meant when they were recorded.
    """
    kept = dict(lock.overrides) if lock is not None else {}
    if (not kept or given(args) or getattr(args, "reset_overrides", False)
            or kept.pop(TOML_HASH, None) != base.hash()):
        return args, {}
    names = {attr for attr, *_ in INTENT_FLAGS}
    kept = {k: v for k, v in kept.items() if k in names}
    return argparse.Namespace(**{**vars(args), **kept}), kept


def said(kept: dict[str, Any]) -> str:
    """One sentence for the output: which flags were kept, and how to change that."""
    flags = " ".join(_flag_words(attr, value) for attr, value in kept.items())
    return (f"kept {flags} from the last `torchenv up` (torchenv.lock remembers them); "
            "`--save` writes them into torchenv.toml, `--reset-overrides` plans from torchenv.toml alone")


def _flag_words(attr: str, value: Any) -> str:
    flag = next(f for a, f, *_ in INTENT_FLAGS if a == attr)
    if value is True:
        return flag
    values = value if isinstance(value, list) else [value]
    return " ".join(f"{flag} {v}" for v in values)


def add_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--save", action="store_true",
                   help="write the intent flags (--torch, --cuda, --python, ...) into torchenv.toml, comments kept")
    p.add_argument("--reset-overrides", action="store_true",
                   help="plan from torchenv.toml alone, dropping the flags torchenv.lock remembers from the last up")


def save_to_toml(project_dir: Path, flags: dict[str, Any]) -> Path:
    """Write ``flags`` into the project's torchenv.toml (created when missing); comments and order kept."""
    import tomlkit

    from ..fileio import write_atomic
    from ..intent.load import INTENT_FILE

    path = Path(project_dir) / INTENT_FILE
    try:
        doc = tomlkit.parse(path.read_text(encoding="utf-8")) if path.exists() else tomlkit.document()
    except (OSError, ValueError) as exc:
        raise IntentError(f"cannot update it for --save: {exc}", file=str(path),
                          hint="fix the file, or drop --save and edit it by hand") from None
    for attr, value in flags.items():
        _flag, section, key = next((f, s, k) for a, f, s, k in INTENT_FLAGS if a == attr)
        table = doc.get(section)
        if table is None:
            table = tomlkit.table()
            doc[section] = table
        if attr == "with_":
            value = sorted(set(table.get(key, [])) | set(value))
        table[key] = value
    write_atomic(path, tomlkit.dumps(doc))
    return path
