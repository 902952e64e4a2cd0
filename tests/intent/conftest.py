"""Helpers for the intent tests: write a torchenv.toml, run the CLI with wide, plain output."""
from __future__ import annotations

from pathlib import Path

import pytest

from torchenv.errors import IntentError
from torchenv.intent.load import load_intent_file


@pytest.fixture(autouse=True)
def _wide_plain_terminal(monkeypatch):
    # rich wraps at the terminal width and colours on a tty: keep CLI text on one plain line.
    monkeypatch.setenv("COLUMNS", "400")
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("TERM", "dumb")


@pytest.fixture
def load_text(tmp_path):
    """Write ``text`` as tmp/torchenv.toml and load it; return the Intent or the IntentError."""

    def load(text: str | bytes):
        path: Path = tmp_path / "torchenv.toml"
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        try:
            return load_intent_file(path)
        except IntentError as exc:
            return exc

    return load
