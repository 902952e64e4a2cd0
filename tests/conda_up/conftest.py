"""``torchenv up`` with the conda backend, end to end: real resolver, real rattler, local channel.

The world: a conda-forge-shaped ``file://`` channel (``forge.py``), a torch wheel mirror (flat
``<base>/cu126/`` folder) and a PyPI-side index (``file://.../simple``) for hybrid mode. No
conda binary is on PATH (asserted), so the embedded engine (py-rattler) does all conda work.
Machines are assumed with the flags a user would type (``--assume-driver 575.57.08
--assume-gpu 8.6`` / ``--assume-no-gpu``); the Python a plan picks must exist on this host
(the ``real`` python stand-in links it), which the tests pin with ``[torch] python``.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from tests.conda_up.forge import HOST_PY, forge_channel
from tests.support import build_index
from tests.support.skips import requires
from tests.support.ui import RecordingUi

GPU = ("--assume-driver", "575.57.08", "--assume-gpu", "8.6")
NO_GPU = ("--assume-no-gpu",)
HOST_TAG = f"cp{HOST_PY.replace('.', '')}-cp{HOST_PY.replace('.', '')}-linux_x86_64"

pytestmark = requires(sys.platform == "linux", "the channel's python stand-in links a Linux CPython")


@pytest.fixture(scope="session")
def forge(tmp_path_factory) -> Path:
    return forge_channel(tmp_path_factory.mktemp("forge") / "channel")


@dataclass(frozen=True)
class WheelWorld:
    torch_mirror: Path     # <base>/cu126/torch-2.8.0+cu126-...whl (flat, like Aliyun's mirror)
    pypi: Path             # .../simple with fakedep (torch's dependency)


@pytest.fixture(scope="session")
def wheel_world(wheels, tmp_path_factory) -> WheelWorld:
    root = tmp_path_factory.mktemp("wheel-world")
    torch = wheels.make("torch", "2.8.0+cu126", tag=HOST_TAG, requires=["fakedep>=1"])
    (root / "torch" / "cu126").mkdir(parents=True)
    shutil.copy(torch, root / "torch" / "cu126" / torch.name)
    pypi = build_index(root / "pypi", {"fakedep": [wheels.make("fakedep", "1.0.0")]})
    return WheelWorld(torch_mirror=root / "torch", pypi=pypi)


@dataclass
class Project:
    dir: Path
    env_name: str = ".conda-env"
    uis: list[RecordingUi] = field(default_factory=list)

    @property
    def env(self) -> Path:
        return self.dir / self.env_name

    def write(self, *, channel: Path, torch: str = "2.7", python: str = HOST_PY, cuda: str | None = None,
              backend: str = "conda", torch_source: str = "conda", packages: tuple[str, ...] = (),
              wheels: WheelWorld | None = None) -> None:
        lines = ["[torch]", f'version = "{torch}"', f'python = "{python}"']
        if cuda:
            lines.append(f'cuda = "{cuda}"')
        lines += ["", "[env]", f'backend = "{backend}"', f'path = "{self.env_name}"']
        if wheels is not None:
            lines += ["", "[mirror]", f'torch = "{wheels.torch_mirror.as_uri()}"', 'torch-layout = "flat"',
                      f'pypi = "{wheels.pypi.as_uri()}"']
        lines += ["", "[conda]", f'torch-source = "{torch_source}"', f'channels = ["{channel.as_uri()}"]',
                  "packages = [" + ", ".join(f'"{p}"' for p in packages) + "]"]
        (self.dir / "torchenv.toml").write_text("\n".join(lines) + "\n")

    def args(self, *flags: str, verb: str = "up") -> argparse.Namespace:
        from torchenv.commands import build_parser

        extra = [] if verb != "up" or "--verify" in flags else ["--no-verify"]
        return build_parser().parse_args([verb, "-C", str(self.dir), *extra, *(f for f in flags if f != "--verify")])

    def up(self, *flags: str, planner=None):
        """``up FLAGS`` in-process; ``planner``: the one it is handed (default: the real one)."""
        from torchenv.commands._options import up_options
        from torchenv.flows.planning import plan_reachable
        from torchenv.flows.up import run_up

        ui = RecordingUi()
        self.uis.append(ui)
        return run_up(self.dir, up_options(self.args(*flags)), ui, planner=planner or plan_reachable)

    def lock(self):
        from torchenv.lockfile.io import read_lock

        return read_lock(self.dir / "torchenv.lock")

    def conda_meta(self) -> set[str]:
        return {p.name for p in (self.env / "conda-meta").glob("*.json")}


@pytest.fixture
def project(tmp_path) -> Project:
    d = tmp_path / "proj"
    d.mkdir()
    return Project(dir=d)


@pytest.fixture(autouse=True)
def _no_conda_binary(monkeypatch):
    """Only the embedded engine: no conda, mamba or micromamba anywhere on PATH."""
    keep = [str(Path(sys.executable).parent), "/usr/bin", "/bin"]
    monkeypatch.setenv("PATH", os.pathsep.join(keep))
    monkeypatch.delenv("TORCHENV_CONDA_ENGINE", raising=False)
    monkeypatch.delenv("CONDA_PREFIX", raising=False)
    for exe in ("conda", "mamba", "micromamba"):
        assert shutil.which(exe) is None, f"{exe} is on PATH; these tests prove up works without one"


@dataclass
class Calls:
    solve: list[list[str]] = field(default_factory=list)
    install: list[int] = field(default_factory=list)


@pytest.fixture
def calls(monkeypatch) -> Calls:
    """Record the embedded engine's solves and installs (the real ones still run)."""
    from torchenv.engines.rattler import RattlerEngine

    seen = Calls()
    solve, install = RattlerEngine.solve, RattlerEngine.install

    def counting_solve(self, **kw):
        seen.solve.append(list(kw["specs"]))
        return solve(self, **kw)

    def counting_install(self, **kw):
        seen.install.append(len(kw["records"]))
        return install(self, **kw)

    monkeypatch.setattr(RattlerEngine, "solve", counting_solve)
    monkeypatch.setattr(RattlerEngine, "install", counting_install)
    return seen
