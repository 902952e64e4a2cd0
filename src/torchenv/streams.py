"""Standard streams that cannot turn output into a crash.

Why: the output is not the work. A terminal with an ASCII-only encoding, a closed stdout
(``>&-``), ``/dev/full`` or a pipe whose reader went away must end with one clear line (or,
for a closed pipe, quietly), never a ``UnicodeEncodeError`` or ``BrokenPipeError`` traceback.
"""
from __future__ import annotations

import codecs
import errno
import os
import sys
from typing import Any, TextIO

# What the glyphs torchenv prints become where the stream cannot encode them.
ASCII_FALLBACKS = {
    "·": "-", "•": "*", "✓": "ok", "✗": "x", "→": "->", "←": "<-", "≤": "<=", "≥": ">=",
    "…": "...", "—": "-", "–": "-", "×": "x", "━": "-", "─": "-", "│": "|",
}
_HANDLER = "torchenv-ascii"


def _fallback(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    bad = exc.object[exc.start:exc.end]
    return "".join(ASCII_FALLBACKS.get(ch, "?") for ch in bad), exc.end


def ascii_safe_streams() -> None:
    """Let stdout/stderr print torchenv's glyphs as ASCII where their encoding lacks them."""
    for stream in (sys.stdout, sys.stderr):
        encoding = getattr(stream, "encoding", None) or "utf-8"
        try:
            "·✓".encode(encoding)
            continue
        except (UnicodeEncodeError, LookupError):
            pass
        if not hasattr(stream, "reconfigure"):
            continue
        try:
            codecs.lookup_error(_HANDLER)
        except LookupError:
            codecs.register_error(_HANDLER, _fallback)
        stream.reconfigure(errors=_HANDLER)


def stdout_closed() -> bool:
    """Python sets ``sys.stdout`` to None when fd 1 was closed (``>&-``) before it started."""
    return sys.stdout is None


def refuse_closed_stdout() -> int:
    """Exit before any work: with fd 1 closed, the next file torchenv opens would become fd 1,
    and every child process (installers, the env's Python) would write into that file."""
    say("torchenv: standard output is closed; nothing was done "
        "(to discard the output, redirect it instead: >/dev/null)")
    return 1


class StdoutError(OSError):
    """Writing to stdout failed (as opposed to a file torchenv writes, whose errors look the same)."""


class _GuardedStdout:
    """``sys.stdout`` with its write/flush failures marked as ``StdoutError``; the rest delegated."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except OSError as exc:
            raise StdoutError(exc.errno, exc.strerror) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as exc:
            raise StdoutError(exc.errno, exc.strerror) from None

    def __getattr__(self, name: str) -> Any:   # isatty, fileno, encoding: the wrapped stream's
        return getattr(self._stream, name)


def guard_stdout() -> None:
    if sys.stdout is not None and not isinstance(sys.stdout, _GuardedStdout):
        sys.stdout = _GuardedStdout(sys.stdout)


def stdout_failure(exc: BaseException) -> bool:
    """Whether ``exc`` is stdout failing (full disk, closed pipe), rather than a file torchenv writes."""
    return isinstance(exc, StdoutError) or (isinstance(exc, BrokenPipeError) and not exc.filename)


def report_stdout_failure(exc: OSError) -> int:
    """One line for a full/broken stdout (silence for a closed pipe, as ``head`` users expect)."""
    discard_stdout()
    if exc.errno == errno.EPIPE:
        return 141                      # 128 + SIGPIPE, what a shell reports for a killed writer
    say(f"torchenv: cannot write to standard output: {exc.strerror or exc}")
    return 1


def discard_stdout() -> None:
    """Point fd 1 at /dev/null so the interpreter's final flush cannot fail a second time."""
    try:
        fd = sys.stdout.fileno()
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def flush_stdout() -> int | None:
    """Flush at the end of a command; an exit code when stdout failed, else None."""
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except OSError as exc:
        return report_stdout_failure(exc)
    return None


def say(line: str) -> None:
    """Write one line to stderr (redacted like all output), ignoring a stderr that is itself gone."""
    from .ui import safe_text

    try:
        if sys.stderr is not None:
            sys.stderr.write(safe_text(line) + "\n")
            sys.stderr.flush()
    except (OSError, ValueError):
        pass
