"""Test helpers shared across areas: loopback "mirrors" and fake packages (no network).

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

Import path: run pytest as ``python -m pytest`` from the repo root (``tests`` is then a
namespace package on ``sys.path``). Flat find-links layouts need no builder: put wheels in
a directory and ``serve_dir`` it (autoindex page, ``+`` percent-encoded as ``%2B``).
See ``server.py`` and ``packages.py`` for details.
"""
from .packages import build_index, make_wheel, sha256_of
from .server import blackhole_url, closed_port_url, serve_dir

__all__ = ["blackhole_url", "build_index", "closed_port_url", "make_wheel", "serve_dir", "sha256_of"]
