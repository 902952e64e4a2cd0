"""One live display for every step and download of a command (rich, imported lazily).

Why our own rows instead of rich's stock columns: with stock columns every column shrinks
together, so a download row in a narrow terminal read ``… 3… 0… … M…``, and a finished step
kept its spinner and a full bar, so a finished ``up`` looked as if it were still running.
Here each row is laid out for the width it gets: the numbers (bytes, rate, ETA) are written
first and never shortened; the file name gets what is left (shortened with ``…``) and the
list of mirrors in use is cut before the name is. A finished row shows ✓ and its time.

One display at a time: a step or download started while a display is live becomes a row of
it (rich allows one live display per console), so concurrent downloads share one board.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

_UTF = {"done": "✓", "failed": "✗", "spin": "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏", "ellipsis": "…", "full": "━", "empty": "╌"}
_ASCII = {"done": "ok", "failed": "x", "spin": "-\\|/", "ellipsis": "~", "full": "#", "empty": "."}
MIN_NAME = 10


def glyphs(encoding: str | None) -> dict[str, str]:
    """Box-drawing and check marks only where the terminal's encoding has them."""
    return _UTF if (encoding or "").lower().replace("-", "").startswith("utf") else _ASCII


def human_bytes(n: float) -> str:
    for unit in ("B", "kB", "MB", "GB"):
        if abs(n) < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} GB"


def clock(seconds: float) -> str:
    s = max(0, int(seconds))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


@dataclass
class Row:
    """One step or one file: what the display shows about it."""

    label: str
    total: float | None = None
    is_bytes: bool = False
    done: float = 0.0
    resumed: float = 0.0               # bytes already on disk when this run started (not counted in the rate)
    mirrors: tuple[str, ...] = ()
    started: float = field(default_factory=time.monotonic)
    ended: float | None = None
    failed: bool = False
    detail: str = ""                   # what a long step is at ("[12/48]": the compile step of a build)

    def elapsed(self, now: float) -> float:
        return (self.ended or now) - self.started

    def rate(self, now: float) -> float:
        spent = self.elapsed(now)
        return (self.done - self.resumed) / spent if spent > 0.05 else 0.0


def _fit(text: str, width: int, ellipsis: str) -> str:
    if len(text) <= width:
        return text
    return text[:max(0, width - len(ellipsis))] + ellipsis if width > len(ellipsis) else text[:width]


def _numbers(row: Row, now: float) -> str:
    """The part of a row that is never shortened."""
    if not row.is_bytes:
        at = f"{row.detail}  " if row.detail and row.ended is None else ""
        return f"{at}{clock(row.elapsed(now))}"
    rate = row.rate(now)
    if row.ended is not None:
        speed = f" ({human_bytes(rate)}/s)" if rate > 0 else ""    # too quick to measure: no "0 B/s"
        return f"{human_bytes(row.done)} in {clock(row.elapsed(now))}{speed}"
    size = f"{human_bytes(row.done)}/{human_bytes(row.total)}" if row.total else human_bytes(row.done)
    left = (row.total - row.done) / rate if row.total and rate > 0 else None
    return f"{size}  {human_bytes(rate)}/s  ETA {clock(left) if left is not None else '-:--'}"


def render_line(row: Row, width: int, g: dict[str, str], now: float) -> str:
    """``row`` as one line of at most ``width`` characters (the numbers are always whole)."""
    if row.ended is not None:
        mark = g["failed"] if row.failed else g["done"]
    else:
        mark = g["spin"][int(now * 10) % len(g["spin"])]
    numbers = _numbers(row, now)
    via = f"  via {', '.join(row.mirrors)}" if row.mirrors and row.ended is None else ""
    room = width - len(mark) - 1 - 2 - len(numbers)
    if via and room - len(via) < min(MIN_NAME, len(row.label)):
        via = _fit(via, max(0, room - min(MIN_NAME, len(row.label))), g["ellipsis"])
        via = via if len(via) > 8 else ""
    room -= len(via)
    bar = ""
    spare = room - len(row.label) - 2
    if row.total and row.ended is None and spare >= 8:
        cells = min(20, spare)
        full = int(cells * min(1.0, row.done / row.total))
        bar = "  " + g["full"] * full + g["empty"] * (cells - full)
    name = _fit(row.label, max(1, room), g["ellipsis"])
    return f"{mark} {name}{bar}  {numbers}{via}"


class Board:
    """Rows of the live display; rendered fresh at every refresh for the console's width."""

    def __init__(self, console: Any, *, live: bool) -> None:
        self.console = console
        self.live = live
        self.rows: list[Row] = []
        self.lock = threading.Lock()
        self.g = glyphs(getattr(console, "encoding", None))

    def lines(self, width: int, now: float | None = None) -> list[str]:
        now = time.monotonic() if now is None else now
        with self.lock:
            return [render_line(r, width, self.g, now) for r in self.rows]

    def __rich_console__(self, console: Any, options: Any) -> Iterator[Any]:
        from rich.text import Text

        for line in self.lines(options.max_width):
            yield Text(line, no_wrap=True, overflow="crop")

    def add(self, row: Row) -> Row:
        with self.lock:
            self.rows.append(row)
        return row

    def finish(self, row: Row, *, failed: bool = False) -> None:
        row.ended, row.failed = time.monotonic(), failed
        if not self.live and row.is_bytes and not failed:   # logs and pipes: one line per finished file
            from rich.text import Text

            self.console.print(Text(render_line(row, self.console.width, self.g, row.ended)))


class Advance:
    """What ``Ui.progress`` yields: ``advance(n, total=None)``, plus ``mirrors([...])`` and ``resumed(n)``."""

    def __init__(self, row: Row) -> None:
        self.row = row

    def __call__(self, n: float = 1, total: float | None = None) -> None:
        if total is not None:
            self.row.total = total
        self.row.done += n

    def mirrors(self, hosts: list[str]) -> None:
        self.row.mirrors = tuple(hosts)

    def detail(self, text: str) -> None:
        self.row.detail = text

    def resumed(self, nbytes: int) -> None:
        self.row.resumed += nbytes


_ACTIVE: list[Board] = []


@contextmanager
def row(console: Any, label: str, total: float | None = None, *, is_bytes: bool = False,
        live: bool = True) -> Iterator[Advance]:
    """A row on the live board (started here when none is live; it stops when this row ends)."""
    if _ACTIVE:
        board = _ACTIVE[0]
        with _tracked(board, board.add(Row(label, total, is_bytes))) as advance:
            yield advance
        return
    board = Board(console, live=live)
    _ACTIVE.append(board)
    try:   # the row finishes before the display stops, so the last frame shows its mark
        with _live(board), _tracked(board, board.add(Row(label, total, is_bytes))) as advance:
            yield advance
    finally:
        _ACTIVE.remove(board)


@contextmanager
def _tracked(board: Board, item: Row) -> Iterator[Advance]:
    try:
        yield Advance(item)
    except BaseException:
        board.finish(item, failed=True)
        raise
    board.finish(item)


@contextmanager
def _live(board: Board) -> Iterator[None]:
    if not board.live:
        yield
        return
    from rich.live import Live

    with Live(board, console=board.console, refresh_per_second=8, transient=False):
        yield
