"""Every test gets its own torchenv home (cache + config), so no test sees another's state."""
from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _isolated_torchenv_home(tmp_path_factory, monkeypatch):
    home = tmp_path_factory.mktemp("torchenv-home")
    monkeypatch.setenv("TORCHENV_HOME", str(home))
    monkeypatch.delenv("TORCHENV_MIRROR", raising=False)
    monkeypatch.setenv("TORCHENV_LANG", "en")    # English messages unless a test asks for a language
    monkeypatch.setenv("TORCHENV_INDEX_CHECK", "0")    # plans never read download.pytorch.org; tests that check
    #                                                    an index over loopback turn it back on
    yield home


@pytest.fixture(scope="session")
def installed_torchenv(tmp_path_factory):
    """torchenv as ``./bootstrap`` installs it, in a fresh tool home (once per run; tests/support/installed.py)."""
    from tests.support.installed import install_with_bootstrap

    return install_with_bootstrap(tmp_path_factory)
