"""Whether PyPI answers from here: the few tests that need it skip with a reason when it does not."""
from __future__ import annotations

import socket


def pypi_reachable(timeout: float = 3.0) -> bool:
    try:
        socket.create_connection(("pypi.org", 443), timeout=timeout).close()
        return True
    except OSError:
        return False
