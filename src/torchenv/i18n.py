"""Messages in the user's language: English unless the locale asks for a catalogue torchenv ships.

Why this shape: messages are written in English with named placeholders
(``_("torch {version} has no wheels for Python {python}").format(version=v, python=p)``), so a
translation may reorder them and a test can check both sides name the same ones. ``_()`` costs one
global lookup while no catalogue is active, and nothing is read from disk before the first message
needs it: the no-op ``up`` path pays nothing in English and at most one ``.mo`` read otherwise.
Only the command line activates a catalogue, and never for ``--json``: machine output, files
written to disk and the Python API stay English whatever the locale.

A plan's reasons and warnings, the probe's findings and what ``init`` read are data
(``reasons.Reason``), rendered in the active language from their catalogue entry where they are
shown; verify's checks, made in the env's own interpreter, arrive as data too (a template and its
values, ``verification/checks_script.Text``). No English sentence is matched back against a copy
of its template. A worker that is torchenv itself (the conda engine's) is handed ``languages()``
and writes its messages in the parent's language.
"""
from __future__ import annotations

import os
import sys
from typing import Any

DOMAIN = "torchenv"
_LOCALE_VARS = ("TORCHENV_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
# a language asked for -> the catalogues tried, first found wins (zh_TW reads zh_CN until it has its own)
_FALLBACKS = {"zh_HK": ("zh_HK", "zh_TW"), "zh": ()}

_wanted: tuple[str, ...] = ()   # catalogue names to try, set by activate(); () = English
_catalog: Any = None            # a gettext.GNUTranslations once loaded, False when none was found


def N_(message: str) -> str:
    """Mark ``message`` for the catalogue without translating it (a template translated where it is shown)."""
    return message


def _(message: str) -> str:
    """``message`` in the active language; English when no catalogue is active or it has no entry."""
    if not _wanted:
        return message
    catalog = _load()
    return catalog.gettext(message) if catalog else message


def languages_from_env(environ: dict[str, str] | None = None) -> tuple[str, ...]:
    """Catalogue names the environment asks for: ``TORCHENV_LANG`` first, then the POSIX order."""
    env = os.environ if environ is None else environ
    for var in _LOCALE_VARS:
        value = env.get(var, "")
        if value:
            first = value.split(":")[0]
            code = first.split(".")[0].split("@")[0].replace("-", "_")
            if code.lower().startswith("zh"):
                lang, _sep, region = code.partition("_")
                name = f"{lang.lower()}_{region.upper()}" if region else "zh"
                return tuple(dict.fromkeys(_FALLBACKS.get(name, (name,)) + ("zh_CN",)))
            return ()
    return ()


def activate(environ: dict[str, str] | None = None) -> None:
    """Use the catalogue the locale asks for (read lazily at the first message); English otherwise."""
    global _wanted, _catalog
    _wanted, _catalog = languages_from_env(environ), None


def languages() -> tuple[str, ...]:
    """The catalogue names now in use (``()`` = English): what a worker process is handed to speak the same."""
    return _wanted


def use(names: tuple[str, ...] | list[str]) -> None:
    """Speak as the process that started this one does (its ``languages()``), whatever the locale here says."""
    global _wanted, _catalog
    _wanted, _catalog = tuple(names), None


def deactivate() -> None:
    global _wanted, _catalog
    _wanted, _catalog = (), None


def _load() -> Any:
    global _catalog
    if _catalog is None:
        import gettext
        import struct
        from pathlib import Path

        localedir = Path(__file__).parent / "locale"
        found = next((localedir / lang / "LC_MESSAGES" / f"{DOMAIN}.mo" for lang in _wanted
                      if (localedir / lang / "LC_MESSAGES" / f"{DOMAIN}.mo").is_file()), None)
        try:
            if found:
                with found.open("rb") as fp:
                    _catalog = gettext.GNUTranslations(fp)
            else:
                _catalog = False
        # a damaged catalogue: say so once, keep English (what GNUTranslations raises for bad bytes)
        except (OSError, ValueError, LookupError, struct.error) as exc:
            sys.stderr.write(f"torchenv: ignoring the message catalogue {found}: {exc}\n")
            _catalog = False
    return _catalog
