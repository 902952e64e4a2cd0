"""Reading ``torchenv.toml`` into an ``Intent`` and applying command-line overrides.

Why this shape: the no-op ``up`` path reads the intent on every run, so the happy path is
stdlib ``tomllib`` plus the regex checks in ``schema``/``versions``; anything slow
(``packaging`` for unusual specs, ``difflib`` for suggestions, the line scan in
``locate``) runs only when a value needs it or an error is being reported.
"""
from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import IntentError
from ..i18n import _
from ..reasons import USER, reason
from .model import INTENT_FILE, CondaIntent, EnvIntent, Intent, MirrorIntent, TorchIntent

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

if TYPE_CHECKING:
    from ..options import IntentOverrides, SourceOverrides

_SECTIONS = {"torch": TorchIntent, "env": EnvIntent, "mirror": MirrorIntent, "conda": CondaIntent}


def load_project_intent(project_dir: Path | str) -> Intent:
    """The project's intent: its ``torchenv.toml``, or all defaults when it has none.

    ``Intent.file`` is set only when a file was read; ``Intent.project`` always records the
    directory, so ``-C DIR`` without a torchenv.toml still points at DIR.
    """
    project = Path(project_dir).resolve()
    if not project.is_dir():
        raise IntentError(_("project directory does not exist") if not project.exists()
                          else _("project path is not a directory"), file=str(project),
                          hint=_("pass an existing directory with -C DIR"))
    path = project / INTENT_FILE
    if not path.exists():
        return Intent(project=project)
    return load_intent_file(path)


def load_intent_file(path: Path | str) -> Intent:
    """Parse and validate one torchenv.toml; raise ``IntentError`` naming file, line and key."""
    path = Path(path).resolve()
    name = str(path)
    from ..fileio import TOML_MAX_BYTES, InputRefused, read_bounded

    try:
        raw = read_bounded(path, TOML_MAX_BYTES)
    except InputRefused as exc:
        raise IntentError(exc.message, file=name, hint=_("torchenv.toml is a short file you write by hand; "
                                                         "restore it from version control")) from None
    except OSError as exc:
        raise IntentError(_("cannot read the file: {error}").format(error=exc.strerror or exc), file=name,
                          hint=_("check that it is a readable file")) from None
    text = _decode(raw, name)
    data = parse_text(text, name)
    return Intent(file=path, project=path.parent, **build_sections(data, text, name))


def _decode(raw: bytes, name: str) -> str:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise IntentError(_("the file is not UTF-8 text"), file=name, line=line,
                          hint=_("save it as UTF-8 (TOML files must be UTF-8)")) from None
    return text.removeprefix("\ufeff")  # editors on Windows may add a byte-order mark


def parse_text(text: str, name: str = "<text>") -> dict[str, Any]:
    """TOML text -> dict, with TOML syntax errors turned into ``IntentError`` at file:line."""
    from ..fileio import InputRefused, loads_toml

    try:
        return loads_toml(text)
    except InputRefused as exc:
        hint = (_("keep the lines you want between the <<<<<<<, ======= and >>>>>>> markers, delete the markers, "
                  "then run `torchenv lock` to regenerate the lock") if exc.reason == "conflict"
                else _("torchenv.toml is a short file you write by hand; restore it from version control"))
        raise IntentError(exc.message, file=name, line=exc.line, hint=hint) from None
    except tomllib.TOMLDecodeError as exc:
        from .locate import strip_position, toml_error_line

        msg = str(exc)
        raise IntentError(_("invalid TOML: {error}").format(error=strip_position(msg)), file=name,
                          line=toml_error_line(msg, text),
                          hint=_('check quotes, brackets and "key = value" syntax on that line '
                                 '(strings need quotes: cuda = "cu121")')) from None


def build_sections(data: dict[str, Any], text: str, name: str) -> dict[str, Any]:
    """Validated ``torch``/``env``/``mirror``/``conda`` dataclasses from a parsed document."""
    from .schema import SchemaError, check_document

    try:
        checked = check_document(data)
    except SchemaError as exc:
        from .locate import line_of

        raise IntentError(exc.reason, file=name, line=line_of(text, exc.path),
                          key=".".join(exc.path), hint=exc.hint) from None
    return {table: cls(**checked.get(table, {})) for table, cls in _SECTIONS.items()}


def intent_from_text(text: str, name: str = "<text>") -> Intent:
    """An ``Intent`` from TOML text (no file on disk): used by ``init`` to check what it writes."""
    return Intent(**build_sections(parse_text(text, name), text, name))


# --- flags ----------------------------------------------------------------------------------

# (request attribute, flag as the user typed it, section, key in SCHEMA)
INTENT_FLAG_KEYS = (
    ("torch", "--torch", "torch", "version"),
    ("cuda", "--cuda", "torch", "cuda"),
    ("python", "--python", "torch", "python"),
    ("policy", "--policy", "torch", "policy"),
    ("backend", "--backend", "env", "backend"),
    ("installer", "--installer", "env", "installer"),
)
_MIRROR_FLAGS = (
    ("mirror", "--mirror", "mirror", "use"),
    ("pypi_mirror", "--pypi-mirror", "mirror", "pypi"),
    ("torch_mirror", "--torch-mirror", "mirror", "torch"),
    ("torch_layout", "--torch-layout", "mirror", "torch-layout"),
)


def apply_overrides(intent: Intent, overrides: IntentOverrides,
                    mirror: SourceOverrides | None = None) -> Intent:
    """The intent with command-line flags applied (flags win over torchenv.toml).

    Flags are validated exactly like file values, and errors name the flag (``--cuda``).
    ``--with`` *adds* companions to the file's ``with`` list (a flag cannot remove one);
    ``--experimental`` can only turn experimental tiers on. ``mirror`` (``--mirror`` & co.) is
    written into ``[mirror]`` only for ``init``, which saves it; ``plan``/``up``/``lock`` read those
    flags as the top layer of the source configuration instead (``sources.mirrors``).
    """
    from .schema import SCHEMA, SchemaError, check_value

    changes: dict[str, dict[str, Any]] = {}

    def put(flag: str, section: str, key: str, value: Any) -> None:
        field = SCHEMA[section][key]
        try:
            checked = check_value((section, key), field, value)
        except SchemaError as exc:
            raise IntentError(exc.reason, key=flag, hint=_flag_hint(flag, exc.hint)) from None
        changes.setdefault(section, {})[field.attr] = checked

    given = [(rule, overrides) for rule in INTENT_FLAG_KEYS] + [(rule, mirror) for rule in _MIRROR_FLAGS if mirror]
    flagged: list[tuple[str, str]] = []
    for (attr, flag, section, key), request in given:
        value = getattr(request, attr)
        if value is not None:
            put(flag, section, key, value)
            flagged.append((f"{section}.{key}", flag))
    if overrides.with_:
        names = [n for item in overrides.with_ for n in str(item).split(",") if n.strip()]
        put("--with", "torch", "with", list(intent.torch.with_) + names)
    if overrides.experimental:
        changes.setdefault("torch", {})["allow_experimental"] = True
    if not changes:
        return intent
    changed = replace(intent, **{s: replace(getattr(intent, s), **v) for s, v in changes.items()})
    for key, flag in flagged:
        changed = changed.set_by(reason("who.user", USER, flag=flag), key)
    return changed


def _flag_hint(flag: str, hint: str | None) -> str | None:
    """File-oriented hints ("write cuda = ...") reworded for a flag ("--cuda ...")."""
    if not hint:
        return hint
    return hint.replace(_("write a list, even for one item"), _("repeat the flag for each name"))
