"""A project, two loopback mirrors (torch + PyPI side) and a fake HOME, driven through the real CLI.

Why the real CLI in a subprocess: a kill -9 or Ctrl-C must hit ``python -m torchenv up``
as a user runs it, with its own imports, temp files and exit path. Fake wheels keep it fast.
"""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from tests.support import build_index, make_wheel, serve_dir
from tests.support.project import ProjectView

REPO = Path(__file__).resolve().parents[3]
HOOK_RUNNER = Path(__file__).with_name("hooked_cli.py")
TORCH_TAG = "cp311-cp311-linux_x86_64"
TOML = '[torch]\nversion = "2.4"\ncuda = "cpu"\npython = "3.11"\n'
MACHINE = ["--assume-os", "linux", "--assume-arch", "x86_64", "--assume-no-gpu", "--assume-python", "3.11"]
TORCH_FILE = f"torch-2.4.1+cpu-{TORCH_TAG}.whl"


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
class Run:
    rc: int
    out: str
    err: str
    pid: int = 0

    @property
    def text(self) -> str:
        return self.out + self.err

    @property
    def status(self) -> str:
        """How `up` summed up its work: installed / repaired / synced / up to date / ..."""
        import re

        m = re.search(r"\(target [^,()]+, (\w[\w-]*)\)", self.out)
        return m.group(1) if m else ("up to date" if "is up to date" in self.out else "?")

    def gist(self, needle: str, width: int = 160) -> str:
        """The part of the output around ``needle`` (for the reliability table)."""
        flat = " ".join(self.text.split())
        i = flat.find(needle)
        return flat[:width] if i < 0 else flat[max(0, i - width // 3): i + 2 * width // 3]


@dataclass
class World(ProjectView):
    root: Path
    torch_dir: Path
    pypi_dir: Path
    project: Path
    home: Path                      # fake $HOME with the user's pip.conf / .condarc
    torchenv_home: Path
    torch_url: str = ""
    pypi_url: str = ""
    _stack: ExitStack = field(default_factory=ExitStack)

    # -- servers ---------------------------------------------------------------------------
    def serve(self, *, delay: float = 0, fail: dict | None = None, drop_after: dict | None = None,
              pypi_delay: float = 0) -> None:
        """(Re)start both mirrors with the given misbehaviour."""
        self._stack.close()
        self._stack = ExitStack()
        self.torch_srv = self._stack.enter_context(serve_dir(self.torch_dir, delay=delay, fail=fail,
                                                             drop_after=drop_after))
        self.pypi_srv = self._stack.enter_context(serve_dir(self.pypi_dir, delay=pypi_delay))
        self.torch_url, self.pypi_url = str(self.torch_srv), self.pypi_srv + "/simple"

    def close(self) -> None:
        self._stack.close()

    # -- running ---------------------------------------------------------------------------
    def environ(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("PIP_", "UV_", "XDG_", "CONDA", "VIRTUAL_ENV", "TORCHENV_"))}
        env.update(HOME=str(self.home), TORCHENV_HOME=str(self.torchenv_home),
                   PYTHONPATH=str(REPO / "src"), NO_COLOR="1", COLUMNS="200")
        env.update(extra)
        return env

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
        cmd = [sys.executable, "-m", "torchenv"]
        environ = self.environ(**(env or {}))
        if hook:
            cmd = [sys.executable, str(HOOK_RUNNER)]
            environ.update(FAULT_HOOK=hook, FAULT_MARKER=str(self.marker))
        return subprocess.Popen(cmd + self.argv(verb, *extra, mirrors=mirrors), env=environ, cwd=self.root,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                start_new_session=True)

    def up(self, *extra: str, verb: str = "up", timeout: float = 120, **kw) -> Run:
        p = self.popen(*extra, verb=verb, **kw)
        out, err = p.communicate(timeout=timeout)
        return Run(p.returncode, out, err, p.pid)

    def cli(self, *args: str, timeout: float = 120) -> Run:
        """``python -m torchenv ARGS`` exactly as given (no flags added)."""
        p = subprocess.run([sys.executable, "-m", "torchenv", *args], env=self.environ(), cwd=self.root,
                           capture_output=True, text=True, timeout=timeout)
        return Run(p.returncode, p.stdout, p.stderr)

    @property
    def marker(self) -> Path:
        return self.root / "fault-point-reached"

    def kill_when(self, proc: subprocess.Popen, reached: Callable[[], bool], sig: int,
                  timeout: float = 60) -> Run:
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
        return Run(proc.returncode, out, err, proc.pid)

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


def copy_mirrors(src: tuple[Path, Path], dest: Path) -> tuple[Path, Path]:
    """A private copy a test may damage (a lying mirror)."""
    t, p = dest / "torch", dest / "pypi"
    shutil.copytree(src[0], t)
    shutil.copytree(src[1], p)
    return t, p


__all__ = ["MACHINE", "TORCH_FILE", "Run", "World", "build_mirrors", "copy_mirrors", "new_world", "signal"]
