"""One fake world for ``up``, ``lock``, export and fault tests: a project, fake mirrors, a private home.

Two ways to drive it, both on the same ``World``:

* **in-process** (``world.run_up()``, ``world.args()``, ``world.options()``): file:// PEP 503 indexes
  (``file_world``) and ``world.fake_plan`` handed to ``run_up``/``run_lock`` as their planner (answering
  with ``world.plan``, or ``world.planner`` when a test sets one), so a test pins down what ``up`` does
  with a plan, not what the resolver decides;
* **the real CLI in a subprocess** (``world.up()``, ``world.popen()``, ``world.cli()``): two loopback
  mirrors (``build_mirrors`` + ``new_world``, torch index + PyPI side) and a fake ``$HOME`` holding the
  user's pip.conf/.condarc. Why a subprocess: a kill -9 or Ctrl-C must hit ``python -m torchenv up`` as a
  user runs it, with its own imports, temp files and exit path.

Fake wheels (``tests.support.make_wheel``) keep both fast; the real torch runs only in the integration tests.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from . import connects
from .cli import MACHINE, Ran, finish, parse_args, popen_cli, run_cli, user_shell
from .packages import build_index, make_wheel
from .project import ProjectView
from .server import serve_dir

HOOK_RUNNER = Path(__file__).with_name("hooked_cli.py")
TORCH_TAG = "cp311-cp311-linux_x86_64"
TOML = '[torch]\nversion = "2.4"\ncuda = "cpu"\npython = "3.11"\n'
TORCH_FILE = f"torch-2.4.1+cpu-{TORCH_TAG}.whl"
SIX_FILE = "six-1.16.0-py3-none-any.whl"


def build_mirrors(root: Path, *, torch_payload: int = 200_000) -> tuple[Path, Path]:
    """``root/torch`` (index layout: ``<base>/cpu/torch/``) and ``root/pypi`` (PEP 503 ``/simple``)."""
    wheels = root / "wheels"
    torch = make_wheel(wheels, "torch", "2.4.1+cpu", tag=TORCH_TAG, requires=["filelock>=3"],
                       payload=torch_payload,
                       extra_files={"torch/version.py": "__version__ = '2.4.1+cpu'\ncuda = None\n"})
    build_index(root / "torch", {"torch": [torch]})
    (root / "torch" / "simple").rename(root / "torch" / "cpu")
    build_index(root / "pypi", {
        "filelock": [make_wheel(wheels, "filelock", "3.1.0")],
        "six": [make_wheel(wheels, "six", "1.16.0")],
        "bigpkg": [make_wheel(wheels, "bigpkg", "1.0", payload=12_000_000)],
    })
    return root / "torch", root / "pypi"


@dataclass
class World(ProjectView):
    """A project under ``root`` and its fake mirrors; see the module docstring for the two ways to drive it."""

    root: Path
    project: Path
    torchenv_home: Path | None = None   # the CLI's; in-process runs use the test's own (tests/conftest.py)
    home: Path | None = None            # fake $HOME with the user's pip.conf / .condarc (CLI runs)
    installer: str = "uv"
    torch_dir: Path | None = None       # served mirrors (``serve``): torch index layout, PyPI side
    pypi_dir: Path | None = None
    torch_url: str = ""
    pypi_url: str = ""
    torch_index: str = ""               # file:// indexes of in-process plans
    pypi_index: str = ""
    torch_source_url: str = ""          # set by a test: the torch source the next plan names instead
    plan_calls: list = field(default_factory=list)
    planner: Callable | None = None   # a test's own planner, which ``fake_plan`` asks instead of ``plan``
    _stack: ExitStack = field(default_factory=ExitStack)

    # -- in-process ------------------------------------------------------------------------
    def args(self, *extra: str, verb: str = "up"):
        """The argparse namespace of ``torchenv VERB -C project *extra`` (``up`` without verify unless asked)."""
        base = [verb, "-C", str(self.project)]
        if verb == "up" and "--verify" not in extra:
            base.append("--no-verify")
        return parse_args(*base, *[e for e in extra if e != "--verify"])

    def plan(self, intent, *, torch_url: str | None = None, tier: str = "cpu", platform: str = "linux-x86_64",
             version: str = "2.4.1+cpu"):
        """The Plan ``fake_plan`` hands ``up``: torch ``version`` from this world's torch index."""
        from torchenv.machine import Machine
        from torchenv.resolve.plan import FROM_TORCH_INDEX, Plan, PlannedPackage
        from torchenv.sources.model import PypiSide, Sources, TorchSource

        sources = Sources(torch=(TorchSource(url=torch_url or self.torch_index, layout="index", name="test"),),
                          pypi=PypiSide(index_url=self.pypi_index))
        os_name, _, arch = platform.partition("-")
        return Plan(torch_version="2.4.1", tier=tier, tier_status="stable", cuda_version=None, python="3.11",
                    backend="venv", installer=intent.env.installer, platform=platform,
                    packages=(PlannedPackage("torch", version, FROM_TORCH_INDEX),), pypi_default_build=False,
                    reasons=(), machine=Machine(os=os_name, arch=arch), intent=intent, sources=sources,
                    python_path=sys.executable)

    def fake_plan(self, request):
        """The planner this world's ``up``/``lock`` are handed (``run_up(..., planner=world.fake_plan)``):
        records each intent it was asked for; answers with ``self.planner`` when a test set one."""
        self.plan_calls.append(request.intent)
        if self.planner is not None:
            return self.planner(request)
        return self.plan(request.intent, torch_url=self.torch_source_url or None)

    def options(self, *extra: str):
        """The ``UpOptions`` the CLI builds for ``up *extra``."""
        from torchenv.commands._options import up_options

        return up_options(self.args(*extra))

    def run_up(self, *extra: str):
        from torchenv.flows.up import run_up
        from torchenv.ui import Ui

        return run_up(self.project, self.options(*extra), Ui(quiet=True), planner=self.fake_plan)

    def read_lock(self):
        from torchenv.lockfile.io import read_lock

        return read_lock(self.lock)

    # -- servers ---------------------------------------------------------------------------
    def serve(self, *, delay: float = 0, fail: dict | None = None, drop_after: dict | None = None,
              pypi_delay: float = 0, slow: dict | None = None, pypi_slow: dict | None = None) -> None:
        """(Re)start both mirrors with the given misbehaviour (``slow``: per-file delays, see ``serve_dir``)."""
        assert self.torch_dir is not None and self.pypi_dir is not None, "a world with served mirrors (new_world)"
        self._stack.close()
        self._stack = ExitStack()
        self.torch_srv = self._stack.enter_context(serve_dir(self.torch_dir, delay=delay, fail=fail,
                                                             drop_after=drop_after, slow=slow))
        self.pypi_srv = self._stack.enter_context(serve_dir(self.pypi_dir, delay=pypi_delay, slow=pypi_slow))
        self.torch_url, self.pypi_url = str(self.torch_srv), self.pypi_srv + "/simple"

    def close(self) -> None:
        self._stack.close()

    # -- the real CLI ----------------------------------------------------------------------
    def environ(self, **extra: str) -> dict[str, str]:
        return user_shell(home=self.home or self.root / "home",
                          torchenv_home=self.torchenv_home or self.root / "torchenv-home", **extra)

    def argv(self, verb: str = "up", *extra: str, mirrors: bool = True) -> list[str]:
        args = [verb, "-C", str(self.project)]
        if verb == "up" and "--verify" not in extra:
            args.append("--no-verify")
        args += [e for e in extra if e != "--verify"]
        if verb in ("up", "lock", "plan"):
            args += MACHINE
            if mirrors:
                args += ["--torch-mirror", self.torch_url, "--pypi-mirror", self.pypi_url]
        return args

    def popen(self, *extra: str, verb: str = "up", hook: str | None = None, env: dict | None = None,
              mirrors: bool = True) -> subprocess.Popen:
        environ = self.environ(**(env or {}))
        if hook:
            environ.update(FAULT_HOOK=hook, FAULT_MARKER=str(self.marker))
        return popen_cli(*self.argv(verb, *extra, mirrors=mirrors), cwd=self.root, env=environ,
                         runner=HOOK_RUNNER if hook or connects.LOG in environ else None)

    def up(self, *extra: str, verb: str = "up", timeout: float = 120, **kw) -> Ran:
        """``torchenv VERB`` (default ``up``) through the CLI against the served mirrors, to the end."""
        return finish(self.popen(*extra, verb=verb, **kw), timeout=timeout)

    def cli(self, *args: str, timeout: float = 120) -> Ran:
        """``python -m torchenv ARGS`` exactly as given (no flags added)."""
        return run_cli(*args, cwd=self.root, env=self.environ(), timeout=timeout)

    @property
    def marker(self) -> Path:
        return self.root / "fault-point-reached"

    def kill_when(self, proc: subprocess.Popen, reached: Callable[[], bool], sig: int,
                  timeout: float = 60) -> Ran:
        """Send ``sig`` to ``proc`` once ``reached()`` is true; fail loudly if it never is."""
        deadline = time.monotonic() + timeout
        while not reached():
            if proc.poll() is not None:
                out, err = proc.communicate()
                raise AssertionError(f"torchenv exited ({proc.returncode}) before the fault point:\n{out}\n{err}")
            if time.monotonic() > deadline:
                proc.kill()
                raise AssertionError("the fault point was never reached")
            time.sleep(0.02)
        os.killpg(proc.pid, sig)      # like Ctrl-C in a terminal / a crash: uv children too
        out, err = proc.communicate(timeout=60)
        return Ran(proc.returncode, out, err, proc.pid)

    # -- looking ---------------------------------------------------------------------------

    def env_imports(self, module: str = "torch") -> str:
        """``module.__version__`` as the env's own interpreter sees it."""
        r = subprocess.run([str(self.env / "bin" / "python"), "-c", f"import {module}; print({module}.__version__)"],
                           capture_output=True, text=True, env={"PATH": os.environ.get("PATH", "")})
        assert r.returncode == 0, r.stderr
        return r.stdout.strip()

    def leftovers(self) -> list[str]:
        """Temp files a run left behind in the user's project (outside torchenv's own env)."""
        skip = {self.env}
        out = []
        for p in self.project.rglob("*"):
            if any(s in p.parents for s in skip):
                continue
            if p.name.endswith(".tmp") or ".partial-" in p.name or ".torchenv-old-" in p.name:
                out.append(str(p.relative_to(self.project)))
        return sorted(out)

    def cache_partials(self) -> list[str]:
        assert self.torchenv_home is not None
        cache = self.torchenv_home / "cache" / "artifacts"
        return sorted(str(p.relative_to(cache)) for p in cache.rglob(".partial-*")) if cache.exists() else []


def new_world(root: Path, mirrors: tuple[Path, Path]) -> World:
    project = root / "proj"
    project.mkdir(parents=True)
    (project / "torchenv.toml").write_text(TOML)
    home = root / "home"
    (home / ".config" / "pip").mkdir(parents=True)
    (home / ".config" / "pip" / "pip.conf").write_text("[global]\ntimeout = 60\n# the user's own comment\n")
    (home / ".condarc").write_text("channels:\n  - conda-forge\nshow_channel_urls: true\n")
    (home / ".bashrc").write_text("export PS1='$ '\n")
    w = World(root=root, torch_dir=mirrors[0], pypi_dir=mirrors[1], project=project, home=home,
              torchenv_home=root / "torchenv-home")
    w.serve()
    return w


def file_world(root: Path, installer: str) -> World:
    """A project whose torch index (cpu, cu121 and a Windows build of 2.4.1) and PyPI side (filelock, six, and a
    PyPI torch without a local tag, which must never be picked for the cpu tier) are file:// indexes."""
    wheels = root / "wheels"
    torch = make_wheel(wheels, "torch", "2.4.1+cpu", tag=TORCH_TAG, requires=["filelock>=3"])
    win_torch = make_wheel(wheels, "torch", "2.4.1+cpu", tag="cp311-cp311-win_amd64", requires=["filelock>=3"])
    other = make_wheel(wheels, "torch", "2.4.1+cu121", tag=TORCH_TAG, requires=["filelock>=3"])
    torch_index = build_index(root / "torchidx", {"torch": [torch, win_torch, other]})
    pypi = build_index(root / "pypi", {
        "filelock": [make_wheel(wheels, "filelock", "3.0.0"), make_wheel(wheels, "filelock", "3.1.0")],
        "six": [make_wheel(wheels, "six", "1.16.0")],
        "torch": [make_wheel(wheels / "pypi-torch", "torch", "2.4.1", tag=TORCH_TAG)],
    })
    project = root / "proj"
    project.mkdir()
    (project / "torchenv.toml").write_text(TOML + f'\n[env]\ninstaller = "{installer}"\n')
    return World(root=root, project=project, installer=installer, torch_index=torch_index.as_uri(),
                 pypi_index=pypi.as_uri())


__all__ = ["MACHINE", "SIX_FILE", "TORCH_FILE", "Ran", "World", "build_mirrors", "file_world", "new_world",
           "signal"]
