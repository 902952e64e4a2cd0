"""Every test gets its own torchenv home (cache + config), so no test sees another's state; the shared
harness lives in tests/support (see its ``__init__``)."""
from __future__ import annotations

import pytest
from tests.support.assets import use_run_uv_cache
from tests.support.homes import _isolated_torchenv_home, check_cwd_restored, note_cwd, record_outcome
from tests.support.order import heavy_first, one_test_at_a_time
from tests.support.skips import check_requirements
from tests.support.wheels import wheels

__all__ = ["_isolated_torchenv_home", "installed_torchenv", "wheels"]


def ctrl_c_as_from_a_terminal() -> None:
    """Let the commands the tests start hear Ctrl-C (SIGINT) as they would from a terminal.

    Why: a suite started as a background job of a non-interactive shell (``./bootstrap test &``)
    inherits SIGINT ignored, and every command it starts would too: the Ctrl-C tests then saw
    ``up`` finish with 0 instead of stopping with 130. A handled signal is reset to its default
    in the commands the tests start; an ignored one stays ignored.
    """
    import signal

    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.hookimpl(trylast=True)
def pytest_configure(config):
    ctrl_c_as_from_a_terminal()
    use_run_uv_cache(config)     # after pytest's tmpdir plugin set up the run's temp folder
    one_test_at_a_time(config)   # before xdist makes its scheduler (tests/support/order.py)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    heavy_first(items)     # after the areas' own hooks (the fault suite numbers its rows in collection order)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    note_cwd(item)
    check_requirements(item)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item, nextitem):
    result = yield
    check_cwd_restored(item)
    return result


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    record_outcome(item, report)
    return report


@pytest.fixture(scope="session")
def installed_torchenv(tmp_path_factory):
    """torchenv as ``./bootstrap`` installs it, in a fresh tool home (once per run; tests/support/installed.py)."""
    from tests.support.installed import install_with_bootstrap

    return install_with_bootstrap(tmp_path_factory)
