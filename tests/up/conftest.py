"""A small fake world for ``up``/``lock`` tests: a torch index, a PyPI-side index, a project.

Fake wheels (``tests.support.make_wheel``) keep these tests fast: the real torch runs only in
``test_integration.py``. The resolver is replaced by a Plan built here, so the tests pin down
what ``up`` does with a plan, not what the resolver decides.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from tests.support import build_index, make_wheel
from tests.support.project import ProjectView

from torchenv.intent.load import load_project_intent
from torchenv.machine import Machine
from torchenv.resolve.plan import FROM_TORCH_INDEX, Plan, PlannedPackage
from torchenv.sources.model import PypiSide, Sources, TorchSource

TORCH_TAG = "cp311-cp311-linux_x86_64"
TOML = '[torch]\nversion = "2.4"\ncuda = "cpu"\npython = "3.11"\n\n[env]\ninstaller = "{installer}"\n'


@dataclass
class World(ProjectView):
    root: Path
    project: Path
    installer: str
    torch_index: str
    pypi_index: str
    torch_source_url: str = ""
    plan_calls: list = field(default_factory=list)
    real_make_plan: object = None     # the planner the fake below replaces (for tests of the real one)

    def args(self, *extra: str, verb: str = "up"):
        from torchenv.cli import build_parser

        base = [verb, "-C", str(self.project)]
        if verb == "up" and "--verify" not in extra:
            base.append("--no-verify")
        return build_parser().parse_args(base + [e for e in extra if e != "--verify"])

    def plan(self, intent, *, torch_url: str | None = None, tier: str = "cpu", platform: str = "linux-x86_64",
             version: str = "2.4.1+cpu") -> Plan:
        sources = Sources(torch=(TorchSource(url=torch_url or self.torch_index, layout="index", name="test"),),
                          pypi=PypiSide(index_url=self.pypi_index))
        os_name, _, arch = platform.partition("-")
        return Plan(torch_version="2.4.1", tier=tier, tier_status="stable", cuda_version=None, python="3.11",
                    backend="venv", installer=intent.env.installer, platform=platform,
                    packages=(PlannedPackage("torch", version, FROM_TORCH_INDEX),), pypi_default_build=False,
                    reasons=(), machine=Machine(os=os_name, arch=arch), intent=intent, sources=sources,
                    python_path=sys.executable)

    def options(self, *extra: str):
        """The ``UpOptions`` the CLI builds for ``up *extra``."""
        from torchenv.commands._options import up_options

        return up_options(self.args(*extra))

    def run_up(self, *extra: str):
        from torchenv.install.up import run_up
        from torchenv.ui import Ui

        return run_up(self.project, self.options(*extra), Ui(quiet=True))

    def read_lock(self):
        from torchenv.lock.io import read_lock

        return read_lock(self.project / "torchenv.lock")



@pytest.fixture(params=["uv", "pip"])
def installer(request) -> str:
    return request.param


@pytest.fixture
def world(tmp_path, installer, monkeypatch) -> World:
    wheels = tmp_path / "wheels"
    torch = make_wheel(wheels, "torch", "2.4.1+cpu", tag=TORCH_TAG, requires=["filelock>=3"])
    win_torch = make_wheel(wheels, "torch", "2.4.1+cpu", tag="cp311-cp311-win_amd64", requires=["filelock>=3"])
    other = make_wheel(wheels, "torch", "2.4.1+cu121", tag=TORCH_TAG, requires=["filelock>=3"])
    torch_index = build_index(tmp_path / "torchidx", {"torch": [torch, win_torch, other]})
    pypi = build_index(tmp_path / "pypi", {
        "filelock": [make_wheel(wheels, "filelock", "3.0.0"), make_wheel(wheels, "filelock", "3.1.0")],
        "six": [make_wheel(wheels, "six", "1.16.0")],
        # a PyPI-side torch without a local tag: must never be picked for the cpu tier
        "torch": [make_wheel(wheels / "pypi-torch", "torch", "2.4.1", tag=TORCH_TAG)],
    })
    project = tmp_path / "proj"
    project.mkdir()
    (project / "torchenv.toml").write_text(TOML.replace("{installer}", installer))
    w = World(root=tmp_path, project=project, installer=installer, torch_index=torch_index.as_uri(),
              pypi_index=pypi.as_uri())

    def fake_make_plan(intent, args):
        w.plan_calls.append(intent)
        return w.plan(intent, torch_url=w.torch_source_url or None)

    import torchenv.install.up as up

    w.real_make_plan = up.make_plan
    monkeypatch.setattr("torchenv.install.up.make_plan", fake_make_plan)
    monkeypatch.setenv("UV_CACHE_DIR", str(tmp_path / "uv-cache"))
    return w


def intent_of(project: Path):
    return load_project_intent(project)
