"""Writing a commented ``torchenv.toml`` (``torchenv init``).

Why tomlkit: the file is for people, so every key carries a comment saying what it does,
and keys left at their defaults are shown as commented examples. ``render_intent`` is the
inverse of ``load.intent_from_text`` for every intent it writes (the tests check it), and
``write_intent_file`` never overwrites silently: it refuses without ``force``, and with it
keeps the old bytes in a ``.bak`` next to the file before an atomic replace.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import IntentError
from ..i18n import _
from .model import INTENT_FILE, CondaIntent, EnvIntent, Intent, MirrorIntent, TorchIntent

if TYPE_CHECKING:
    from tomlkit import TOMLDocument
    from tomlkit.items import Table

HEADER = """\
torchenv.toml: what this project needs from PyTorch. torchenv turns it into a plan for each
machine (driver, GPU, OS), builds the environment, records exact files in torchenv.lock and
verifies the result. Command-line flags (--torch, --cuda, ...) override these keys for one run."""


def display_spec(spec: str | None) -> str | None:
    """``"==2.4.*"`` -> ``"2.4"`` and ``"==2.4.1"`` -> ``"2.4.1"``: the short form reads better."""
    if not spec or not spec.startswith("==") or "," in spec:
        return spec
    body = spec[2:]
    star = body.endswith(".*")
    release = body[:-2] if star else body
    if not re.fullmatch(r"\d+(?:\.\d+)*", release):
        return spec
    # normalise_torch_spec maps "2"/"2.4" to "==2.*"/"==2.4.*" and longer releases to "==X.Y.Z"
    return release if star == (release.count(".") <= 1) else spec


def render_intent(intent: Intent, notes: dict[str, str] | None = None) -> str:
    """A commented torchenv.toml for ``intent``; ``notes`` maps "torch.version" -> where it came from."""
    import tomlkit

    notes = notes or {}
    doc = tomlkit.document()
    for line in HEADER.splitlines():
        doc.add(tomlkit.comment(line))
    doc.add(tomlkit.nl())
    doc.add("torch", _torch_table(intent.torch, notes))
    doc.add(tomlkit.nl())
    doc.add("env", _env_table(intent.env, notes))
    _optional_table(doc, "mirror", _mirror_entries(intent.mirror), intent.mirror != MirrorIntent(),
                    "Mirrors, when the official indexes are slow or blocked (see `torchenv mirror`).")
    _optional_table(doc, "conda", _conda_entries(intent.conda), intent.conda != CondaIntent(),
                    "Used when [env] backend = \"conda\": extra channels and packages.")
    return tomlkit.dumps(doc)


def _add(table: Table, key: str, value: object, comment: str, note: str | None = None) -> None:
    import tomlkit

    table.add(tomlkit.comment(comment))
    item = tomlkit.item(list(value) if isinstance(value, tuple) else value)
    if note:
        item.comment(note)
    table.add(key, item)


def _example(table: Table, key: str, example: str, comment: str) -> None:
    import tomlkit

    table.add(tomlkit.comment(comment))
    table.add(tomlkit.comment(f"{key} = {example}"))


def _torch_table(t: TorchIntent, notes: dict[str, str]) -> Table:
    import tomlkit

    table = tomlkit.table()
    comment = 'PEP 440 spec or bare version: "2.4" = newest 2.4.x that fits, "2.4.1" = exactly, ">=2.3,<2.5"'
    if t.version:
        _add(table, "version", display_spec(t.version), comment, notes.get("torch.version"))
    else:
        _example(table, "version", '"2.4"', comment + "; unset = newest that fits")
    _add(table, "cuda", t.cuda, 'GPU build: "auto" = best for this machine\'s driver, "cpu", "cu121" (or "12.1"), '
         '"rocm6.2"', notes.get("torch.cuda"))
    comment = 'Python for the environment, "X.Y"'
    if t.python:
        _add(table, "python", t.python, comment, notes.get("torch.python"))
    else:
        _example(table, "python", '"3.11"', comment + "; unset = one the torch release supports")
    _add(table, "with", t.with_, "companions installed in the build matching torch: torchvision, torchaudio",
         notes.get("torch.with"))
    _add(table, "policy", t.policy, 'driver check: "compat" = CUDA minor-version compatibility, '
         '"strict" = the driver the toolkit ships with')
    _add(table, "experimental", t.allow_experimental, "allow experimental CUDA tiers even when a stable one fits")
    return table


def _env_table(e: EnvIntent, notes: dict[str, str]) -> Table:
    import tomlkit

    table = tomlkit.table()
    _add(table, "path", e.path, "where the environment lives, relative to this file")
    _add(table, "backend", e.backend, '"venv", "conda", or "auto" (conda only when something needs it)')
    _add(table, "installer", e.installer, 'wheel installer: "uv" (fast) or "pip"')
    comment = "the project's requirement files, installed into the environment along with torch"
    if e.requirements:
        _add(table, "requirements", e.requirements, comment, notes.get("env.requirements"))
    else:
        _example(table, "requirements", '["requirements.txt"]', comment + "; unset = found automatically")
    if e.extras:
        _add(table, "extras", e.extras, "the project's own optional dependencies installed too, as "
             '`pip install -e ".[extra]"` does', notes.get("env.extras"))
    return table


def _mirror_entries(m: MirrorIntent) -> list[tuple[str, object, str, str]]:
    """(key, value or None, example, comment) rows of [mirror]."""
    return [
        ("use", m.use, '"tuna"', 'a preset name (see `torchenv mirror list`), "auto" or "official"'),
        ("pypi", m.pypi, '"https://pypi.example/simple"', "PyPI-side simple index for everything but torch"),
        ("torch", m.torch, '"https://mirror.example/pytorch-wheels"', "base of torch wheels: <base>/<tier>/"),
        ("torch-layout", m.torch_layout, '"index"', '"index" (PEP 503 pages) or "flat" (one page of links)'),
        ("conda", m.conda or None, '{ "conda-forge" = "https://mirror.example/conda-forge" }',
         "conda channel -> mirror URL"),
        ("fallback", m.fallback or None, '["aliyun"]', "presets tried in order when the first fails"),
    ]


def _conda_entries(c: CondaIntent) -> list[tuple[str, object, str, str]]:
    return [
        ("channels", c.channels, '["conda-forge"]', "channels, in priority order"),
        ("packages", c.packages or None, '["cuda-nvcc"]', "extra conda packages (compilers, CUDA toolkit parts)"),
        ("torch-source", c.torch_source, '"wheels"', 'torch from the official "wheels" or from "conda" packages'),
    ]


def _optional_table(doc: TOMLDocument, name: str, rows: list[tuple[str, object, str, str]], write: bool,
                    about: str) -> None:
    """A real table when it has non-default values, else the whole table as commented examples."""
    import tomlkit

    doc.add(tomlkit.nl())
    if not write:
        doc.add(tomlkit.comment(about))
        doc.add(tomlkit.comment(f"[{name}]"))
        for key, _value, example, comment in rows:
            doc.add(tomlkit.comment(f"{key} = {example}    # {comment}"))
        return
    table = tomlkit.table()
    table.add(tomlkit.comment(about))
    for key, value, example, comment in rows:
        if value is None:
            _example(table, key, example, comment)
        elif isinstance(value, dict):
            inline = tomlkit.inline_table()
            inline.update(value)
            table.add(tomlkit.comment(comment))
            table.add(key, inline)
        else:
            _add(table, key, value, comment)
    doc.add(name, table)


def write_intent_file(project: Path, text: str, *, force: bool = False) -> Path | None:
    """Write ``project/torchenv.toml``; return the backup path when an old file was replaced.

    Why temp + ``os.replace``: an interrupted write must leave either the old file or the new
    one, never half of either. The backup is written the same way before the swap.
    """
    target = project / INTENT_FILE
    backup = None
    if target.exists():
        if not force:
            refuse_existing(target)
        backup = _free_backup_path(target)
        _atomic_write(backup, target.read_bytes())
    _atomic_write(target, text.encode("utf-8"))
    return backup


def refuse_existing(target: Path) -> None:
    """Raise when ``target`` exists: ``init`` never replaces a user's file without ``--force``."""
    if target.exists():
        raise IntentError(_("already exists; not overwriting it"), file=str(target),
                          hint=_("edit it by hand, or run `torchenv init --force` to replace it "
                                 "(the old file is kept as {backup})").format(backup=f"{INTENT_FILE}.bak"))


def _free_backup_path(target: Path) -> Path:
    """``torchenv.toml.bak``, or ``.bak.1``, ``.bak.2``... so an older backup is never lost."""
    candidate = target.with_name(target.name + ".bak")
    n = 0
    while candidate.exists():
        if candidate.read_bytes() == target.read_bytes():
            return candidate
        n += 1
        candidate = target.with_name(f"{target.name}.bak.{n}")
    return candidate


def _atomic_write(path: Path, data: bytes) -> None:
    from ..fileio import write_atomic

    write_atomic(path, data)
