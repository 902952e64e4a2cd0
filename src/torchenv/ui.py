"""Human output (rich, imported lazily) and machine output (--json) in one place.

Why lazy: rich costs ~70-90 ms to import; the no-op ``up`` path and ``--json``
commands must not pay for it. Every byte both consoles and ``emit_json`` write passes
``redact_text``: whatever a command shows (a plan's sources, a mirror, an engine's output)
must never show a login or token.
"""
from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, TYPE_CHECKING, Any, cast

from .i18n import _

if TYPE_CHECKING:
    from rich.console import Console


def escape_markup(text: str) -> str:
    """User-facing text names TOML tables like ``[torch]``; rich would eat them as markup."""
    from rich.markup import escape

    return escape(text)


def safe_text(text: str) -> str:
    """``text`` redacted; without a URL or an Authorization value in it, and with no login
    remembered yet (often the module is not even imported), it is returned as is: the no-op path stays fast."""
    loaded = sys.modules.get("torchenv.redaction")
    if (loaded is None or not loaded.knows_secrets()) and "://" not in text and "uthoriz" not in text:
        return text
    from .redaction import redact_text

    return redact_text(text)


class _RedactingStream:
    """A text stream over ``sys.stdout``/``sys.stderr`` (looked up at each write) that redacts."""

    def __init__(self, name: str) -> None:
        self._name = name

    def write(self, text: str) -> int:
        return cast("IO[str]", getattr(sys, self._name)).write(safe_text(text))

    def __getattr__(self, attr: str) -> Any:   # isatty, fileno, flush, encoding: the real stream's
        return getattr(getattr(sys, self._name), attr)


def warning_shown(text: str) -> str:
    """A warning (a ``reasons.Reason``: plan warnings, requirement-file notes) in the active language."""
    from . import i18n

    if not i18n.languages():
        return text
    from .reasons import shown

    return shown(text)


def write_plain_warnings(texts: list[str] | tuple[str, ...]) -> None:
    """``warning: TEXT`` lines on stderr without rich (the no-op paths must not import it), in the user's
    language, and redacted as everything else torchenv shows: a requirement-file note quotes the line,
    which may hold a login."""
    if texts:
        sys.stderr.write("".join(f"{_('warning:')} {safe_text(warning_shown(t))}\n" for t in texts))


class Ui:
    def __init__(self, *, quiet: bool = False, json_mode: bool = False) -> None:
        self.quiet = quiet
        self.json_mode = json_mode
        self._console: Console | None = None
        self._err: Console | None = None

    @property
    def console(self) -> Console:
        if self._console is None:
            from rich.console import Console

            stream = cast("IO[str]", _RedactingStream("stderr" if self.json_mode else "stdout"))
            self._console = Console(file=stream, stderr=self.json_mode, highlight=False, emoji=False)
        return self._console

    @property
    def err(self) -> Console:
        if self._err is None:
            from rich.console import Console

            stream = cast("IO[str]", _RedactingStream("stderr"))   # a text stream in all but its class
            # emoji=False: a message quoting a user's file (`root:x:0:0`) shows it as written, not as an emoji
            self._err = Console(file=stream, stderr=True, highlight=False, emoji=False)
        return self._err

    def info(self, text: str, *, markup: bool = True) -> None:
        """Print a line; ``markup=False`` for text that may contain ``[brackets]`` (TOML tables)."""
        if not self.quiet and not self.json_mode:
            self.console.print(text, markup=markup)

    def step(self, text: str) -> None:
        if not self.quiet and not self.json_mode:
            self.console.print(f"[bold cyan]>[/] {escape_markup(text)}")

    def warn(self, text: str) -> None:
        self.err.print(f"[yellow]{escape_markup(_('warning:'))}[/] {escape_markup(warning_shown(text))}")

    def error(self, text: str, hint: str | None = None) -> None:
        self.err.print(f"[bold red]{escape_markup(_('error:'))}[/] {escape_markup(warning_shown(text))}")
        if hint:
            self.err.print(f"[dim]{escape_markup(_('hint:'))}[/] {escape_markup(warning_shown(hint))}")

    def emit_json(self, data: Any) -> None:
        sys.stdout.write(safe_text(json.dumps(data, indent=2, sort_keys=True, default=str)) + "\n")
        sys.stdout.flush()

    @contextmanager
    def progress(self, description: str, total: float | None = None, *, bytes_: bool = False) -> Iterator[Any]:
        """A row on the one live display (``torchenv.progress``), or a silent stand-in when quiet/json.
        Yields ``advance(n)``."""
        if self.quiet or self.json_mode or (not sys.stderr.isatty() and not self.console.is_terminal):
            done = [0.0]

            def advance(n: float = 1, total: float | None = None) -> None:
                done[0] += n

            if not (self.quiet or self.json_mode):
                self.step(description)
            yield advance
            return
        from .progress import row

        with row(self.console, description, total, is_bytes=bytes_) as advance:
            yield advance
