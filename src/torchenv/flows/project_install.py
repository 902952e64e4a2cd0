"""The project itself, installed into its env editable, as ``uv sync`` and ``pip install -e .`` do.

Why: a project with a build system (``pyproject.toml`` with ``[build-system]``, or
``setup.py``/``setup.cfg``) expects its console scripts on PATH and its package importable
from any folder (``torchenv run -C DIR``). Its dependencies are locked with the rest;
the project is installed with ``--no-deps`` after the sync, so nothing unlocked comes in.
The lock names it as an editable path entry without a hash: its files are the working tree,
which a hash would only ever describe as "changed".

What the no-op check compares (standard library only): the record ``<env>/.torchenv/project.json``
(the build files' sizes and mtimes when it was installed, and its dist-info name) against the
build files now and the env's site-packages. An install that failed is recorded too, so a
project whose build needs what is not here (a CUDA compiler) is tried again only when its
build files change, and said each time ``up`` does work.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..backends.torchbuild import against_torch, read_pyproject
from ..i18n import _

if TYPE_CHECKING:
    from ..errors import BuildFailed
    from ..lockfile.model import LockedWheel, Lockfile
    from ..resolve.plan import Plan

BUILD_FILES = ("pyproject.toml", "setup.py", "setup.cfg")
RECORD = "project.json"
NO_HASH = "none: the project itself, installed editable from its folder"


@dataclass(frozen=True)
class ProjectBuild:
    """A project folder that can be installed, and what its build files looked like."""
    path: Path
    inputs: tuple[tuple[str, int, int], ...]   # (build file, size, mtime_ns)


def installable(project_dir: Path) -> ProjectBuild | None:
    """The project, when pip would install it: ``setup.py``/``setup.cfg``, or ``pyproject.toml``
    with a ``[build-system]`` table (a pyproject holding only tool settings is not a package)."""
    inputs = []
    for name in BUILD_FILES:
        try:
            st = os.stat(project_dir / name)
        except OSError:
            continue
        inputs.append((name, st.st_size, st.st_mtime_ns))
    names = {name for name, _s, _m in inputs}
    if not names or (names == {"pyproject.toml"} and not _has_build_system(project_dir / "pyproject.toml")):
        return None
    return ProjectBuild(path=project_dir, inputs=tuple(inputs))


def _has_build_system(pyproject: Path) -> bool:
    from ..fileio import tomllib_module

    try:
        data = tomllib_module().loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data.get("build-system"), dict)


def build_requirements(project_dir: Path) -> list[str]:
    """What the project's build needs from the PyPI side when it builds against the env's torch: locked with
    the project's requirements, so the build (which runs without isolation) finds them installed."""
    if installable(project_dir) is None:
        return []
    needs = against_torch(project_dir)
    return list(needs.build_requires) if needs is not None else []


def lock_entry(project_dir: Path) -> dict[str, Any]:
    """The lock's ``[project]`` table: empty when the project is not a package. A project built against the
    env's torch says so (``build-isolation = false``) and names its locked build requirements."""
    if installable(project_dir) is None:
        return {}
    entry: dict[str, Any] = {"path": ".", "editable": True, "hash": NO_HASH}
    needs = against_torch(project_dir)
    if needs is not None:
        entry.update({"build-isolation": False, "build-requires": list(needs.build_requires)})
    return entry


def lock_agrees(lock: Lockfile, project_dir: Path) -> bool:
    """Does the lock say what the folder is (a package to install, or not)? A build system added
    or removed re-locks, so the next ``up`` installs (or stops installing) the project."""
    return dict(lock.project) == lock_entry(project_dir)


def _read_record(env: Path) -> dict[str, Any] | None:
    try:
        data = json.loads((env / ".torchenv" / RECORD).read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def noop_problem(env: Path, site: Path, project_dir: Path) -> str | None:
    """Why the env's copy of the project is not what the folder says, in words; ``None`` when it is."""
    build = installable(project_dir)
    record = _read_record(env)
    if build is None:
        return None
    if record is None or [list(i) for i in build.inputs] != record.get("inputs"):
        return "the project is not installed, or its build files changed"
    if not record.get("ok"):
        return "the project's last build failed"
    info = record.get("dist_info")
    if record.get("ok") and (not info or not (site / info).is_dir()):
        return "the project's own install is gone"
    return None


def kept_names(env: Path) -> frozenset[str]:
    """Distributions in the env that are not in the lock by design: pip, and the project."""
    record = _read_record(env) or {}
    name = record.get("name")
    return frozenset({"pip", *([name] if isinstance(name, str) else [])})


def sync_project(env: Path, python: Path, plan: Plan, project_dir: Path, ui: Any,
                 tools: tuple[LockedWheel, ...] = ()) -> str | None:
    """Install the project editable when its record is missing or stale; ``"installed"`` when it did.

    The env's state (fingerprint, watched files) is refreshed afterwards, so the next no-op
    check sees the project as part of the env and notices when it is removed.
    """
    from ..backends import state as st

    if plan.backend != "venv":
        return None
    site = st.site_packages(env, plan.python)
    problem = noop_problem(env, site, project_dir)
    build = installable(project_dir)
    if problem is None or build is None:
        return None
    before = set(os.listdir(site)) if site.is_dir() else set()
    failure = _run_install(python, plan, project_dir, ui, tools)
    after = set(os.listdir(site)) if site.is_dir() else set()
    info = next((n for n in sorted(after - before) if n.endswith(".dist-info")), None) or _own_dist_info(site,
                                                                                                        project_dir)
    name = st.distributions((info,)) if info else {}
    record = {"inputs": [list(i) for i in build.inputs], "ok": failure is None, "dist_info": info,
              "name": next(iter(name), None), "error": failure.log if failure is not None else None}
    st._write_json(st.marker_dir(env) / RECORD, record)
    _refresh_state(env)
    if failure is not None:
        raise failure
    ui.step(_("installed the project itself into {env} (editable, as `pip install -e .` does)").format(env=env))
    return "installed"


def _own_dist_info(site: Path, project_dir: Path) -> str | None:
    """The dist-info an earlier editable install of this folder left (re-installed in place)."""
    target = project_dir.resolve().as_uri()
    for name in sorted(n for n in os.listdir(site) if n.endswith(".dist-info")):
        try:
            direct = json.loads((site / name / "direct_url.json").read_text())
        except (OSError, ValueError):
            continue
        if direct.get("url", "").rstrip("/") == target.rstrip("/"):
            return name
    return None


def _refresh_state(env: Path) -> None:
    import dataclasses

    from ..backends import state as st

    state = st.read_state(env)
    if state is None:
        return
    st.write_state(env, dataclasses.replace(state, fingerprint=st.fingerprint(env, state.python),
                                            watched=st.watch_list(env, state.python)))


def _run_install(python: Path, plan: Plan, project_dir: Path, ui: Any,
                 tools: tuple[LockedWheel, ...] = ()) -> BuildFailed | None:
    """``pip install --no-deps -e DIR`` by the plan's installer; the failure, its log saved, or ``None``.

    A project built against the env's torch is built without isolation (its build requirements were
    locked and installed with the rest, so nothing is fetched); any other gets its build backend from
    the PyPI side in an isolated build, as pip and uv do.
    """
    from ..backends.buildprogress import follower
    from ..backends.torchbuild import environ_for_build, prepare_build
    from ..engines.uv import SourceFlags, run_streamed, run_tool, source_flags, uv_bin, uv_environ
    from ..errors import BuildFailed, TorchenvError

    needs = against_torch(project_dir)
    isolation = [] if needs is None else ["--no-build-isolation"]
    pypi = plan.sources.pypi if plan.sources is not None else None
    sources = (source_flags(pypi, list(plan.sources.wheelhouses), tool=plan.installer)
               if plan.sources is not None and pypi is not None else SourceFlags((), {}))
    if plan.installer == "uv":
        cmd = [uv_bin(), "pip", "install", "--no-config", "--quiet", "--no-deps", "--python", str(python),
               *(["--index-strategy", pypi.index_strategy] if pypi is not None else []), *sources.args,
               *isolation, "-e", str(project_dir)]
        env = {**uv_environ(), **sources.env}
    else:
        from ..engines.pip import installing_pip, pip_environ

        cmd = [*installing_pip(python), "install", "--quiet", "--no-deps", *sources.args, *isolation,
               "-e", str(project_dir)]
        env = {**pip_environ(), **sources.env}
    if needs is not None:
        prepare_build(plan, tools, ui)
        env.update(environ_for_build(plan, python, tools))
        ui.step(_("building the project against the env's torch, without build isolation ({why})").format(
            why=needs.reason))
    what = _("installing the project itself (editable)")
    try:
        with ui.progress(what) as advance:
            if needs is None:
                run_tool(cmd, what=what, env=env)
            else:      # minutes of compiling: the build's own lines (-v) show its step live
                run_streamed([("-v" if arg == "--quiet" else arg) for arg in cmd], what=what, env=env,
                             on_line=follower(advance))
    except BuildFailed as exc:
        return saved_log(exc, project_dir)
    except TorchenvError as exc:    # an installer failure that names no build: the project's build all the same
        from ..engines.failures import build_failed

        return saved_log(build_failed(_project_name(project_dir), exc.message, what=what), project_dir)
    return None


def _project_name(project_dir: Path) -> str:
    name = read_pyproject(project_dir).get("project", {})
    name = name.get("name") if isinstance(name, dict) else None
    return name if isinstance(name, str) else project_dir.name


def saved_log(failure: BuildFailed, project_dir: Path) -> BuildFailed:
    """``failure`` with its whole log written to ``<project>/.torchenv/build-logs/<package>.log`` and named."""
    from ..engines.failures import build_failed
    from ..fileio import write_atomic
    from ..redaction import redact_text

    path = project_dir / ".torchenv" / "build-logs" / f"{re.sub(r'[^A-Za-z0-9._-]+', '_', failure.package)}.log"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, redact_text(failure.output) + "\n")
    except OSError:
        return failure
    return build_failed(failure.package, failure.output, what=failure.what, log=str(path))
