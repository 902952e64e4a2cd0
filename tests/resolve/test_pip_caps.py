"""The user's pip constraint files cap the torch family too (pip and uv apply them to every install).

A machine whose pip config has ``constraint = .../constraints.txt`` with ``torch<=2.14.1`` (so
that releases on local disk are used) must not get a plan for torch 2.15.0: the resolve of the
whole set fails after the torch wheel was fetched. The torch index is unreachable, PyPI's side is
a file index holding torch 2.15.0 and 2.14.1, as in ``test_reachable``.
"""
from __future__ import annotations

import pytest
from tests.resolve.test_reachable import Args, _closed_port, _gpu_less_machine
from tests.support import build_index, make_wheel

from torchenv.errors import PlanRefused
from torchenv.intent.model import Intent, TorchIntent
from torchenv.resolve.reachable import available_plan
from torchenv.resolve.resolver import resolve
from torchenv.sources.model import PypiSide

TAGS = ("cp313-cp313-manylinux_2_28_x86_64", "cp311-cp311-manylinux_2_28_x86_64")


@pytest.fixture
def capped(tmp_path, monkeypatch):
    """(machine, overrides, constraint file) with PyPI's side serving torch 2.15.0 and 2.14.1."""
    files = tmp_path / "pypi-files"
    index = build_index(tmp_path / "pypi", {
        "torch": [make_wheel(files, "torch", v, tag=t) for v in ("2.15.0", "2.14.1") for t in TAGS],
        "torchvision": [make_wheel(files, "torchvision", v, tag=t) for v in ("0.29.2", "0.29.1") for t in TAGS],
    })
    cap = tmp_path / "constraints.txt"
    cap.write_text("# releases on this machine's disk\ntorch<=2.14.1\ntorchvision<=0.29.1\n")
    side = PypiSide(index_url=index.as_uri(), constraints=(str(cap),))
    return _gpu_less_machine(monkeypatch, side), Args(f"http://127.0.0.1:{_closed_port()}/whl"), cap


def _plan(intent, machine, args):
    return available_plan(resolve(intent, machine, sources_overrides=args), intent, machine, args)


@pytest.mark.parametrize("version", [None, ">=2.7.1"])     # unpinned, and speechbrain's `torch>=2.7.1`
def test_auto_takes_the_newest_build_the_users_constraints_allow(capped, version):
    machine, args, cap = capped
    plan = _plan(Intent(torch=TorchIntent(version=version, with_=("torchvision",))), machine, args)
    assert (plan.torch_version, plan.pypi_default_build) == ("2.14.1", True)
    assert {p.name: p.version for p in plan.packages}["torchvision"] == "0.29.1"
    said = " ".join(plan.reasons)
    assert f"allows only torch<=2.14.1 ({cap}:2)" in said


def test_an_explicit_release_the_constraints_forbid_is_refused_naming_the_file(capped):
    machine, args, cap = capped
    with pytest.raises(PlanRefused) as exc:
        _plan(Intent(torch=TorchIntent(version="2.15")), machine, args)
    assert f"allows only torch<=2.14.1 ({cap}:2)" in exc.value.message


def test_without_a_cap_the_newest_release_is_taken(capped):
    machine, args, cap = capped
    cap.write_text("numpy<2\n")
    plan = _plan(Intent(torch=TorchIntent()), machine, args)
    assert plan.torch_version == "2.15.0"
