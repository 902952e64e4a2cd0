"""Log every TCP connect a torchenv process starts, and (optionally) cut how long one may hang.

Why: a dead or silent mirror costs torchenv one connect timeout (``sources.http.CONNECT_TIMEOUT``) per
attempt. A test proves "fails within seconds, never once per file" by counting the attempts and reading
the timeout torchenv asked for on each, not by waiting those seconds: with ``TEST_CONNECT_CAP_S`` set,
a hanging connect gives up after that long instead, as it would after the asked timeout.

Loaded by the test runners (``hooked_cli.py``, ``tests/e2e_mirrors/run_torchenv.py``) before torchenv is
imported, when ``TEST_CONNECTS_LOG`` names a file: one ``host:port timeout`` line per connect
(``timeout`` is ``none`` when torchenv asked for none, i.e. would wait for ever).
"""
from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LOG = "TEST_CONNECTS_LOG"
CAP = "TEST_CONNECT_CAP_S"


def watch_from_environ() -> None:
    if os.environ.get(LOG):
        watch(Path(os.environ[LOG]), cap=float(os.environ.get(CAP) or 0) or None)


def watch(log: Path, *, cap: float | None) -> None:
    real = socket.create_connection
    default = socket.getdefaulttimeout()

    def create_connection(address, timeout=socket._GLOBAL_DEFAULT_TIMEOUT, *args, **kwargs):  # type: ignore[attr-defined]
        asked = default if timeout is socket._GLOBAL_DEFAULT_TIMEOUT else timeout  # type: ignore[attr-defined]
        with log.open("a", encoding="utf-8") as out:
            out.write(f"{address[0]}:{address[1]} {'none' if asked is None else asked}\n")
        waits = asked if cap is None or (asked is not None and asked <= cap) else cap
        return real(address, waits, *args, **kwargs)

    socket.create_connection = create_connection


@contextmanager
def watched(log: Path, *, cap: float | None = None) -> Iterator[Path]:
    """``watch`` for the code of this process while the block runs (in-process tests); ``log`` is yielded."""
    real = socket.create_connection
    watch(log, cap=cap)
    try:
        yield log
    finally:
        socket.create_connection = real


def read_log(log: Path, host: str) -> list[float | None]:
    """The timeouts torchenv asked for on each connect to ``host`` (``host:port``), in order."""
    if not log.is_file():
        return []
    asked = [line.split() for line in log.read_text(encoding="utf-8").splitlines()]
    return [None if t == "none" else float(t) for h, t in asked if h == host]
