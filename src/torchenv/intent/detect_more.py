"""The dependency files real projects ship besides ``requirements.txt`` and ``pyproject.toml``.

Why each one: READMEs say ``pip install -r requirements/runtime.txt``; research code ships a
conda ``environment.yml`` (``pytorch=1.11.0``, ``cudatoolkit=11.3``, a ``pip:`` list);
older packages keep ``install_requires`` in ``setup.py`` or ``setup.cfg``; and much code simply
imports torchvision without any file saying so. ``setup.py`` is read as a syntax tree and
never executed: running a stranger's ``setup.py`` to learn its torch pin would run their code.
Every function here only adds findings; a malformed file is noted and skipped.
"""
from __future__ import annotations

import ast
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterator

    from .detect import Detected

_README = ("README.md", "README.rst", "README.txt", "README", "INSTALL.md", "docs/install.md",
           "docs/get_started.md", "docs/installation.md")
_PIP_INSTALL = re.compile(r"pip3?\s+install\b[^\n`]*")
_DASH_R = re.compile(r"(?:^|\s)(?:-r|--requirement)[\s=]*([^\s`'\")\]]+)")
# stems of requirements/*.txt that are not what the code needs to run
_NOT_RUNTIME = re.compile(r"doc|test|dev|lint|ci\b|style|readthedocs|bench|example|optional|mminstall|"
                          r"build|format|typing|mypy", re.IGNORECASE)
_VARIANT = re.compile(r"cpu|cuda|gpu|rocm|tpu|xpu|hpu|npu|neuron|mps|cu\d+", re.IGNORECASE)
_IMPORT = re.compile(r"^[ \t]*(?:import|from)[ \t]+(torchvision|torchaudio)\b", re.MULTILINE)
_SKIP_DIRS = {"node_modules", "site-packages", "__pycache__", "build", "dist", "venv", "env", "third_party"}
MAX_PY_FILES = 2000          # the import scan stops here: init must stay quick on a monorepo
MAX_PY_BYTES = 256 * 1024    # and reads at most this much of each file
_CONDA_TO_PYPI = {"pytorch": "torch", "torchvision": "torchvision", "torchaudio": "torchaudio"}


# --- which requirement files ----------------------------------------------------------------

def requirement_files(project: Path) -> list[tuple[str, str]]:
    """(relative path, why) of the files ``[env] requirements`` should list, best source first."""
    named = _readme_named(project)
    if named:
        return named
    if (project / "requirements.txt").is_file():
        return [("requirements.txt", "file exists")]
    folder = project / "requirements"
    if not folder.is_dir():
        return []
    return [(f"requirements/{name}", why) for name, why in _runtime_files(folder)]


def _runtime_files(folder: Path) -> list[tuple[str, str]]:
    """The files of a ``requirements/`` folder the code needs to run.

    Docs/tests/dev files are left out; a file another one includes (``-r common.txt``) is
    reached through it; of per-accelerator variants (``cuda.txt``, ``cpu.txt``, ``rocm.txt``)
    the CUDA one is taken, since ``cuda`` picks the build per machine anyway.
    """
    from .reqfile import parse_requirements_text

    names = sorted(p.name for p in folder.glob("*.txt") if not _NOT_RUNTIME.search(p.stem))
    included: set[str] = set()
    for name in names:
        try:
            lines = parse_requirements_text((folder / name).read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue
        included |= {Path(e.text).name for e in lines if e.kind in ("include", "constraint")}
    names = [n for n in names if n not in included]
    variants = [n for n in names if _VARIANT.fullmatch(Path(n).stem)]
    cuda = [n for n in variants if Path(n).stem.lower() in ("cuda", "gpu")]
    if len(variants) > 1 and cuda:
        names = [n for n in names if n not in variants or n in cuda]
    why = "runtime file of requirements/ (docs, tests, dev and other accelerators' files left out)"
    return [(n, why) for n in names]


def _readme_commands(project: Path) -> Iterator[tuple[str, str]]:
    """(doc, command) for each ``pip install ...`` command of the README/INSTALL/docs pages, in order."""
    for doc in _README:
        try:
            text = (project / doc).read_text(encoding="utf-8", errors="replace")[:200_000]
        except OSError:
            continue
        for command in _PIP_INSTALL.finditer(text):
            yield doc, command.group(0).strip()


def _readme_named(project: Path) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for doc, command in _readme_commands(project):
        for m in _DASH_R.finditer(command):
            rel = _inside(project, m.group(1))
            if rel and rel not in (r for r, _ in out) and not _NOT_RUNTIME.search(Path(rel).stem):
                out.append((rel, f"{doc} says `{command}`"))
    return out


def _inside(project: Path, name: str) -> str | None:
    path = (project / name.strip("./") if name.startswith("./") else project / name).resolve()
    try:
        rel = path.relative_to(project.resolve()).as_posix()
    except ValueError:
        return None
    return rel if path.is_file() else None


def scan_readme_extras(project: Path, found: Detected) -> None:
    """The extras of the first README command installing the project with some (``pip install 'litgpt[extra]'``,
    ``pip install -e ".[all]"``): the project is installed with ``--no-deps``, so what they add must be locked.
    Only ``[project.optional-dependencies]`` groups that exist count, and dev/test/docs groups are left out."""
    groups, name = _optional_groups(project)
    if not groups:
        return
    names = r"\." + (f"|{re.sub(r'[-_.]+', '[-_.]', name)}" if name else "")
    target = re.compile(r"(?:^|[\s'\"])(?:" + names + r")\[([A-Za-z0-9_,\s-]+)\]", re.IGNORECASE)
    for doc, command in _readme_commands(project):
        m = target.search(command)
        if not m:
            continue
        asked = [e.strip().lower() for e in m.group(1).split(",") if e.strip()]
        kept = [e for e in asked if e in groups and not _NOT_RUNTIME.search(e)]
        if kept:
            found.extras.extend(kept)
            found.note(doc, f"`{command}`", f"extras = {kept}: the project's own "
                       "optional dependencies, locked and installed with it")
            return


def _optional_groups(project: Path) -> tuple[set[str], str]:
    """(``[project.optional-dependencies]`` group names, the project's name) of ``pyproject.toml``."""
    from ..fileio import tomllib_module

    try:
        data = tomllib_module().loads((project / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set(), ""
    table = data.get("project") or {}
    groups = table.get("optional-dependencies") or {}
    return {str(g).lower() for g in groups}, str(table.get("name") or "")


# --- environment.yml, setup.py, setup.cfg -----------------------------------------------------

def scan_other_files(project: Path, found: Detected, seen: set[Path]) -> None:
    for name in ("environment.yml", "environment.yaml"):
        if (project / name).is_file():
            if not found.requirements:     # its pip: list is then what `up` installs besides torch
                found.requirements.append(name)
                found.note(name, "conda environment file", f'[env] requirements += ["{name}"] (its pip: list)')
            scan_conda_env(project / name, project, found, seen)
    if (project / "setup.py").is_file():
        scan_setup_py(project / "setup.py", project, found, seen)
    if (project / "setup.cfg").is_file():
        scan_setup_cfg(project / "setup.cfg", found)


def scan_conda_env(path: Path, project: Path, found: Detected, seen: set[Path]) -> None:
    """A conda env file: ``python=3.8.5``, ``pytorch=1.11.0``, ``cudatoolkit=11.3``, ``pip: [...]``."""
    import yaml  # type: ignore[import-untyped,unused-ignore]  # PyYAML ships no hints (types-PyYAML, if installed, does)

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, yaml.YAMLError):
        found.note(path.name, "could not be parsed as YAML", "ignored")
        return
    deps = data.get("dependencies") if isinstance(data, dict) else None
    skipped: list[str] = []
    for dep in deps if isinstance(deps, list) else []:
        if isinstance(dep, dict):
            for pip_line in _str_list(dep.get("pip")):
                _take_conda_pip_line(pip_line, path, project, found, seen)
        elif isinstance(dep, str) and not _take_conda_spec(dep, path.name, found):
            skipped.append(dep)
    if skipped:
        found.note(path.name, ", ".join(skipped), "conda packages not installed: add the ones the code "
                   "needs to a requirements file (torchenv installs the pip: list and wheels)")


def _take_conda_pip_line(line: str, path: Path, project: Path, found: Detected, seen: set[Path]) -> None:
    from .detect import scan_requirements, take_requirement_line
    from .reqfile import is_the_project_itself, parse_requirements_text

    where = f"{path.name} (pip list)"
    for entry in parse_requirements_text(line):
        if entry.kind == "include":
            scan_requirements(path.parent / entry.text, project, found, seen)
        elif entry.kind == "editable":
            itself = is_the_project_itself(entry.text, path.parent, project)
            found.note(where, f"-e {entry.text}", "the project itself, not a dependency" if itself
                       else "editable install: not locked by torchenv")
        elif entry.kind == "requirement":
            take_requirement_line(entry, where, found)


def _take_conda_spec(spec: str, where: str, found: Detected) -> bool:
    """One conda match spec; True when it meant something to torchenv."""
    from . import versions
    from .detect import take_requirement

    m = re.match(r"\s*(?:[\w.-]+::)?([A-Za-z0-9_.-]+)\s*(.*)", spec)
    if not m:
        return False
    name, rest = m.group(1).lower(), m.group(2).strip()
    version = re.split(r"[=\s]", rest.lstrip("=<>!~ "), maxsplit=1)[0] if rest else ""
    if name == "python" and rest and rest[0] in "<>!~":
        found.note(where, spec, "ignored: a range, not one Python version")
        return True
    if name == "python" and version:
        try:
            found.python = found.python or versions.normalise_python(".".join(version.split(".")[:2]))
            found.note(where, spec, f'python = "{found.python}"')
        except versions.InvalidValue as exc:
            found.note(where, spec, f"ignored: {exc.reason}")
        return True
    if name in ("cudatoolkit", "pytorch-cuda", "cuda-toolkit", "cuda-version") and version:
        _take_cuda(".".join(version.split(".")[:2]), where, spec, found)
        return True
    if name == "cpuonly":
        _take_cuda("cpu", where, spec, found)
        return True
    if name in _CONDA_TO_PYPI:
        take_requirement(_CONDA_TO_PYPI[name] + _conda_version_spec(rest), where, found, shown=spec)
        return True
    return name in ("pip", "python_abi", "pytorch-mutex")


def _conda_version_spec(rest: str) -> str:
    """conda ``=1.11.0=py3.8_cuda11.3_0`` -> ``==1.11.0``, ``=1.11`` -> ``==1.11.*``, ``>=1.8`` kept."""
    rest = rest.strip()
    if not rest:
        return ""
    if rest.startswith("=="):
        return "==" + rest[2:].split("=", 1)[0].strip()
    if rest[0] in "<>!~":
        return rest.split(" ", 1)[0]
    version = rest.lstrip("=").split("=", 1)[0].split(" ", 1)[0].rstrip("*").rstrip(".")
    return f"=={version}" if version.count(".") >= 2 else f"=={version}.*"


def _take_cuda(text: str, where: str, seen: str, found: Detected) -> None:
    from . import versions
    from .detect import take_cuda

    try:
        tier = versions.normalise_tier(text)
    except versions.InvalidValue:
        found.note(where, seen, "ignored: not a CUDA version torchenv knows")
        return
    take_cuda(tier, where, seen, found)


def scan_setup_py(path: Path, project: Path, found: Detected, seen: set[Path]) -> None:
    """``setup(install_requires=[...])`` as a literal, a module-level list, or files it reads."""
    from .detect import scan_requirements, take_requirement

    try:
        tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, SyntaxError, ValueError):
        found.note("setup.py", "could not be parsed", "ignored")
        return
    assigned = {t.id: node.value for node in ast.walk(tree) if isinstance(node, ast.Assign)
                for t in node.targets if isinstance(t, ast.Name)}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and _called(node) == "setup"):
            continue
        for kw in node.keywords:
            if kw.arg != "install_requires":
                continue
            value = assigned.get(kw.value.id, kw.value) if isinstance(kw.value, ast.Name) else kw.value
            for text in _literal_strings(value):
                if text.endswith(".txt") and (path.parent / text).is_file():
                    found.note("setup.py", f"install_requires reads {text}", "read")
                    scan_requirements(path.parent / text, project, found, seen)
                else:
                    take_requirement(text, "setup.py install_requires", found)


def _called(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _literal_strings(node: Any) -> list[str]:
    """String constants inside an expression: the list's items, or the file names a helper reads."""
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def scan_setup_cfg(path: Path, found: Detected) -> None:
    import configparser

    from .detect import take_requirement

    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, configparser.Error):
        found.note("setup.cfg", "could not be parsed", "ignored")
        return
    for line in parser.get("options", "install_requires", fallback="").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            take_requirement(line, "setup.cfg [options] install_requires", found)


def _str_list(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


# --- imports ---------------------------------------------------------------------------------

def scan_imports(project: Path, found: Detected) -> None:
    """Add torchvision/torchaudio to ``with`` when the code imports them and no file names them.

    An import the code is ready to miss (inside ``try: ... except ImportError``, or under
    ``if TYPE_CHECKING:``) is not a requirement: it is said as optional and not added.
    """
    wanted = {"torchvision", "torchaudio"} - set(found.with_)
    optional: dict[str, tuple[str, str]] = {}          # name -> (where, seen) of its first optional import
    for path in _python_files(project):
        if not wanted:
            return
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = fh.read(MAX_PY_BYTES)
        except OSError:
            continue
        hits = [m for m in _IMPORT.finditer(text) if m.group(1) in wanted]
        if not hits:
            continue
        guarded = _guarded_import_lines(text)
        rel = path.relative_to(project).as_posix()
        for m in hits:
            name, line = m.group(1), text.count("\n", 0, m.start()) + 1
            if name not in wanted:
                continue
            if line in guarded:
                optional.setdefault(name, (f"{rel}:{line}", m.group(0).strip()))
                continue
            wanted.discard(name)
            found.with_.append(name)
            found.note(f"{rel}:{line}", m.group(0).strip(),
                       f'with += "{name}" (the code imports it; no dependency file names it)')
    for name in sorted(wanted & set(optional)):
        where, seen = optional[name]
        found.note(where, seen, f"optional: {name} not added to with (the code runs without it: "
                                "the import is guarded by except ImportError or if TYPE_CHECKING)")


_MISSING_OK = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}


def _guarded_import_lines(text: str) -> set[int]:
    """Lines of the imports ``text`` is ready to miss: in the body of a ``try`` whose handlers catch
    ImportError (or a parent, or everything), or under ``if TYPE_CHECKING``. Code that does not parse
    (Python 2, a file cut at ``MAX_PY_BYTES``) has none: its imports count as required."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return set()
    guards = [node for node in ast.walk(tree) if isinstance(node, (ast.Try, ast.If)) and _ready_to_miss(node)]
    return {line for node in guards for line in _import_lines(node.body)}


def _ready_to_miss(node: ast.Try | ast.If) -> bool:
    """A ``try`` that catches a missing module, or an ``if TYPE_CHECKING`` (never true at run time)."""
    if isinstance(node, ast.Try):
        return any(_catches_missing(h.type) for h in node.handlers)
    return _names_type_checking(node.test)


def _catches_missing(handler_type: ast.expr | None) -> bool:
    if handler_type is None:
        return True
    names = handler_type.elts if isinstance(handler_type, ast.Tuple) else [handler_type]
    return any((n.id if isinstance(n, ast.Name) else getattr(n, "attr", "")) in _MISSING_OK for n in names)


def _names_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _import_lines(body: list[ast.stmt]) -> set[int]:
    return {n.lineno for stmt in body for n in ast.walk(stmt) if isinstance(n, (ast.Import, ast.ImportFrom))}


def _python_files(project: Path) -> Iterator[Path]:
    count = 0
    for root, dirs, files in os.walk(project):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS)
        for name in sorted(files):
            if name.endswith(".py"):
                count += 1
                if count > MAX_PY_FILES:
                    return
                yield Path(root) / name
