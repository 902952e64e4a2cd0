"""The pip engine: ``virtualenv``, ``pip install --dry-run --report``, ``pip install --no-deps``.

Why keep pip next to uv: some sites allow only pip, and pip merges all indexes (uv takes
the first index that has a package), which some mirror setups rely on.

Choices made here:

* Resolution always runs in pip's cross-target mode (``--target`` + ``--platform`` +
  ``--python-version`` + ``--only-binary=:all:``), so the native lock and a
  ``torchenv lock --target windows-x86_64-cpu`` go through the same code path.
* pip's own config files are ignored (``PIP_CONFIG_FILE=/dev/null``): the plan already
  read them into ``Sources.pypi`` and may have replaced parts (``--pypi-mirror``).
* Installs use ``--no-deps --no-index`` on files torchenv already hash-checked; then
  anything the lock does not name is uninstalled, except pip itself (the env's tool).
* Installs use ``--no-compile``, as the uv engine does not compile: byte-compiling every
  module costs more than the install itself (torch 2.13 cpu: ~17 s of ~23 s), and ``up``'s
  verify writes the ``.pyc`` that ``import torch`` needs (docs/benchmarks.md).
* The pip that installs is torchenv's own (compiled) pip run by the env's interpreter
  (``installing_pip``), not the env's freshly seeded one, which would compile itself first;
  and pip may write its own ``.pyc`` even where PYTHONDONTWRITEBYTECODE=1 is exported
  (``pip_tool_environ``): otherwise every pip run recompiles the modules pip imports.
"""
from __future__ import annotations

import functools
import importlib.util
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import BackendError, BuildFailed, EnvError
from ..i18n import _
from .base import WheelEngine, build_requirement_links
from .uv import file_url, index_for, missing_python_hint, requirements_lines, run_tool, source_flags

if TYPE_CHECKING:
    from ..lockfile.model import LockedWheel
    from ..sources.model import PypiSide

KEEP = frozenset({"pip"})   # the pip engine's env keeps its installer

_SCRUB = ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_CONSTRAINT", "PIP_NO_INDEX",
          "PIP_TARGET", "PIP_USER", "PIP_PREFIX", "PIP_REQUIRE_VIRTUALENV", "PIP_ONLY_BINARY",
          "PIP_NO_BINARY", "PIP_PLATFORM", "PIP_PYTHON_VERSION", "PIP_REQUIREMENT", "PIP_NO_DEPS")


def pip_platforms(platform: str) -> list[str]:
    """pip ``--platform`` values for a torchenv platform key.

    pip does not expand ``manylinux_2_28`` to older manylinux levels the way an installer
    on the target would, so every level is listed.
    """
    os_name, _dash, arch = platform.partition("-")
    if os_name == "linux":
        arch = "aarch64" if arch in ("arm64", "aarch64") else arch
        tags = [f"manylinux_2_{minor}_{arch}" for minor in range(28, 4, -1)]
        tags += [f"manylinux2014_{arch}"]
        if arch == "x86_64":
            tags += ["manylinux2010_x86_64", "manylinux1_x86_64"]
        return tags + [f"linux_{arch}"]
    if os_name == "windows":
        return ["win_arm64"] if arch in ("arm64", "aarch64") else ["win_amd64"]
    if os_name == "macos":
        return ["macosx_14_0_arm64"] if arch in ("arm64", "aarch64") else ["macosx_13_0_x86_64"]
    raise BackendError(_("{tool} cannot lock for platform {platform}").format(tool="pip", platform=platform),
                       hint=_("platforms look like linux-x86_64, windows-x86_64, macos-arm64"))


def pip_environ() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _SCRUB}
    env["PIP_CONFIG_FILE"] = os.devnull
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PIP_NO_INPUT"] = "1"
    return env


def pip_tool_environ() -> dict[str, str]:
    """``pip_environ`` for the runs that install locked files or resolve: pip keeps the bytecode of its own modules.

    Why: with PYTHONDONTWRITEBYTECODE=1 exported (common in containers and CI) every pip run
    compiled the ~200 modules it imports again (~0.4 s of a ~0.7 s install of small wheels).
    These runs compile nothing of what they install (``--no-compile``; ``--dry-run``), so the
    only ``.pyc`` written are pip's own: the resolving pip's, or the env's pip where that one
    installs (``installing_pip``). Not for the editable project install, whose build may import
    the user's sources.
    """
    env = pip_environ()
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


class PipEngine(WheelEngine):
    name = "pip"
    keeps = KEEP

    def __init__(self, *, ui: Any = None) -> None:
        self.ui = ui

    def create_venv(self, *, python: str, path: Path) -> None:
        cmd = [sys.executable, "-m", "virtualenv", "--quiet", "--no-download", "--no-periodic-update",
               "--no-setuptools", "-p", python, str(path)]
        run_tool(cmd, what=_("creating {path} with Python {python}").format(path=path, python=python) + " (virtualenv)",
                 env=pip_environ(),
                 error=EnvError, hint=missing_python_hint(python))

    def _pip(self) -> list[str]:
        """A pip to resolve with: torchenv's own interpreter's, else one in a scratch venv."""
        if importlib.util.find_spec("pip") is not None:
            return [sys.executable, "-m", "pip"]
        from .. import paths

        tool = paths.cache_dir() / "pip-tool"
        from ..envlayout import env_python

        if not env_python(tool).exists():
            self.create_venv(python=sys.executable, path=tool)
        return [str(env_python(tool)), "-m", "pip"]

    def resolve(self, *, requirements: list[str], python_version: str, platform: str,
                pypi: PypiSide, find_links: list[str]) -> list[LockedWheel]:
        major, _dot, minor = python_version.partition(".")
        with tempfile.TemporaryDirectory(prefix="torchenv-resolve-") as tmp:
            req = Path(tmp) / "requirements.in"
            req.write_text("\n".join(requirements) + "\n")
            report = Path(tmp) / "report.json"
            cmd = [*self._pip(), "install", "--dry-run", "--ignore-installed", "--quiet",
                   "--report", str(report), "--target", str(Path(tmp) / "target"),
                   "--only-binary=:all:", "--python-version", python_version,
                   "--implementation", "cp", "--abi", f"cp{major}{minor}", "--abi", "abi3", "--abi", "none"]
            for tag in pip_platforms(platform):
                cmd += ["--platform", tag]
            sources = source_flags(pypi, find_links, tool="pip")
            cmd += [*sources.args, "-r", str(req)]
            run_tool(cmd, what=_("resolving the environment for {platform}, Python {python} ({tool})").format(
                         platform=platform, python=python_version, tool="pip"), env={**pip_tool_environ(), **sources.env},
                     hint=_("the lines above say what {tool} could not do; `torchenv plan` shows the sources "
                            "used").format(tool="pip"))
            return parse_report(report, pypi)

    def install_files(self, *, env_python: Path, files: list[Path],
                      hashes: dict[str, str] | None = None, reinstall: bool = False, keep_extra: bool = False,
                      listed: dict[str, str] | None = None) -> None:
        pip = installing_pip(env_python)
        with tempfile.TemporaryDirectory(prefix="torchenv-sync-") as tmp:
            req = Path(tmp) / "requirements.txt"
            req.write_text(requirements_lines(files, hashes))
            cmd = [*pip, "install", "--quiet", "--no-deps", "--no-index", "--no-compile", "-r", str(req),
                   *build_requirement_links(files, Path(tmp) / "built-with")]
            if reinstall:
                cmd.append("--force-reinstall")
            what = _("installing {count} files into {path}").format(count=len(files),
                                                                   path=env_python.parent.parent) + " (pip)"
            try:
                run_tool(cmd, what=what, env=pip_tool_environ())
            except BuildFailed:
                raise
            except BackendError as exc:
                raise _as_build_failure(exc, files, what) from None
        if not keep_extra:
            self._remove_extraneous(env_python, files)

    def _remove_extraneous(self, env_python: Path, files: list[Path]) -> None:
        from ..envlayout import distributions, fingerprint
        from ..sources.index import project_of

        env = env_python.parent.parent
        wanted = {project_of(f.name) for f in files} | KEEP
        version = _env_python_version(env)
        extra = sorted(set(distributions(fingerprint(env, version))) - wanted)
        if extra:
            run_tool([*installing_pip(env_python), "uninstall", "--yes", "--quiet", *extra],
                     what=_("removing packages the lock does not name ({names})").format(names=", ".join(extra)),
                     env=pip_tool_environ())


def _as_build_failure(exc: BackendError, files: list[Path], what: str) -> BackendError:
    """pip's failed build of a build requirement names no package (``pip subprocess to install build
    dependencies did not run successfully``): it is one of the source distributions among ``files``."""
    from ..sources.index import project_of
    from .base import SDIST_SUFFIXES
    from .failures import build_failed

    sdists = [project_of(f.name) or f.name for f in files if f.name.endswith(SDIST_SUFFIXES)]
    if not sdists or "subprocess-exited-with-error" not in exc.message:
        return exc
    return build_failed(" / ".join(sorted(sdists)), exc.message, what=what)


def installing_pip(env_python: Path) -> list[str]:
    """The pip command that fills the env: torchenv's own pip run by the env's interpreter, else the env's pip.

    Why: the pip that virtualenv puts in a new env has no bytecode yet, so its first run compiles
    (and, unless PYTHONDONTWRITEBYTECODE=1, writes) the ~200 modules it imports: ~0.3-0.6 s on
    every fresh env, and on every run where bytecode is not written. The pip torchenv resolves
    with is installed compiled; ``__pip-runner__.py`` (what ``pip --python`` and pip's own build
    environments run) executes exactly that copy of pip inside another interpreter, so the
    install lands in the env as if its own pip had run. The env's pip is used where torchenv has
    no pip, or one without the runner (pip < 22.3), or one that does not support the env's Python.
    """
    runner = _own_pip_runner(_env_python_version(env_python.parent.parent))
    return [str(env_python), str(runner)] if runner is not None else [str(env_python), "-m", "pip"]


@functools.cache
def _own_pip_runner(python_version: str) -> Path | None:
    """``__pip-runner__.py`` of torchenv's own pip when that pip supports Python ``python_version``."""
    import importlib.metadata

    spec = importlib.util.find_spec("pip")
    if spec is None or not spec.submodule_search_locations:
        return None
    package = Path(next(iter(spec.submodule_search_locations)))
    runner = package / "__pip-runner__.py"
    dist = next(iter(importlib.metadata.distributions(name="pip", path=[str(package.parent)])), None)
    if dist is None or not runner.is_file():
        return None
    requires = dist.metadata["Requires-Python"] or ""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        supported = SpecifierSet(requires).contains(python_version, prereleases=True)
    except InvalidSpecifier:
        return None
    return runner if supported else None


def _env_python_version(env: Path) -> str:
    from ..envlayout import env_python_version

    return env_python_version(env) or f"{sys.version_info[0]}.{sys.version_info[1]}"


def parse_report(path: Path, pypi: PypiSide) -> list[LockedWheel]:
    """Turn ``pip install --report`` (format 1) into LockedWheels."""
    from ..lockfile.model import LockedWheel
    from ..redaction import strip_secrets
    from .uv import filename_of

    data = json.loads(path.read_text())
    out = []
    for item in data.get("install", []):
        info = item["download_info"]
        url = strip_secrets(info["url"])
        archive = info.get("archive_info")
        if archive is None:
            raise BackendError(_("{name}: pip resolved it to a directory or VCS checkout ({url}), which cannot be "
                                 "locked by hash").format(name=item["metadata"]["name"], url=url),
                               hint=_("require a released version from an index instead"))
        sha = (archive.get("hashes") or {}).get("sha256")
        if not sha and str(archive.get("hash", "")).startswith("sha256="):
            sha = archive["hash"].split("=", 1)[1]
        if not sha:
            if url.startswith("file:"):
                from ..sources.fetch import sha256_file
                from ..sources.index import local_path as _local_path

                archive_path = _local_path(url)
                assert archive_path is not None, "a file: URL always names a local path"
                sha = sha256_file(archive_path)
            else:
                raise BackendError(_("{name}: no sha256 for {url}").format(name=item["metadata"]["name"], url=url),
                                   hint=_("the index does not publish hashes; use another PyPI mirror"))
        from ..sources.index import normalize

        out.append(LockedWheel(name=normalize(item["metadata"]["name"]), version=item["metadata"]["version"],
                               filename=filename_of(url), url=url if "://" in url else file_url(Path(url)),
                               sha256=sha, index=index_for(url, pypi), source="pypi"))
    return out
