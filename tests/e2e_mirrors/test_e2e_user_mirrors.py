"""A team's proxy, named in the user's mirrors file alone: ``plan`` and ``up`` use it end to end.

The PyPI side is served at the paths the proxies teams run put it (Artifactory's
``api/pypi/REPO/simple``, Nexus's ``repository/NAME/simple``, devpi's ``root/pypi/+simple/``), torch wheels
at a generic remote of ``download.pytorch.org/whl`` on the same host, behind a login that only
``.netrc`` holds (``torchenv mirror add`` put it there).
"""
from __future__ import annotations

import shutil

import pytest
from tests.support import build_index, serve_dir

from .conftest import TIER, TORCH, assert_ok, family_hits, torch_mirror_tree

LAYOUTS = {
    "artifactory": ("artifactory/api/pypi/pypi-remote", "simple"),
    "nexus": ("repository/pypi-proxy", "simple"),
    "devpi": ("root/pypi", "+simple"),
}
SECRET = "tok-5e4d3c2b1a"


def _proxy_tree(root, wheels, layout: str) -> tuple[str, str]:
    """The proxy's folders; returns (PyPI-side path, torch base path) under the server."""
    folder, simple = LAYOUTS[layout]
    build_index(root / folder, {"fakedep": [wheels.fakedep]})
    if simple != "simple":
        shutil.move(root / folder / "simple", root / folder / simple)
    torch_mirror_tree(root / "artifactory" / "pytorch-remote", [wheels.torch, wheels.vision])
    return f"{folder}/{simple}/", "artifactory/pytorch-remote"


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_a_proxy_named_in_the_user_mirrors_file_serves_plan_and_up(e2e, e2e_wheels, layout):
    pypi_path, torch_path = _proxy_tree(e2e.root / "proxy", e2e_wheels, layout)
    with serve_dir(e2e.root / "proxy", auth=("ci-bot", SECRET)) as proxy:
        login = proxy.replace("http://", f"http://ci-bot:{SECRET}@")
        assert_ok(e2e.torchenv("mirror", "add", "team", f"{login}/{pypi_path}", "--kind", "pypi"))
        assert_ok(e2e.torchenv("mirror", "add", "team", f"{login}/{torch_path}", "--kind", "torch"))
        e2e.write_toml('use = "team"\n')
        plan = e2e.torchenv("plan", "-C", str(e2e.project), "--assume-driver", "550.54.14", "--assume-gpu", "8.6")
        assert_ok(plan)
        assert f"{proxy}/{torch_path}/{TIER}" in plan.text and f"{proxy}/{pypi_path.rstrip('/')}" in plan.text
        up = e2e.up()
        assert_ok(up)
        assert family_hits([h for h in proxy.hits if pypi_path in h]) == [], "torch never from the PyPI side"
        assert any(h.startswith(f"/{pypi_path}fakedep") for h in proxy.hits), proxy.hits
    assert e2e.origin() == "genuine" and e2e.installed_version("torch") == TORCH
    assert e2e.proxy_asked == [], "nothing but the team's proxy was asked"
    lock_text = e2e.lock.read_text()
    for run in e2e.runs:
        assert SECRET not in run.text, run.text
    assert SECRET not in lock_text and SECRET not in e2e.presets_file_text()
