"""Read an environment's torch build from its files: dist-info, version.py, the libraries' arch string.

Why never import torch: a broken build may crash, hang or abort the interpreter on import, and the
env may belong to another Python than torchenv's. Everything here is a file read (``ast`` for
version.py, ``email`` for METADATA), so doctor works on any venv, conda prefix or system Python.
"""
from __future__ import annotations

import ast
import json
import os
import re
import sys
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


def read_env(prefix: Path, *, scan_binaries: bool = True) -> EnvFacts:
    """Every fact doctor needs about one environment (torch absent is a valid answer)."""
    from . import archscan, knowledge

    sites = site_packages(prefix)
    py = interpreter(prefix)
    pyver = next((m.group(1) for m in (re.search(r"python(3\.\d+)", str(s)) for s in sites) if m), None)
    notes: list[str] = []
    version = meta_cuda = installer = lib_dir = cudnn = None
    cuda: str | None = None
    hip: str | None = None
    archs: tuple[str, ...] = ()
    archs_source = ""
    companions: list[Companion] = []
    has_pip = False
    torch_dists: list[Path] = []
    for site in sites:
        has_pip = has_pip or bool(dist_infos(site, "pip"))
        dists = dist_infos(site, "torch")
        torch_dists += dists
        if dists and version is None:
            meta_version, requires = read_metadata(dists[-1])
            meta_cuda = cuda_from_requires(requires)
            try:
                installer = (dists[-1] / "INSTALLER").read_text().strip() or None
            except OSError:
                installer = None
            vpy = read_version_py(site / "torch" / "version.py")
            version = str(vpy.get("__version__") or meta_version or "") or None
            cuda = _str_or_none(vpy.get("cuda"))
            hip = _str_or_none(vpy.get("hip"))
            if (site / "torch" / "lib").is_dir():
                lib_dir = str(site / "torch" / "lib")
        cudnn = _cudnn_version(site) or cudnn
        companions += _companions(site)
    if len(torch_dists) > 1:
        notes.append("several torch dist-info folders: " + ", ".join(d.name for d in torch_dists))
    conda_records = _conda_torch(prefix)
    conda_names = tuple(p.name[:-5] for p in conda_records)
    if version is None and conda_records:
        try:
            rec = json.loads(conda_records[0].read_text())
            version = rec.get("version")
            m = _CONDA_CUDA.search(rec.get("build", ""))
            meta_cuda = f"{m.group(1)}.{m.group(2)}" if m else None
        except (OSError, ValueError):
            pass
    if scan_binaries and lib_dir and (cuda or meta_cuda):
        archs, src = archscan.scan_torch_lib(Path(lib_dir))
        archs_source = f"binary {src}" if archs else ""
    facts = EnvFacts(prefix=str(prefix), kind=env_kind(prefix), python=pyver,
                     interpreter=str(py) if py else None, site_packages=tuple(str(s) for s in sites),
                     torch_version=version, torch_cuda=cuda, torch_hip=hip, cuda_from_metadata=meta_cuda,
                     cudnn=cudnn, companions=tuple(companions), conda_torch=conda_names,
                     pip_torch=bool(torch_dists) and (installer or "").lower() not in ("conda", ""),
                     installer=installer, has_pip=has_pip, torch_lib_dir=lib_dir, notes=tuple(notes))
    if not archs and facts.tier and facts.tier.startswith("cu") and facts.torch_public:
        archs = knowledge.compiled_archs(facts.torch_public, facts.tier)
        archs_source = f"kb {facts.torch_public} {facts.tier}" if archs else ""
    if archs:
        import dataclasses

        facts = dataclasses.replace(facts, archs=archs, archs_source=archs_source)
    return facts
