"""The one test harness: every area's fixtures and helpers are built from these (no network, no copies per area).

Public API (keep it small; other areas import these)::

    from tests.support import serve_dir, build_index, make_wheel, sha256_of, closed_port_url, blackhole_url

    whl = make_wheel(tmp, "torch", "2.4.1+cu121", tag="cp311-cp311-linux_x86_64")
    build_index(tmp / "mirror", {"torch": [whl]})        # -> tmp/mirror/simple (PEP 503, sha256 fragments)
    with serve_dir(tmp / "mirror", delay=0.2, fail={"files/x.whl": 403},
                   drop_after={"files/y.whl": 1000}) as base:
        index_url = base + "/simple"                        # base == "http://127.0.0.1:PORT"
        base.hits                                           # request paths served so far

    sha256_of(whl)             # hex digest, as locks and index fragments carry it
    closed_port_url()          # refused at once;   with blackhole_url() as url: connects hang

One of each, by module:

* ``wheels.py`` — the ``wheels`` fixture (session): ``wheels.make(name, version, tag=, requires=, payload=,
  shelf=)`` builds each distinct fake wheel once per session; ``wheels.shelf(name)`` is a folder holding just
  one set. Shared files: copy before damaging one.
* ``world.py`` — ``World``, a project with fake mirrors, driven in-process (``file_world`` + ``fake_plan``:
  ``run_up()``, ``args()``, ``options()``) or through the real CLI against loopback mirrors (``build_mirrors``
  + ``new_world``: ``up()``, ``popen()``, ``kill_when()``, ``cli()``); ``hooked_cli.py`` is its pause-point runner.
* ``cli.py`` — the one way to run ``python -m torchenv`` in a subprocess: ``user_shell(home=, torchenv_home=)``
  (a clean user's environment), ``run_cli(*args, cwd=, env=)`` / ``popen_cli`` + ``finish`` -> ``Ran`` (rc, out,
  err, text, elapsed, status); ``MACHINE`` (the assumed linux-x86_64, no-GPU, Python 3.11 host flags).
* ``ui.py`` — ``RecordingUi``: a quiet ``Ui`` keeping ``lines``, ``steps``, ``warnings`` and progress ``advanced``.
* ``homes.py`` — the autouse per-test ``TORCHENV_HOME`` (tests/conftest.py), removed when the test passed.
* ``assets.py`` — the real torch wheels and uv, found through ``pip config list``; ``need`` (fail in CI, skip
  elsewhere); ``shared_uv_cache()``, the one uv cache of the real-torch tests (per run, in its basetemp).
* ``installed.py`` — torchenv installed by ``./bootstrap`` (``installed_torchenv``), ``build_once`` for
  run-wide artifacts shared by xdist workers.
* ``project.py`` (``ProjectView``: env, lock, site-packages), ``inbackend.py`` (a project with an in-tree build
  backend), ``users.py`` (running as another user), ``rangeserver.py``, ``server.py``, ``packages.py``,
  ``network.py``.

Import path: the repo root is on ``sys.path`` (``pythonpath = ["."]`` in pyproject.toml), so ``tests`` is a
namespace package and ``from tests.support... import`` works from any test or conftest; no ``sys.path``
edits anywhere. Flat find-links layouts need no builder: put wheels in a directory and ``serve_dir`` it
(autoindex page, ``+`` percent-encoded as ``%2B``).
"""
from .packages import build_index, make_wheel, sha256_of
from .server import blackhole_url, closed_port_url, serve_dir

__all__ = ["blackhole_url", "build_index", "closed_port_url", "make_wheel", "serve_dir", "sha256_of"]
