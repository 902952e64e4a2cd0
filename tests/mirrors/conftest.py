"""Mirror tests talk only to loopback servers: make sure no proxy sits in between."""
from __future__ import annotations

import pytest

_PROXY_VARS = ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")
_PIP_VARS = ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_CONSTRAINT", "PIP_NO_INDEX")


@pytest.fixture(autouse=True)
def _no_proxy_no_user_config(monkeypatch, tmp_path):
    for var in _PROXY_VARS + _PIP_VARS:
        monkeypatch.delenv(var, raising=False)
    # the developer's own ~/.config/pip/pip.conf or ~/.condarc must not leak into results
    monkeypatch.setenv("PIP_CONFIG_FILE", "/dev/null")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CONDARC", raising=False)
