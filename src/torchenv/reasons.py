"""A reason or warning as data: which sentence (``id``), its values, and who decided.

Why data and not an English f-string: a sentence made with ``f"..."`` can only be shown in
another language by matching it back against a copy of its template, and copies drift (an
English line inside Chinese output). A ``Reason`` keeps what it was made from, so the English
text and every translation render from the same catalogue entry (``reason_catalogue``), values
substituted after translation, and ``--json`` hands tools the ``id``, ``params`` and
``decided_by`` next to the text: "what fits this machine" (``machine``/``torchenv``) reads apart
from "what the sources serve" (``sources``) and from what a person asked for
(``project``/``user``/``caller``).

A ``Reason`` is also its English text (a ``str``): code, the lock and the Python API that read
reasons as text keep reading the same words, while renderers call ``shown`` for the user's
language. A value that is itself a sentence is a nested ``Reason`` (translated too); a list of
values is a ``Joined``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from .i18n import N_

# who decided what a reason says
MACHINE = "machine"        # what the probe saw (or the --assume-* flags stand for)
PROJECT = "project"        # torchenv.toml, the project's requirement files, its lock
USER = "user"              # a command-line flag
CALLER = "caller"          # the Python API's arguments, or a value nobody set
TORCHENV = "torchenv"      # torchenv's own rules and knowledge (recipes/*.toml)
SOURCES = "sources"        # what the indexes, mirrors and local folders serve
DECIDERS = (MACHINE, PROJECT, USER, CALLER, TORCHENV, SOURCES)


class Joined(NamedTuple):
    """Several values shown as one, each rendered (and translated) on its own, joined by ``sep``."""
    items: tuple[Any, ...]
    sep: str = ", "


# the separator ``Joined`` is used with that reads otherwise in Chinese (a full-width semicolon), marked for the
# catalogue (``tools/i18n.py`` finds ids by their marker): ``shown`` translates ``sep``
TRANSLATED_SEPARATORS = (N_("; "),)


@dataclass(frozen=True, eq=False)
class Reason(str):
    """One sentence of the catalogue with its values; equal (and hashed) as its English text."""
    id: str
    params: tuple[tuple[str, Any], ...] = ()
    decided_by: str = TORCHENV

    def __new__(cls, id: str, params: tuple[tuple[str, Any], ...] = (),
                decided_by: str = TORCHENV) -> Reason:
        return super().__new__(cls, _render(template(id), params, english))

    def __getnewargs__(self) -> tuple[str, tuple[tuple[str, Any], ...], str]:   # type: ignore[override]
        return self.id, self.params, self.decided_by

    def param(self, name: str) -> Any:
        return dict(self.params).get(name)

    def with_params(self, **changes: Any) -> Reason:
        """The same sentence with some values replaced (a release blanked to group equal facts)."""
        return Reason(self.id, tuple((k, changes.get(k, v)) for k, v in self.params), self.decided_by)

    def shown(self) -> str:
        """The sentence in the active language (English when none is active)."""
        from .i18n import _

        return _render(_(template(self.id)), self.params, shown)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "params": {k: _json(v) for k, v in self.params}, "decided_by": self.decided_by,
                "text": str(self)}


def reason(id: str, decided_by: str = TORCHENV, **params: Any) -> Reason:
    """``reason("tier.chosen", tier="cu126", why=...)``: the catalogue's sentence ``id`` with these values."""
    return Reason(id, tuple(params.items()), decided_by)


def template(id: str) -> str:
    from .reason_catalogue import CATALOGUE

    return CATALOGUE[id]


def english(value: Any) -> str:
    if isinstance(value, Joined):
        return value.sep.join(english(v) for v in value.items)
    return str(value)


def shown(value: Any) -> str:
    """Any text torchenv shows in the user's language: a ``Reason`` rendered from its catalogue entry, a
    ``Joined`` item by item, a plain string as the catalogue has it (itself when it has none)."""
    if isinstance(value, Reason):
        return value.shown()
    if isinstance(value, Joined):
        from .i18n import _

        return (_(value.sep) if value.sep else "").join(shown(v) for v in value.items)   # _("") is the header
    if isinstance(value, str):
        from .i18n import _

        return _(value) if value else value
    return str(value)


def to_json(value: Any) -> dict[str, Any]:
    """A reason line for ``--json``: its data, or just its text when it is not (yet) a ``Reason``."""
    return value.to_json() if isinstance(value, Reason) else {"id": None, "params": {}, "decided_by": None,
                                                              "text": str(value)}


def from_json(data: Any) -> Any:
    """The value ``to_json`` wrote, made again (a tool, or a test, renders ``--json`` reasons in a language)."""
    if isinstance(data, dict) and data.get("id"):
        return Reason(data["id"], tuple((k, from_json(v)) for k, v in data["params"].items()),
                      data.get("decided_by") or TORCHENV)
    if isinstance(data, dict) and "joined" in data:
        return Joined(tuple(from_json(v) for v in data["joined"]), data.get("sep", ", "))
    if isinstance(data, dict):
        return data.get("text", "")
    return data


def _render(text: str, params: tuple[tuple[str, Any], ...], each: Any) -> str:
    return text.format(**{k: each(v) for k, v in params}) if params else text


def _json(value: Any) -> Any:
    if isinstance(value, Reason):
        return value.to_json()
    if isinstance(value, Joined):
        return {"joined": [_json(v) for v in value.items], "sep": value.sep}
    return value
