"""Every test gets its own torchenv home (cache + config), so no test sees another's state."""
from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _isolated_torchenv_home(tmp_path_factory, monkeypatch):
    home = tmp_path_factory.mktemp("torchenv-home")
    monkeypatch.setenv("TORCHENV_HOME", str(home))
    monkeypatch.delenv("TORCHENV_MIRROR", raising=False)
    monkeypatch.setenv("TORCHENV_LANG", "en")    # English messages unless a test asks for a language
    yield home
