"""The torchenv.toml schema: which tables and keys exist, their types, and how values normalise.

Why declarative: one table drives validation of the file, the unknown-key check with its
"did you mean" suggestions, and the ``init`` writer's key order, so adding a key is one
line here plus a field in ``model.py``. Checks raise ``SchemaError`` with the key path;
``load.py`` turns that into an ``IntentError`` with the file and line.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..i18n import _
from . import versions


class SchemaError(Exception):
    """A problem at ``path`` (e.g. ``("torch", "with")``); ``load.py`` adds file and line."""

    def __init__(self, path: tuple[str, ...], reason: str, hint: str | None = None) -> None:
        super().__init__(reason)
        self.path, self.reason, self.hint = path, reason, hint


@dataclass(frozen=True)
class Field:
    kind: str                                        # str | bool | list | table | choice | urls
    attr: str                                        # dataclass field in model.py
    normalise: Callable[[str], str] | None = None    # for str/list items; raises InvalidValue
    choices: tuple[str, ...] = ()
    example: str = ""                                # TOML snippet shown in type errors


def _nonempty(text: str) -> str:
    if not text.strip():
        raise versions.InvalidValue(_("the value is empty"), _("remove the key to use the default"))
    return text.strip()


SCHEMA: dict[str, dict[str, Field]] = {
    "torch": {
        "version": Field("str", "version", versions.normalise_torch_spec, example='version = "2.4"'),
        "cuda": Field("str", "cuda", versions.normalise_tier, example='cuda = "cu121"'),
        "python": Field("str", "python", versions.normalise_python, example='python = "3.11"'),
        "with": Field("list", "with_", versions.normalise_companion, example='with = ["torchvision"]'),
        "policy": Field("choice", "policy", choices=("compat", "strict"), example='policy = "compat"'),
        "experimental": Field("bool", "allow_experimental", example="experimental = false"),
    },
    "env": {
        "path": Field("str", "path", _nonempty, example='path = ".venv"'),
        "backend": Field("choice", "backend", choices=("venv", "conda", "auto"), example='backend = "venv"'),
        "installer": Field("choice", "installer", choices=("uv", "pip"), example='installer = "uv"'),
        "requirements": Field("list", "requirements", _nonempty, example='requirements = ["requirements.txt"]'),
        "extras": Field("list", "extras", _nonempty, example='extras = ["extra"]'),
        "jupyter": Field("bool", "jupyter", example="jupyter = true"),
    },
    "mirror": {
        "use": Field("str", "use", _nonempty, example='use = "tuna"'),
        "pypi": Field("urls", "pypi", _nonempty, example='pypi = "https://pypi.example/simple"'),
        "torch": Field("urls", "torch", _nonempty,
                       example='torch = ["https://mirror-a.example/pytorch-wheels", '
                               '"https://mirror-b.example/pytorch-wheels"]'),
        "torch-layout": Field("choice", "torch_layout", choices=("index", "flat"), example='torch-layout = "index"'),
        "conda": Field("table", "conda", _nonempty,
                       example='conda = { "conda-forge" = "https://mirror.example/conda-forge" }'),
        "fallback": Field("list", "fallback", _nonempty, example='fallback = ["aliyun"]'),
    },
    "conda": {
        "channels": Field("list", "channels", _nonempty, example='channels = ["conda-forge"]'),
        "packages": Field("list", "packages", _nonempty, example='packages = ["cuda-nvcc"]'),
        "torch-source": Field("choice", "torch_source", choices=("wheels", "conda"),
                              example='torch-source = "wheels"'),
    },
}

# Lists whose order carries no meaning: sorted and de-duplicated so the intent hash is stable.
UNORDERED = {("torch", "with")}


def _suggest(word: str, options: list[str] | tuple[str, ...]) -> str:
    import difflib

    near = difflib.get_close_matches(word, list(options), n=1, cutoff=0.6)
    return _("did you mean {name}? ").format(name=repr(near[0])) if near else ""


def _type_name(value: Any) -> str:
    names = {bool: _("a boolean"), int: _("a number"), float: _("a number"), str: _("a string"),
             list: _("a list"), dict: _("a table")}
    return names.get(type(value), type(value).__name__)


def _norm(field: Field, path: tuple[str, ...], text: str) -> str:
    if field.normalise is None:
        return text
    try:
        return field.normalise(text)
    except versions.InvalidValue as exc:
        raise SchemaError(path, exc.reason, exc.hint) from None


def _check_bool(path: tuple[str, ...], field: Field, value: Any) -> Any:
    if type(value) is not bool:
        raise SchemaError(path, _("expected true or false, got {got}").format(got=_type_name(value)),
                          _("write {example}").format(example=field.example))
    return value


def _check_list(path: tuple[str, ...], field: Field, value: Any) -> Any:
    """A list of strings, each normalised, repeats dropped; sorted where order means nothing (``UNORDERED``)."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        got = _type_name(value) if not isinstance(value, list) else _("a list with non-string items")
        return_hint = _("write {example}").format(example=field.example)
        if isinstance(value, str):
            return_hint = _("write a list, even for one item") + f': {path[-1]} = ["{value}"]'
        raise SchemaError(path, _("expected a list of strings, got {got}").format(got=got), return_hint)
    items = list(dict.fromkeys(_norm(field, path, v) for v in value))
    return tuple(sorted(items) if path in UNORDERED else items)


def _check_table(path: tuple[str, ...], field: Field, value: Any) -> Any:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise SchemaError(path, _("expected a table of name = \"URL\" strings"),
                          _("write {example}").format(example=field.example))
    return {k: _norm(field, path + (k,), v) for k, v in value.items()}


def _require_string(path: tuple[str, ...], field: Field, value: Any) -> str:
    if isinstance(value, str):
        return value
    hint = _("write {example}").format(example=field.example)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        hint = _("quote it, e.g. {example} (unquoted, TOML reads 3.10 as the number 3.1)").format(
            example=field.example)
    raise SchemaError(path, _("expected a string, got {got}").format(got=_type_name(value)), hint)


def _check_choice(path: tuple[str, ...], field: Field, value: Any) -> Any:
    word = _require_string(path, field, value).strip().lower()
    if word not in field.choices:
        raise SchemaError(path, _("{value} is not one of: {choices}").format(
            value=repr(value), choices=", ".join(field.choices)),
            _suggest(word, field.choices) + _("write {example}").format(example=field.example))
    return word


def _check_string(path: tuple[str, ...], field: Field, value: Any) -> Any:
    return _norm(field, path, _require_string(path, field, value))


# Field.kind -> its check; any other kind is a string (normalised by the field's own rule, if it has one)
_CHECKS: dict[str, Callable[[tuple[str, ...], Field, Any], Any]] = {
    "bool": _check_bool, "list": _check_list, "table": _check_table, "choice": _check_choice,
}


def check_value(path: tuple[str, ...], field: Field, value: Any) -> Any:
    """Validate and normalise one value read from TOML (types first, then meaning)."""
    if field.kind == "urls":
        return _check_urls(path, field, value)
    return _CHECKS.get(field.kind, _check_string)(path, field, value)


def _check_urls(path: tuple[str, ...], field: Field, value: Any) -> str | tuple[str, ...]:
    """One URL (a string) or several (a non-empty list: mirrors of the same files, all used at once)."""
    if isinstance(value, str):
        return _norm(field, path, value)
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise SchemaError(path, _("expected a URL or a non-empty list of URLs, got {got}").format(
            got=_type_name(value)), _("write {example}").format(example=field.example))
    return tuple(dict.fromkeys(_norm(field, path, v) for v in value))


def check_document(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Validate a parsed torchenv.toml; return ``{table: {attr: value}}`` for the dataclasses.

    Unknown tables and keys are errors (a typo such as ``verison`` would otherwise be
    ignored and the user would get a different torch than asked for).
    """
    out: dict[str, dict[str, Any]] = {}
    for table, body in data.items():
        if table not in SCHEMA:
            raise _unknown_table(table, body)
        if not isinstance(body, dict):
            raise SchemaError((table,), _("{table} must be a table, got {got}").format(
                table=repr(table), got=_type_name(body)),
                _("write [{table}] on its own line, then its keys below it").format(table=table))
        fields = SCHEMA[table]
        values: dict[str, Any] = {}
        for key, value in body.items():
            if key not in fields:
                raise SchemaError((table, key), _("unknown key {key} in [{table}]").format(key=repr(key), table=table),
                                  _suggest(key, tuple(fields)) + _("valid keys in [{table}]: {keys}").format(
                                      table=table, keys=", ".join(fields)))
            values[fields[key].attr] = check_value((table, key), fields[key], value)
        out[table] = values
    return out


def _unknown_table(name: str, body: Any) -> SchemaError:
    owners = [t for t, fields in SCHEMA.items() if name in fields]
    if owners and not isinstance(body, dict):
        where = " or ".join(f"[{t}]" for t in owners)
        return SchemaError((name,), _("key {key} is outside any table").format(key=repr(name)),
                           _("move it below a {tables} line").format(tables=where))
    return SchemaError((name,), _("unknown table [{table}]").format(table=name),
                       _suggest(name, tuple(SCHEMA)) + _("valid tables: {tables}").format(
                           tables=", ".join(f"[{t}]" for t in SCHEMA)))
