"""The progress display as a terminal shows it: finished steps say so, numbers survive narrow terminals."""
from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

from torchenv.progress import Board, Row, glyphs, render_line
from torchenv.ui import Ui

TORCH = "torch-2.4.1+cu121-cp311-cp311-linux_x86_64.whl"
SPINNER = set(glyphs("utf-8")["spin"])


def _terminal(width: int) -> tuple[Ui, io.StringIO]:
    ui, out = Ui(), io.StringIO()
    ui._console = Console(file=out, force_terminal=True, width=width, color_system=None)
    return ui, out


def _last_frame(text: str) -> list[str]:
    """What stays on screen: the final frame of the live display (cursor codes removed)."""
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)
    return [line.rsplit("\r", 1)[-1] for line in text.split("\n") if line.strip()]


def _download_row(**kw) -> Row:
    row = Row(TORCH + " from mirrors.tuna.tsinghua.edu.cn", total=2_512_000_000, is_bytes=True, started=0.0,
              done=812_300_000, mirrors=("mirrors.aliyun.com", "mirrors.tuna.tsinghua.edu.cn", "mirror.sjtu.edu.cn"))
    for k, v in kw.items():
        setattr(row, k, v)
    return row


@pytest.mark.parametrize("width", [80, 100, 120])
def test_download_row_keeps_bytes_rate_and_eta_whole(width):
    line = render_line(_download_row(), width, glyphs("utf-8"), now=40.0)
    assert len(line) <= width
    assert "812.3 MB/2.5 GB" in line and "20.3 MB/s" in line and "ETA 1:23" in line
    assert line.split()[1].startswith("torch-2.4")          # the name is shortened, not dropped


def test_mirrors_in_use_shown_when_there_is_room():
    wide = render_line(_download_row(), 160, glyphs("utf-8"), now=40.0)
    assert "via mirrors.aliyun.com, mirrors.tuna.tsinghua.edu.cn, mirror.sjtu.edu.cn" in wide


def test_finished_download_shows_check_size_and_time_not_a_bar():
    line = render_line(_download_row(done=2_512_000_000, ended=100.0), 80, glyphs("utf-8"), now=500.0)
    assert line.startswith("✓ ") and "2.5 GB in 1:40 (25.1 MB/s)" in line
    assert not SPINNER & set(line) and "━" not in line and "ETA" not in line


def test_finished_steps_show_check_and_time_on_a_120_column_terminal():
    ui, out = _terminal(120)
    with ui.progress("planning (probe + resolve)"):
        pass
    with ui.progress(TORCH, total=3_000_000, bytes_=True) as advance:
        advance(3_000_000)
    frame = _last_frame(out.getvalue())
    assert frame[-2].startswith("✓ planning (probe + resolve)") and re.search(r"0:0\d$", frame[-2])
    assert frame[-1].startswith(f"✓ {TORCH}") and "3.0 MB in 0:0" in frame[-1]
    assert not SPINNER & set("".join(frame[-2:])) and "━" not in "".join(frame[-2:])


def test_downloads_started_inside_a_step_share_one_display():
    ui, out = _terminal(80)
    with ui.progress("getting 2 files"):
        for name in ("a.whl", "b.whl"):
            with ui.progress(name, total=10, bytes_=True) as advance:
                advance(10)
    frame = _last_frame(out.getvalue())
    assert [line.split()[1] for line in frame[-3:]] == ["getting", "a.whl", "b.whl"]
    assert all(line.startswith("✓ ") for line in frame[-3:])


def test_terminal_without_unicode_gets_ascii_marks():
    board = Board(Console(file=io.StringIO(), width=80), live=False)
    board.g = glyphs("ascii")
    board.add(_download_row(ended=100.0, done=2_512_000_000))
    line = board.lines(80, now=200.0)[0]
    assert line.startswith("ok ") and line.isascii()
