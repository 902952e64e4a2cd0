"""Source distributions that compile against torch: built once against the env's torch, the wheel cached.

Why: an sdist whose build imports torch (``torch.utils.cpp_extension``; the ``builds`` recipe lists the
known ones) fails in an isolated build ("No module named 'torch'"), and one that brought a torch of its
own would compile against another torch. Such a file is built after the locked wheels are installed,
without isolation, by the env's interpreter. Compiling takes minutes to hours, so the wheel is kept in
torchenv's cache under what decides its bytes -- the sdist's sha256, the torch build, the Python, the
CUDA archs and toolkit -- and the next env (or the next project) with the same inputs installs it without
running a compiler.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..envlayout import dist_name
from ..i18n import _

if TYPE_CHECKING:
    from ..lockfile.model import LockedWheel
    from ..resolve.plan import Plan

_BUILD_FILES = ("setup.py", "pyproject.toml")


@dataclass(frozen=True)
class AgainstTorch:
    """Why the project's build needs the env's torch, and what else its build needs (locked with the rest)."""
    reason: str
    build_requires: tuple[str, ...]


_IMPORTS_TORCH = re.compile(r"^\s*(?:import\s+torch\b|from\s+torch[\w.]*\s+import\b)", re.M)
_DEFAULT_BUILD = ("setuptools>=40.8.0", "wheel")     # what pip assumes for a setup.py without [build-system]


def read_pyproject(project_dir: Path) -> dict[str, Any]:
    from ..fileio import tomllib_module

    try:
        data = tomllib_module().loads((project_dir / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _req_name(spec: str) -> str:
    return dist_name(re.split(r"[<>=!~;\[ @]", spec.strip(), maxsplit=1)[0])


def _recipe_row(name: str) -> dict[str, Any] | None:
    from ..kb.load import recipe

    return next((row for row in recipe("builds").get("against_torch", []) if row.get("name") == name), None)


def recipe_knows(name: str) -> bool:
    """Is ``name`` a package the ``builds`` recipe lists as built against torch?"""
    return _recipe_row(_req_name(name)) is not None if name else False


def against_torch(project_dir: Path) -> AgainstTorch | None:
    """Does the project's build import torch? ``torch`` in ``[build-system] requires``, a ``setup.py`` that
    imports it (``torch.utils.cpp_extension``), or a package the ``builds`` recipe knows; ``None`` otherwise.

    Why: built in isolation such a build sees no torch ("No module named 'torch'"), and one that
    got a torch of its own would compile against a torch other than the env's.
    """
    from ..kb.query import torch_family

    data = read_pyproject(project_dir)
    build_system = data.get("build-system")
    requires = build_system.get("requires", []) if isinstance(build_system, dict) else []
    declared = [r for r in requires if isinstance(r, str)] if isinstance(requires, list) else []
    family = set(torch_family())
    others = tuple(r for r in declared if _req_name(r) not in family)
    if any(_req_name(r) == "torch" for r in declared):
        return AgainstTorch(_("[build-system] requires torch"), others)
    try:
        setup = (project_dir / "setup.py").read_text(encoding="utf-8", errors="replace")
    except OSError:
        setup = ""
    if _IMPORTS_TORCH.search(setup):
        return AgainstTorch(_("setup.py imports torch"), others if "build-system" in data else _DEFAULT_BUILD)
    name = data.get("project", {}).get("name") if isinstance(data.get("project"), dict) else None
    row = _recipe_row(_req_name(name)) if isinstance(name, str) else None
    if row is not None:
        return AgainstTorch(_("{name} builds against torch (recipes/builds.toml)").format(name=row["name"]),
                            tuple(dict.fromkeys([*others, *row.get("build_requires", [])])))
    return None


def needs_torch(sdist: Path) -> bool:
    """Does this source distribution's build import torch (read from its ``setup.py``/``pyproject.toml``)?"""
    import tarfile
    import tempfile

    from ..sources.index import project_of

    if recipe_knows(project_of(sdist.name) or ""):
        return True
    if not sdist.name.endswith((".tar.gz", ".tgz")):
        return False
    with tempfile.TemporaryDirectory(prefix="torchenv-sdist-") as tmp:
        try:
            with tarfile.open(sdist) as tar:
                for member in tar.getmembers():
                    parts = member.name.split("/")
                    if len(parts) == 2 and parts[1] in _BUILD_FILES and member.isfile():
                        data = tar.extractfile(member)
                        if data is not None:
                            (Path(tmp) / parts[1]).write_bytes(data.read())
        except (OSError, tarfile.TarError):
            return False
        return against_torch(Path(tmp)) is not None


def toolkit_identity(cuda_home: str) -> str:
    from .cudatool import toolkit_identity as identity

    return identity(cuda_home) if cuda_home else ""


def environ_for_build(plan: Plan, env_python: Path, tools: tuple[LockedWheel, ...]) -> dict[str, str]:
    """The build's variables (``buildenv``) with the locked nvcc of the tier's CUDA as ``CUDA_HOME`` (where it is
    unpacked; ``prepare_build`` puts it there). Reading no file: a cached wheel is found without the toolkit."""
    from .buildenv import build_environ
    from .cudatool import planned_home

    return build_environ(plan, env_python, toolkit=planned_home(plan, tools),
                         locked_capabilities=locked_capabilities(plan) if plan.cuda_version else ())


def locked_capabilities(plan: Plan) -> tuple[str, ...]:
    """The compute capabilities the project's lock was made for (``[machine]``): compile only for the GPUs that
    will run it, also where none is probed (a build node, a container build)."""
    from ..errors import TorchenvError
    from ..lockfile.io import read_lock
    from ..lockfile.model import LOCK_FILE

    try:
        caps = read_lock(plan.intent.project_dir / LOCK_FILE).machine.get("compute_capabilities")
    except (TorchenvError, OSError):
        return ()
    return tuple(c for c in caps if isinstance(c, str)) if isinstance(caps, list) else ()


def prepare_build(plan: Plan, tools: tuple[LockedWheel, ...], ui: Any) -> None:
    """Before a compile: the host compiler checked (a missing one, or a GCC newer than the tier's CUDA accepts,
    is said with its fix) and the locked toolkit fetched, hash-checked, and unpacked."""
    from .buildenv import cuda_home
    from .cudatool import host_compiler_problem, missing_toolkit, probe_host_compiler, toolkit_home

    problems = [host_compiler_problem(probe_host_compiler(plan.cuda_version), plan.cuda_version)]
    if toolkit_home(plan, tools, ui) is None and not os.environ.get("CUDA_HOME") and cuda_home(plan) is None:
        problems.append(missing_toolkit(plan.cuda_version))
    for problem in filter(None, problems):
        ui.warn(problem)


def cache_inputs(source_sha256: str, plan: Plan, torch_build: str, environ: dict[str, str]) -> dict[str, str]:
    """What decides the built wheel's bytes: source, torch build, Python, archs, toolkit."""
    return {"source": source_sha256, "torch": torch_build, "python": plan.python, "platform": plan.platform,
            "archs": environ.get("TORCH_CUDA_ARCH_LIST") or os.environ.get("TORCH_CUDA_ARCH_LIST", ""),
            "cuda": plan.cuda_version or "", "cuda_home": toolkit_identity(environ.get("CUDA_HOME", ""))}


def cache_key(source_sha256: str, plan: Plan, torch_build: str, environ: dict[str, str]) -> str:
    """``cache_inputs``, hashed: the built wheel's folder name under ``cache_root()``."""
    inputs = cache_inputs(source_sha256, plan, torch_build, environ)
    return hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()[:32]


INPUTS = "inputs.json"     # beside a cached built wheel: what it was built from (``bundle`` picks by source)


def built_for(sources: set[str]) -> list[tuple[str, Path]]:
    """``(key/file, path)`` of each cached built wheel (and its inputs) built from an sdist whose sha256 is
    in ``sources``: what ``bundle`` carries so an offline ``up`` installs them without compiling."""
    root = cache_root()
    found = []
    for inputs in sorted(root.glob(f"*/{INPUTS}")) if root.is_dir() else []:
        try:
            source = json.loads(inputs.read_text()).get("source")
        except (OSError, ValueError, AttributeError):
            continue
        if source in sources:
            found += [(f"{inputs.parent.name}/{p.name}", p) for p in sorted(inputs.parent.iterdir()) if p.is_file()]
    return found


def adopt_built(files: dict[str, bytes]) -> int:
    """Cached built wheels from a bundle (``key/file`` -> bytes, each checked by the caller): placed under
    ``cache_root()`` where none is yet, one folder at a time by rename. How many folders were added."""
    import tempfile

    root = cache_root()
    by_key: dict[str, dict[str, bytes]] = {}
    for rel, data in files.items():
        key, _slash, name = rel.partition("/")
        if re.fullmatch(r"[0-9a-f]{32}", key) and re.fullmatch(r"[\w.+-]+", name):
            by_key.setdefault(key, {})[name] = data
    added = 0
    for key, members in sorted(by_key.items()):
        if (root / key).is_dir() or not any(n.endswith(".whl") for n in members):
            continue
        root.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="torchenv-adopt-", dir=root) as tmp:
            staged = Path(tmp) / key
            staged.mkdir()
            for name, data in members.items():
                (staged / name).write_bytes(data)
            try:
                os.replace(staged, root / key)
                added += 1
            except OSError:
                pass
    return added


def cache_root() -> Path:
    from ..paths import cache_dir

    return cache_dir() / "built-wheels"


def built_wheel(sdist: Path, sha256: str, plan: Plan, env_python: Path, torch_build: str, ui: Any,
                tools: tuple[LockedWheel, ...] = ()) -> Path:
    """The wheel of ``sdist`` built against the env's torch: from the cache, else built now and cached."""
    import tempfile

    from ..engines.pip import installing_pip, pip_tool_environ
    from ..engines.uv import run_streamed
    from .buildprogress import follower

    environ = environ_for_build(plan, env_python, tools)
    inputs = cache_inputs(sha256, plan, torch_build, environ)
    folder = cache_root() / cache_key(sha256, plan, torch_build, environ)
    cached = sorted(folder.glob("*.whl")) if folder.is_dir() else []
    if cached:
        ui.step(_("{name}: the wheel built against this torch before is reused from the cache (no compile)")
                .format(name=sdist.name))
        return cached[0]
    prepare_build(plan, tools, ui)
    folder.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="torchenv-build-", dir=folder.parent) as tmp:
        what = _("building {name} against the env's torch, without build isolation").format(name=sdist.name)
        with ui.progress(what) as advance:     # -v: the build's own lines, read for its compile step
            run_streamed([*installing_pip(env_python), "wheel", "-v", "--no-deps", "--no-index",
                          "--no-build-isolation", "-w", tmp, str(sdist)], what=what,
                         env={**pip_tool_environ(), **environ}, on_line=follower(advance))
        wheels = sorted(Path(tmp).glob("*.whl"))
        if not wheels:
            from ..errors import BackendError

            raise BackendError(_("{what}: no wheel came out").format(what=what))
        staged = Path(tmp) / "done"
        staged.mkdir()
        os.replace(wheels[0], staged / wheels[0].name)
        (staged / INPUTS).write_text(json.dumps(inputs, indent=1, sort_keys=True) + "\n")
        try:
            os.replace(staged, folder)     # one rename: a reader sees no folder or a whole one
        except OSError:                    # another run cached it meanwhile
            pass
    return next(iter(sorted(folder.glob("*.whl"))))
