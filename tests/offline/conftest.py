"""Fixtures for offline tests: a project with a lock over fake wheels, an "online" cache holding them,
and a runner for ``up --offline`` in a network namespace with a fresh, empty torchenv home."""
from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from tests.support import make_wheel, sha256_of
from tests.support.skips import requires

TARGET = "linux-x86_64-cpu"
TOML = '[torch]\nversion = "2.13"\ncuda = "cpu"\npython = "3.11"\n\n[env]\npath = ".venv"\n'


def netns_available() -> bool:
    if not shutil.which("unshare"):
        return False
    return subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0


NETNS = netns_available()
needs_netns = requires(NETNS, "`unshare -n` (a network namespace) needs root or user namespaces, which this "
                                    "machine does not allow")
linux_x86 = requires(sys.platform.startswith("linux") and platform.machine() == "x86_64",
                     "the fake lock's target is linux-x86_64-cpu")


def seed_cache(path: Path, sha: str) -> None:
    """Put a file into the current TORCHENV_HOME's artifact cache (the 'online' machine's cache)."""
    from torchenv import paths

    dest = paths.wheel_cache() / sha[:2] / sha / path.name
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(path, dest)


@dataclass
class FakeProject:
    dir: Path
    wheels: dict[str, Path]      # name -> wheel file

    @property
    def lock(self) -> Path:
        return self.dir / "torchenv.lock"


def write_fake_lock(project: Path, wheels: dict[str, Path], conda: tuple = ()) -> None:
    from torchenv.intent.load import load_project_intent
    from torchenv.intent.project_requirements import gather, requirements_hash
    from torchenv.lockfile.io import write_lock
    from torchenv.lockfile.model import LockedWheel, Lockfile, LockTarget

    locked = []
    for name, whl in sorted(wheels.items()):
        version = whl.name.split("-")[1]
        if name == "torch":
            url, index, source = (f"https://download.pytorch.org/whl/cpu/{whl.name.replace('+', '%2B')}",
                                  "https://download.pytorch.org/whl/cpu", "torch-index")
        else:
            url, index, source = f"https://pypi.invalid/files/{whl.name}", "https://pypi.invalid/simple", "pypi"
        locked.append(LockedWheel(name=name, version=version, filename=whl.name, url=url, sha256=sha256_of(whl),
                                  index=index, source=source, size=whl.stat().st_size))
    intent = load_project_intent(project)
    reqs, _ = gather(intent, project)
    target = LockTarget(name=TARGET, os="linux", arch="x86_64", tier="cpu", python="3.11", backend="venv",
                        torch="2.13.0+cpu", wheels=tuple(locked), conda=tuple(conda))
    write_lock(project / "torchenv.lock", Lockfile(intent_hash=requirements_hash(intent, reqs), targets=(target,)))


@pytest.fixture
def fake_project(tmp_path) -> FakeProject:
    """A project pinned to fake torch 2.13.0+cpu + two small deps; their bytes sit in the online cache only."""
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "torchenv.toml").write_text(TOML)
    wh = tmp_path / "made"
    wheels = {"torch": make_wheel(wh, "torch", "2.13.0+cpu", tag="py3-none-any", payload=20_000),
              "fakedep": make_wheel(wh, "fakedep", "1.0"),
              "tinyextra": make_wheel(wh, "tinyextra", "2.0")}
    for whl in wheels.values():
        seed_cache(whl, sha256_of(whl))
    write_fake_lock(proj, wheels)
    return FakeProject(proj, wheels)


def offline_cmd() -> list[str]:
    """``torchenv up`` once it carries --offline/--from, else the interim ``python -m torchenv.offline up``."""
    from torchenv.commands import build_parser

    up = build_parser()._subparsers._group_actions[0].choices["up"]
    if any(a.dest == "from_" for a in up._actions):
        return [sys.executable, "-m", "torchenv", "up", "--offline"]
    return [sys.executable, "-m", "torchenv.offline", "up", "--offline"]


def run_offline(project: Path, home: Path, *args: str, netns: bool = True) -> subprocess.CompletedProcess:
    """``up --offline`` as a user on the air-gapped machine: fresh torchenv home (so uv's cache too), no pip config."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("UV_", "PIP_", "TORCHENV_"))}
    env.update(TORCHENV_HOME=str(home), PIP_CONFIG_FILE=os.devnull, NO_COLOR="1", COLUMNS="200")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(Path(__file__).resolve().parents[2] / "src"),
                                                    env.get("PYTHONPATH", "")) if p)
    cmd = [*offline_cmd(), "-C", str(project), *args]
    if netns and NETNS:
        cmd = ["unshare", "-n", *cmd]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)


def rewrite_tar(src: Path, dest: Path, *, drop: str | None = None, flip: str | None = None,
                add: tuple[str, bytes] | None = None) -> None:
    """Copy a bundle, dropping a member, flipping one byte in a member (same size), or adding one."""
    with tarfile.open(src) as tin, tarfile.open(dest, "w") as tout:
        top = None
        for info in tin:
            top = top or info.name.split("/")[0]
            if drop and info.name.endswith(drop):
                continue
            data = tin.extractfile(info).read() if info.isfile() else None
            if flip and info.name.endswith(flip):
                buf = bytearray(data)
                buf[len(buf) // 2] ^= 0xFF
                data = bytes(buf)
            if data is None:
                tout.addfile(info)
            else:
                import io

                tout.addfile(info, io.BytesIO(data))
        if add:
            import io

            info = tarfile.TarInfo(f"{top}/{add[0]}")
            info.size = len(add[1])
            tout.addfile(info, io.BytesIO(add[1]))


def fresh_home(tmp_path: Path, name: str = "offline-home") -> Path:
    home = tmp_path / name
    home.mkdir()
    return home
