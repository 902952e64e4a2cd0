"""Flags an env was built with are not forgotten: ``torchenv.lock`` remembers them.

Why the lock: after ``up --cuda cu130 --python 3.11`` worked, a plain ``up`` that re-planned
from torchenv.toml alone would throw away a working env (or fail where the flags were
needed). The lock records the intent flags of the ``up`` that wrote it, with the hash of
torchenv.toml they were applied to; a plain ``up`` applies them again while torchenv.toml is
unchanged, and says so. Flags given on the command line replace the remembered ones;
``--reset-overrides`` plans from torchenv.toml alone; ``--save`` writes them into
torchenv.toml (comments kept, through tomlkit) so teammates get them too.

Standard library only on the no-op path (``remembered`` and ``said``); the flags themselves are
``UpOptions`` fields (``save``, ``reset_overrides``) set at the CLI edge.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import IntentError
from ..i18n import _
from ..intent.load import INTENT_FLAG_KEYS

if TYPE_CHECKING:
    from ..intent.model import Intent
    from ..lockfile.model import Lockfile
    from ..options import IntentOverrides

# (IntentOverrides field, flag, torchenv.toml section, key): the flags that change the intent's meaning
# (``[mirror]`` is not part of it), plus the two flags ``apply_overrides`` handles by hand
INTENT_FLAGS = (*(f for f in INTENT_FLAG_KEYS if f[2] != "mirror"),
                ("with_", "--with", "torch", "with"), ("experimental", "--experimental", "torch", "experimental"))
TOML_HASH = "toml-hash"


def given(overrides: IntentOverrides) -> dict[str, Any]:
    """``{field: value}`` of the intent flags given (lists for ``--with``, as the lock stores them)."""
    out = {}
    for attr, _flag, _section, _key in INTENT_FLAGS:
        value = getattr(overrides, attr)
        if value not in (None, False, [], ()):
            out[attr] = list(value) if isinstance(value, (list, tuple)) else value
    return out


def record(overrides: IntentOverrides, base: Intent) -> dict[str, Any]:
    """The lock's ``[overrides]`` table: the flags applied, and which torchenv.toml they were applied to."""
    flags = given(overrides)
    return {TOML_HASH: base.hash(), **flags} if flags else {}


def remembered(overrides: IntentOverrides, base: Intent, lock: Lockfile | None, *,
               reset: bool = False) -> tuple[IntentOverrides, dict[str, Any]]:
    """``overrides`` with the lock's remembered flags filled in, and those flags (empty when none apply).

    They apply only when no intent flag is given, without ``--reset-overrides`` (``reset``),
    and while torchenv.toml means what it meant when they were recorded.
    """
    kept = dict(lock.overrides) if lock is not None else {}
    if not kept or given(overrides) or reset or kept.pop(TOML_HASH, None) != base.hash():
        return overrides, {}
    names = {attr for attr, *_ in INTENT_FLAGS}
    kept = {k: v for k, v in kept.items() if k in names}
    typed: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in kept.items()}
    return dataclasses.replace(overrides, **typed), kept


def said(kept: dict[str, Any]) -> str:
    """One sentence for the output: which flags were kept, and how to change that."""
    flags = " ".join(_flag_words(attr, value) for attr, value in kept.items())
    return _("kept {flags} from the last `torchenv up` (torchenv.lock remembers them); "
             "`--save` writes them into torchenv.toml, `--reset-overrides` plans from torchenv.toml alone").format(
        flags=flags)


def _flag_words(attr: str, value: Any) -> str:
    flag = next(f for a, f, *_ in INTENT_FLAGS if a == attr)
    if value is True:
        return flag
    values = value if isinstance(value, (list, tuple)) else [value]
    return " ".join(f"{flag} {v}" for v in values)


def save_to_toml(project_dir: Path, flags: dict[str, Any]) -> Path:
    """Write ``flags`` into the project's torchenv.toml (created when missing); comments and order kept."""
    import tomlkit

    from ..fileio import write_atomic
    from ..intent.model import INTENT_FILE

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
