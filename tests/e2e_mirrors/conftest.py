"""End-to-end mirror tests: the real ``torchenv up`` CLI, in a subprocess, against loopback mirrors.

The world (fake wheels only, so each ``up`` takes ~1 s):

* a **torch mirror** (``TorchMirror``): ``<base>/<tier>/<project>/`` PEP 503 pages whose hrefs point
  at ``<base>/<tier>/<file>`` (download.pytorch.org's shape), or a ``flat`` tier directory
  listing files (Aliyun's shape, autoindex with ``%2B``, no hashes);
* a **PyPI-side mirror** (``build_index``): ``<server>/simple`` with ``fakedep`` (torch's
  dependency) and, where a test wants it, *planted* torch-family wheels;
* a recording **proxy** that every non-loopback connection goes to and that refuses it, so
  ``download.pytorch.org`` / ``pypi.org`` are never reached and a test can assert they were
  never even asked for.

The plan is pinned with assumed hardware: torch 2.4.1, tier **cu118** (not cu121: cu121 is
PyPI's own build of 2.4.1 on linux-x86_64, so the resolver would route torch to the PyPI side),
Python 3.11, with torchvision. ``torchenv plan`` says: torch 2.4.1+cu118, torchvision
0.19.1+cu118, both from the torch index.
"""
from __future__ import annotations

import base64
import hashlib
import html
import os
import shutil
import threading
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote

import pytest
from tests.support import build_index, sha256_of
from tests.support.cli import SCRUBBED, Ran, run_cli, user_shell
from tests.support.project import ProjectView

TIER = "cu118"
TORCH = "2.4.1+cu118"
VISION = "0.19.1+cu118"
TAG = "cp311-cp311-linux_x86_64"          # what download.pytorch.org's 2.4.1 wheels carry
TORCH_FILE = f"torch-{TORCH}-{TAG}.whl"
VISION_FILE = f"torchvision-{VISION}-{TAG}.whl"
CANONICAL_TORCH = f"https://download.pytorch.org/whl/{TIER}/torch-2.4.1%2Bcu118-{TAG}.whl"
FAMILY = ("torch", "torchvision", "torchaudio", "triton")
ASSUME = ["--assume-driver", "550.54.14", "--assume-gpu", "8.6"]
RUNNER = Path(__file__).with_name("run_torchenv.py")

TOML = """\
[torch]
version = "2.4.1"
cuda = "cu118"
python = "3.11"
with = ["torchvision"]

[env]
installer = "{installer}"
{mirror}"""


# --- wheels ----------------------------------------------------------------------------------------

def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def with_marker(wheel: Path, origin: str, out_dir: Path) -> Path:
    """A copy of ``wheel`` (same file name) with ``<module>/_origin.txt`` = ``origin`` in it.

    Why: a genuine and a planted wheel share name, version and tag; the marker (and so the
    bytes, the RECORD and the sha256) tells which one ended up installed.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    module = wheel.name.split("-", 1)[0].lower()
    with zipfile.ZipFile(wheel) as zf:
        files = {i.filename: zf.read(i) for i in zf.infolist()}
    record_name = next(n for n in files if n.endswith(".dist-info/RECORD"))
    files.pop(record_name)
    files[f"{module}/_origin.txt"] = origin.encode()
    record = "".join(f"{p},{_record_hash(d)},{len(d)}\n" for p, d in files.items()) + f"{record_name},,\n"
    files[record_name] = record.encode()
    target = out_dir / wheel.name
    with zipfile.ZipFile(target, "w") as zf:
        for p, d in files.items():
            info = zipfile.ZipInfo(p, date_time=(2024, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, d)
    return target


@dataclass
class Wheels:
    torch: Path            # the genuine torch 2.4.1+cu118 (marker "genuine")
    vision: Path
    fakedep: Path
    planted_same: Path     # a *different* torch-2.4.1+cu118 wheel (marker "planted")
    planted_higher: Path   # torch 2.4.2 (no local tag), also planted
    planted_vision: Path


@pytest.fixture(scope="session")
def e2e_wheels(wheels, tmp_path_factory) -> Wheels:
    d = tmp_path_factory.mktemp("e2e-wheels")
    torch = with_marker(wheels.make("torch", TORCH, tag=TAG, requires=["fakedep>=1"]), "genuine", d / "genuine")
    vision = with_marker(wheels.make("torchvision", VISION, tag=TAG, requires=["torch==2.4.1"]),
                         "genuine", d / "genuine")
    fakedep = wheels.make("fakedep", "1.0.0")
    planted_same = with_marker(wheels.make("torch", TORCH, tag=TAG, requires=["fakedep>=1"]), "planted", d / "planted")
    planted_higher = with_marker(wheels.make("torch", "2.4.2", tag=TAG, requires=["fakedep>=1"]),
                                 "planted", d / "planted")
    planted_vision = with_marker(wheels.make("torchvision", VISION, tag=TAG, requires=["torch"],
                                             shelf="e2e-planted"), "planted", d / "planted")
    assert sha256_of(torch) != sha256_of(planted_same)
    return Wheels(torch, vision, fakedep, planted_same, planted_higher, planted_vision)


# --- mirror trees ---------------------------------------------------------------------------------

def torch_mirror_tree(root: Path, files: list[Path], *, layout: str = "index", tier: str = TIER,
                      listed_hash: dict[str, str] | None = None) -> Path:
    """``root/<tier>/<file>`` plus, for ``layout="index"``, ``root/<tier>/<project>/index.html``.

    ``listed_hash``: {filename: sha256} to publish instead of the served file's own hash (a mirror
    whose listing and bytes disagree).
    """
    tier_dir = root / tier
    tier_dir.mkdir(parents=True, exist_ok=True)
    by_project: dict[str, list[Path]] = {}
    for f in files:
        shutil.copyfile(f, tier_dir / f.name)
        by_project.setdefault(f.name.split("-", 1)[0].lower(), []).append(tier_dir / f.name)
    if layout == "index":
        for project, paths in by_project.items():
            links = []
            for p in paths:
                sha = (listed_hash or {}).get(p.name) or sha256_of(p)
                href = html.escape(f"../{quote(p.name)}#sha256={sha}")
                links.append(f'<a href="{href}">{html.escape(p.name)}</a><br/>')
            (tier_dir / project).mkdir(exist_ok=True)
            (tier_dir / project / "index.html").write_text(
                "<!DOCTYPE html><html><body>\n" + "\n".join(links) + "\n</body></html>\n")
    return root


def pypi_tree(root: Path, wheels: Wheels, *, planted: bool = True) -> Path:
    """A PyPI-side index with fakedep and (``planted``) torch-family wheels that must never be used."""
    projects: dict[str, list[Path]] = {"fakedep": [wheels.fakedep]}
    if planted:
        projects["torch"] = [wheels.planted_same, wheels.planted_higher]
        projects["torchvision"] = [wheels.planted_vision]
    build_index(root, projects)
    return root


def family_hits(hits: list[str]) -> list[str]:
    """Requests for a torch-family project page or file."""
    out = []
    for h in hits:
        last = [p for p in h.split("?")[0].split("/") if p]
        name = last[-1].lower() if last else ""
        if any(name == f or name.startswith(f + "-") or name.startswith(f.replace("-", "_") + "-")
               for f in FAMILY):
            out.append(h)
    return out


def file_hits(hits: list[str], filename: str) -> list[str]:
    quoted = quote(filename)
    return [h for h in hits if h.split("?")[0].endswith((filename, quoted))]


# --- the refusing, recording proxy ----------------------------------------------------------------

@contextmanager
def refusing_proxy() -> Iterator[tuple[str, list[str]]]:
    """An HTTP(S) proxy that records what it was asked for and refuses everything (403)."""
    asked: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def _refuse(self) -> None:
            asked.append(f"{self.command} {self.path}")
            self.send_error(403, "e2e proxy: no network in tests")

        do_CONNECT = do_GET = do_HEAD = do_POST = _refuse

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", asked
    finally:
        server.shutdown()
        server.server_close()


# --- running torchenv ---------------------------------------------------------------------------

_PROXY = ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")


@dataclass
class E2E(ProjectView):
    root: Path
    project: Path
    home: Path             # fake $HOME (user's pip config lives under it)
    torchenv_home: Path
    proxy: str
    proxy_asked: list[str]
    installer: str = "uv"
    use_user_pip_config: bool = False   # False: PIP_CONFIG_FILE=/dev/null (the fake HOME's pip.conf unread)
    presets_file: Path | None = None    # the user's mirrors file, once a test writes one
    extra_env: dict[str, str] = field(default_factory=dict)
    runs: list[Ran] = field(default_factory=list)

    def write_toml(self, mirror: str = "") -> None:
        block = f"\n[mirror]\n{mirror}" if mirror else ""
        (self.project / "torchenv.toml").write_text(TOML.format(installer=self.installer, mirror=block))

    def add_presets(self, text: str) -> None:
        """The user's own mirrors file (recipes/mirrors.toml's schema), e.g. a loopback ``[torch.e2e-fallback]``."""
        self.presets_file = self.torchenv_home / "config" / "mirrors.toml"
        self.presets_file.parent.mkdir(parents=True, exist_ok=True)
        self.presets_file.write_text(text)

    def presets_file_text(self) -> str:
        """The user's mirrors file as ``mirror add`` left it."""
        return (self.torchenv_home / "config" / "mirrors.toml").read_text()

    def user_config(self, text: str) -> Path:
        """The user's own torchenv ``config.toml`` (the layer below torchenv.toml)."""
        path = self.torchenv_home / "config" / "config.toml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    def environ(self) -> dict[str, str]:
        env = user_shell(home=self.home, torchenv_home=self.torchenv_home,
                         scrub=(*SCRUBBED, *_PROXY, "no_proxy", "NO_PROXY"), PYTHONUNBUFFERED="1",
                         XDG_CONFIG_HOME=str(self.home / ".config"), XDG_CONFIG_DIRS=str(self.home / "xdg-system"),
                         NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost",
                         **dict.fromkeys(_PROXY, self.proxy))
        if not self.use_user_pip_config:
            env["PIP_CONFIG_FILE"] = os.devnull
        env.update(self.extra_env)
        return env

    def torchenv(self, *args: str, timeout: float = 120) -> Ran:
        run = run_cli(*args, cwd=self.root, env=self.environ(), timeout=timeout, runner=RUNNER)
        self.runs.append(run)
        return run

    def up(self, *extra: str, verify: bool = False) -> Ran:
        args = ["up", "-C", str(self.project), *ASSUME, *extra]
        if not verify:
            args.append("--no-verify")
        return self.torchenv(*args)

    # -- what the user finds afterwards --
    def origin(self, module: str = "torch") -> str:
        return (self.site() / module / "_origin.txt").read_text()

    def installed_version(self, dist: str) -> str:
        found = sorted(p.name for p in self.site().glob(f"{dist}-*.dist-info"))
        assert len(found) == 1, found
        return found[0][len(dist) + 1:-len(".dist-info")]

    def read_lock(self):
        from torchenv.lockfile.io import read_lock

        return read_lock(self.lock)


@pytest.fixture
def e2e(tmp_path) -> Iterator[E2E]:
    project = tmp_path / "proj"
    project.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    with refusing_proxy() as (proxy, asked):
        yield E2E(root=tmp_path, project=project, home=home, torchenv_home=tmp_path / "torchenv-home",
                  proxy=proxy, proxy_asked=asked)


def assert_ok(run: Ran) -> None:
    assert run.rc == 0, f"torchenv failed (exit {run.rc}):\n{run.text}"
