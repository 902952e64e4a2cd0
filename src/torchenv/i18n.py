"""Messages in the user's language: English unless the locale asks for a catalogue torchenv ships.

Why this shape: messages are written in English with named placeholders
(``_("torch {version} has no wheels for Python {python}").format(version=v, python=p)``), so a
translation may reorder them and a test can check both sides name the same ones. ``_()`` costs one
global lookup while no catalogue is active, and nothing is read from disk before the first message
needs it: the no-op ``up`` path pays nothing in English and at most one ``.mo`` read otherwise.
Only the command line activates a catalogue, and never for ``--json``: machine output, files
written to disk and the Python API stay English whatever the locale.

A plan's reasons and warnings are data (``reasons.Reason``), rendered in the active language from
their catalogue entry where they are shown. Text made in another process (the verify script run by
the env's own interpreter) and the probe's saved findings arrive as English; ``translate_rendered``
matches them against known templates at the point they are shown. A
worker that is torchenv itself (the conda engine's) is handed ``languages()`` and writes its
messages in the parent's language.
"""
from __future__ import annotations

import os
import sys
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import re

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


def translate_rendered(text: str, templates: tuple[str, ...]) -> str:
    """English ``text`` made from one of ``templates`` elsewhere, shown in the active language.

    The template with the most fixed text that matches the whole text wins (so "cpu chosen: no usable
    GPU on this machine" beats "{tier} chosen: {why}"); placeholder values that are themselves known
    texts are translated too. Texts are often joined by "; ", which a template may also contain: the
    line is first cut at those joints (not at one inside brackets: "(a: x; b: y)" is one value) into
    runs that each match a template with no value spanning a joint nor leaving a bracket open; only
    when that fails may a value span one. Unmatched text is shown as it is.
    """
    if not _wanted or not _load():
        return text
    found = _joined(_joints(text), templates)
    if found is None:
        found = _translated(text, templates, strict=False)
    return text if found is None else found


def _joined(parts: list[str], templates: tuple[str, ...]) -> str | None:
    """``parts`` (a text split at its joints) cut into runs that are each a known text, longest runs first."""
    best: list[list[str] | None] = [[]] + [None] * len(parts)
    for end in range(1, len(parts) + 1):
        for start in range(end):
            done = best[start]
            if done is not None:
                shown = _translated("; ".join(parts[start:end]), templates, strict=True)
                if shown is not None:
                    best[end] = done + [shown]
                    break
    last = best[-1]
    return None if last is None else _("; ").join(last)


def _joints(text: str) -> list[str]:
    """``text`` cut at each "; " outside brackets."""
    cuts = [i for i, depth in enumerate(_depths(text)) if depth == 0 and text.startswith("; ", i)]
    return [text[a:b] for a, b in zip([0, *(c + 2 for c in cuts)], [*cuts, len(text)])]


def _depths(text: str) -> list[int]:
    """The bracket depth before each character of ``text`` (a stray closing bracket counts as none)."""
    out, depth = [], 0
    for ch in text:
        out.append(depth)
        depth = max(0, depth + (ch in "(（[") - (ch in ")）]"))
    return out


def _translated(text: str, templates: tuple[str, ...], *, strict: bool) -> str | None:
    for template in _most_specific_first(templates):
        values = _match(template, text, strict)
        if values is not None:
            return _(template).format(**{k: translate_rendered(v, templates) for k, v in values.items()})
    return None


@lru_cache(maxsize=8)
def _most_specific_first(templates: tuple[str, ...]) -> tuple[str, ...]:
    import re

    return tuple(sorted(templates, key=lambda t: -len(re.sub(r"\{\w+\}", "", t))))


def _match(template: str, text: str, strict: bool) -> dict[str, str] | None:
    """The values of ``template``'s placeholders in ``text``; ``strict``: only values that are whole texts
    themselves (spanning no joint, closing every bracket they open)."""
    import re

    pattern = _PATTERNS.get(template)
    if pattern is None:
        parts, pos, seen = [], 0, set()
        for m in re.finditer(r"\{(\w+)\}", template):   # a name used twice matches the same text
            name = m.group(1)
            value = r"[^\s;]+?" if name in TOKEN_NAMES else ".+?"
            parts += [re.escape(template[pos:m.start()]), f"(?P={name})" if name in seen else f"(?P<{name}>{value})"]
            seen.add(name)
            pos = m.end()
        pattern = _PATTERNS[template] = re.compile("".join(parts) + re.escape(template[pos:]) + r"\Z", re.S)
    found = pattern.match(text)
    if found is None:
        return None
    if strict:
        depths = _depths(text)
        for name in found.groupdict():
            start, end = found.span(name)
            if not _whole(text[start:end]) or any(depths[i] == 0 and text.startswith("; ", i)
                                                  for i in range(start, end)):
                return None
    return found.groupdict()


def _whole(value: str) -> bool:
    """Does ``value`` close every bracket it opens (and open every one it closes)?"""
    depth = 0
    for ch in value:
        depth += (ch in "(（[") - (ch in ")）]")
        if depth < 0:
            return False
    return depth == 0


_PATTERNS: dict[str, re.Pattern[str]] = {}
# placeholders that always hold one token (cu126, 2.8.0, linux-x86_64, 575.51.03, sm_61, a URL or host): a value with a
# space in it is not one of them, so "torch 2.8.0: cu128 skipped: ..." is not read as tier "torch 2.8.0: cu128"
TOKEN_NAMES = frozenset({"tier", "version", "platform", "driver", "floor", "sm", "cc", "python", "series", "code",
                         "label", "major", "minor", "ptx", "need", "glibc", "count", "first", "last", "pypi_tier",
                         "mode", "device", "seconds", "ms", "got", "have", "cuda", "cudnn", "want", "backend",
                         "url", "host", "wheel"})
