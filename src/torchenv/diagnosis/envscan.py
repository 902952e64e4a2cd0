"""Read an environment's torch build from its files: dist-info, version.py, the libraries' arch string.

Why never import torch: a broken build may crash, hang or abort the interpreter on import, and the
env may belong to another Python than torchenv's. Everything here is a file read (``ast`` for
version.py, ``email`` for METADATA), so doctor works on any venv, conda prefix or system Python.
"""
from __future__ import annotations

import ast
import dataclasses
import json
import os
import re
import sys
from dataclasses import dataclass
from email.parser import Parser
from pathlib import Path

from ..envlayout import dist_name
from ..kb.pins import cuda_from_requires
from .model import Companion, EnvFacts

COMPANIONS = ("torchvision", "torchaudio")
_CONDA_CUDA = re.compile(r"cuda(\d+)\.(\d+)")


_norm = dist_name


def find_prefix(env: str | None, project: Path | None = None) -> tuple[Path, str]:
    """The env to inspect and how it was chosen.

    ``--env`` (a prefix or its python), else the active env (VIRTUAL_ENV / CONDA_PREFIX), else the
    project's ``.venv``, else the interpreter running torchenv (``sys.prefix``).
    """
    if env:
        p = Path(env).expanduser()
        if p.is_file():  # .../bin/python or ...\python.exe
            p = p.parent.parent if p.parent.name in ("bin", "Scripts") else p.parent
        return p.resolve(), "--env"
    for var in ("VIRTUAL_ENV", "CONDA_PREFIX"):
        if os.environ.get(var) and Path(os.environ[var]).is_dir():
            return Path(os.environ[var]).resolve(), f"${var}"
    if project is not None and (project / ".venv" / "pyvenv.cfg").is_file():
        return (project / ".venv").resolve(), "project .venv"
    return Path(sys.prefix).resolve(), "current interpreter"


def env_kind(prefix: Path) -> str:
    if (prefix / "conda-meta").is_dir():
        return "conda"
    if (prefix / "pyvenv.cfg").is_file():
        return "venv"
    return "system"


def site_packages(prefix: Path) -> list[Path]:
    found = sorted(prefix.glob("lib/python3*/site-packages")) + sorted(prefix.glob("lib64/python3*/site-packages"))
    win = prefix / "Lib" / "site-packages"
    if win.is_dir():
        found.append(win)
    if not found and Path(sys.prefix).resolve() == prefix.resolve():
        import sysconfig

        found = [Path(sysconfig.get_paths()["purelib"])]
    seen: list[Path] = []
    for p in found:
        if p.is_dir() and p.resolve() not in [s.resolve() for s in seen]:
            seen.append(p)
    return seen


def interpreter(prefix: Path) -> Path | None:
    for rel in ("bin/python", "bin/python3", "python.exe", "Scripts/python.exe"):
        if (prefix / rel).exists():
            return prefix / rel
    return None


def dist_infos(site: Path, name: str) -> list[Path]:
    """``<name>-<version>.dist-info`` dirs for exactly that project (torch must not match torchvision)."""
    want = _norm(name)
    out = []
    for d in site.glob("*.dist-info"):
        project = d.name[: -len(".dist-info")].rsplit("-", 1)[0]
        if _norm(project) == want:
            out.append(d)
    return sorted(out)


def read_metadata(dist: Path) -> tuple[str | None, list[str]]:
    """(Version, Requires-Dist lines) of a dist-info; (None, []) when unreadable."""
    try:
        msg = Parser().parsestr((dist / "METADATA").read_text(errors="replace"), headersonly=True)
    except OSError:
        return None, []
    return msg.get("Version"), list(msg.get_all("Requires-Dist") or [])


def _str_or_none(value: object) -> str | None:
    """``value`` when version.py set it to a string (a build without CUDA/HIP sets ``None``)."""
    return value if isinstance(value, str) else None


def read_version_py(path: Path) -> dict[str, object]:
    """Top-level constant assignments of a version.py (``__version__``, ``cuda``, ``hip``), without executing it."""
    try:
        tree = ast.parse(path.read_text(errors="replace"))
    except (OSError, SyntaxError, ValueError):
        return {}
    out: dict[str, object] = {}
    for node in tree.body:
        target, value = None, None
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            target, value = node.targets[0].id, node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            target, value = node.target.id, node.value
        if target and isinstance(value, ast.Constant):
            out[target] = value.value
    return out


def torch_pin(requires: list[str]) -> str | None:
    """The ``torch`` requirement of a companion, as ``==2.13.0`` / ``>=2.14.0``."""
    for req in requires:
        head = req.split(";", 1)[0].strip()
        m = re.match(r"^torch\s*\(?\s*([<>=!~][^)]*)\)?\s*$", head, re.I)
        if m:
            return m.group(1).replace(" ", "")
    return None


def _conda_torch(prefix: Path) -> list[Path]:
    meta = prefix / "conda-meta"
    if not meta.is_dir():
        return []
    return sorted(p for p in meta.glob("*.json")
                  if re.match(r"^(pytorch|torch|pytorch-cuda|pytorch-gpu|pytorch-cpu)-\d", p.name)
                  and not p.name.startswith("pytorch-cuda-"))


def _cudnn_version(site: Path) -> str | None:
    """The version of the last nvidia-cudnn wheel found in ``site`` (cu11, cu12 or cu13)."""
    found = None
    for d in dist_infos(site, "nvidia-cudnn-cu12") + dist_infos(site, "nvidia-cudnn-cu13") \
            + dist_infos(site, "nvidia-cudnn-cu11"):
        found = read_metadata(d)[0] or found
    return found


def _companions(site: Path) -> list[Companion]:
    """torchvision/torchaudio in ``site``: version, the build's own version.py, and the torch they pin."""
    out = []
    for name in COMPANIONS:
        for d in dist_infos(site, name):
            cv, creq = read_metadata(d)
            build = read_version_py(site / name / "version.py").get("__version__")
            out.append(Companion(name=name, version=cv or "?", build_version=str(build) if build else None,
                                 torch_requirement=torch_pin(creq)))
    return out


@dataclass(frozen=True)
class _PipTorch:
    """What torch's dist-info and version.py in one site-packages say."""

    version: str | None = None
    meta_cuda: str | None = None  # CUDA level from the Requires-Dist pins
    installer: str | None = None
    cuda: str | None = None
    hip: str | None = None
    lib_dir: str | None = None


def _installer(dist: Path) -> str | None:
    try:
        return (dist / "INSTALLER").read_text().strip() or None
    except OSError:
        return None


def _read_pip_torch(site: Path, dist: Path, lib_dir: str | None) -> _PipTorch:
    """torch as ``dist`` in ``site`` describes it; ``lib_dir`` is kept when this site has no torch/lib."""
    meta_version, requires = read_metadata(dist)
    vpy = read_version_py(site / "torch" / "version.py")
    if (site / "torch" / "lib").is_dir():
        lib_dir = str(site / "torch" / "lib")
    return _PipTorch(version=str(vpy.get("__version__") or meta_version or "") or None,
                     meta_cuda=cuda_from_requires(requires), installer=_installer(dist),
                     cuda=_str_or_none(vpy.get("cuda")), hip=_str_or_none(vpy.get("hip")), lib_dir=lib_dir)


@dataclass(frozen=True)
class _SiteScan:
    """Everything read from the env's site-packages folders, in the order they are searched."""

    torch: _PipTorch
    torch_dists: tuple[Path, ...]
    cudnn: str | None
    companions: tuple[Companion, ...]
    has_pip: bool


def _scan_sites(sites: list[Path]) -> _SiteScan:
    """The first site whose torch has a version wins; cuDNN is the last one found; companions from every site."""
    torch = _PipTorch()
    torch_dists: list[Path] = []
    cudnn: str | None = None
    companions: list[Companion] = []
    has_pip = False
    for site in sites:
        has_pip = has_pip or bool(dist_infos(site, "pip"))
        dists = dist_infos(site, "torch")
        torch_dists += dists
        if dists and torch.version is None:
            torch = _read_pip_torch(site, dists[-1], torch.lib_dir)
        cudnn = _cudnn_version(site) or cudnn
        companions += _companions(site)
    return _SiteScan(torch, tuple(torch_dists), cudnn, tuple(companions), has_pip)


def _conda_torch_version(record: Path) -> tuple[str | None, str | None] | None:
    """(version, CUDA level from the build string) of a conda-meta record; None when it cannot be read."""
    try:
        rec = json.loads(record.read_text())
        version = rec.get("version")
        m = _CONDA_CUDA.search(rec.get("build", ""))
    except (OSError, ValueError):
        return None
    return version, (f"{m.group(1)}.{m.group(2)}" if m else None)


def _with_archs(facts: EnvFacts, *, scan_binaries: bool) -> EnvFacts:
    """The compiled archs: read from the binaries when allowed, else what the knowledge base says of that build."""
    from . import archscan, knowledge

    archs: tuple[str, ...] = ()
    archs_source = ""
    if scan_binaries and facts.torch_lib_dir and (facts.torch_cuda or facts.cuda_from_metadata):
        archs, src = archscan.scan_torch_lib(Path(facts.torch_lib_dir))
        archs_source = f"binary {src}" if archs else ""
    if not archs and facts.tier and facts.tier.startswith("cu") and facts.torch_public:
        archs = knowledge.compiled_archs(facts.torch_public, facts.tier)
        archs_source = f"kb {facts.torch_public} {facts.tier}" if archs else ""
    if not archs:
        return facts
    return dataclasses.replace(facts, archs=archs, archs_source=archs_source)


def read_env(prefix: Path, *, scan_binaries: bool = True) -> EnvFacts:
    """Every fact doctor needs about one environment (torch absent is a valid answer)."""
    sites = site_packages(prefix)
    py = interpreter(prefix)
    pyver = next((m.group(1) for m in (re.search(r"python(3\.\d+)", str(s)) for s in sites) if m), None)
    scan = _scan_sites(sites)
    torch = scan.torch
    notes: list[str] = []
    if len(scan.torch_dists) > 1:
        notes.append("several torch dist-info folders: " + ", ".join(d.name for d in scan.torch_dists))
    conda_records = _conda_torch(prefix)
    version, meta_cuda = torch.version, torch.meta_cuda
    if version is None and conda_records:
        version, meta_cuda = _conda_torch_version(conda_records[0]) or (version, meta_cuda)
    facts = EnvFacts(prefix=str(prefix), kind=env_kind(prefix), python=pyver,
                     interpreter=str(py) if py else None, site_packages=tuple(str(s) for s in sites),
                     torch_version=version, torch_cuda=torch.cuda, torch_hip=torch.hip, cuda_from_metadata=meta_cuda,
                     cudnn=scan.cudnn, companions=scan.companions,
                     conda_torch=tuple(p.name[:-5] for p in conda_records),
                     pip_torch=bool(scan.torch_dists) and (torch.installer or "").lower() not in ("conda", ""),
                     installer=torch.installer, has_pip=scan.has_pip, torch_lib_dir=torch.lib_dir, notes=tuple(notes))
    return _with_archs(facts, scan_binaries=scan_binaries)
