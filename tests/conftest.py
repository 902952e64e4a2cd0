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


@pytest.hookimpl(trylast=True)
def pytest_configure(config):
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
