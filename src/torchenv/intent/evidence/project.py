"""What ``torchenv init`` learns from a project before it has a torchenv.toml: every file read into records,
each field decided by the one ranking (``rank.decide``).

Where: the requirement files a README installs (else ``requirements.txt``, else the runtime files
of ``requirements/``), ``pyproject.toml``/``pixi.toml``, conda env files, ``setup.py``/``setup.cfg``,
``.python-version``, README/INSTALL/docs pages, installer scripts, lock files, Dockerfiles, and
the code's torchvision/torchaudio imports. Files meant for another machine are named as skipped.
Nothing is run; a malformed file is noted and skipped.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import files, rank
from .model import ANY, Decision, Record, kind_words, said

if TYPE_CHECKING:
    from collections.abc import Iterator

    from ...reasons import Reason

_NOT_RUNTIME = re.compile(r"doc|test|dev|lint|ci\b|style|readthedocs|bench|example|optional|mminstall|"
                          r"build|format|typing|mypy", re.IGNORECASE)
_DASH_R = re.compile(r"(?:^|\s)(?:-r|--requirement)[\s=]*([^\s`'\")\]]+)")
_CONDA_ENV = ("environment.yml", "environment.yaml", "conda.yaml", "conda.yml", "env.yml", "env.yaml")
_SKIP_DIRS = {"node_modules", "site-packages", "__pycache__", "build", "dist", "venv", "env", "third_party"}
MAX_PY_FILES = 2000          # the import scan stops here: init must stay quick on a monorepo
MAX_PY_BYTES = 256 * 1024    # and reads at most this much of each file
MAX_FILE_BYTES = 2_000_000
MAX_INCLUDES = 20


@dataclass(frozen=True)
class Finding:
    where: str      # "requirements.txt:3"
    seen: str       # the text that was read
    meaning: str    # what it sets in torchenv.toml, or why it was set aside

    def to_json(self) -> dict[str, Any]:
        """The three texts, and beside them the data of those that are sentences (``init --json``)."""
        from ...reasons import Reason, to_json

        out: dict[str, Any] = {"where": str(self.where), "seen": str(self.seen), "meaning": str(self.meaning)}
        data = {k: to_json(v) for k, v in self.__dict__.items() if isinstance(v, Reason)}
        return {**out, "data": data} if data else out


@dataclass
class Detected:
    version: str | None = None
    cuda: str | None = None
    python: str | None = None
    with_: list[str] = field(default_factory=list)
    requirements: list[str] = field(default_factory=list)
    extras: list[str] = field(default_factory=list)     # optional-dependency groups a README installs
    findings: list[Finding] = field(default_factory=list)
    records: list[Record] = field(default_factory=list)
    decisions: dict[str, Decision] = field(default_factory=dict)
    skipped: list[tuple[str, str]] = field(default_factory=list)   # (file, why it was not used)

    def note(self, where: str, seen: str, meaning: str) -> None:
        self.findings.append(Finding(where, seen, meaning))


def _read(path: Path) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read(MAX_FILE_BYTES)
    except OSError:
        return None


def detect_project(project: Path) -> Detected:
    """Everything ``init`` can learn from ``project`` (never raises for a malformed project file)."""
    found = Detected()
    seen: set[Path] = set()
    _scan_scripts(project, found)                 # first: a script may name the requirement file it installs
    for rel, why in requirement_files(project, found):
        found.requirements.append(rel)
        found.note(rel, why, f'[env] requirements += ["{rel}"]')
        found.records.append(Record(rel, None, "requirements", rel, "pin", why))
        scan_requirements(project / rel, project, found, seen)
    _scan_pyproject(project, found)
    _scan_conda_envs(project, found, seen)
    _scan_setup(project, found, seen)
    _scan_python_version(project, found)
    _scan_docs(project, found)
    _scan_locks(project, found)
    _scan_dockerfiles(project, found)
    scan_readme_extras(project, found)
    _decide(found)
    scan_imports(project, found)
    return found


# --- deciding ---------------------------------------------------------------------------------------------

def _decide(found: Detected) -> None:
    wanted = files.targets()
    for name in ("version", "cuda"):
        found.decisions[name] = rank.decide(found.records, name, wanted)
    found.decisions["python"] = rank.decide_python(found.records, wanted)
    found.version = found.decisions["version"].value
    found.cuda = found.decisions["cuda"].value
    found.python = found.decisions["python"].value
    for d in found.decisions.values():
        _explain(d, found)
    companions = [r for r in found.records if r.field == "with" and (r.target in wanted or r.target == ANY)
                  and r.strength > 0]
    for r in companions:
        if r.value not in found.with_:
            found.with_.append(r.value)
            found.note(r.where, r.seen, f'with += "{r.value}"')
    for r in found.records:
        if r.field == "with" and r not in companions and r.value not in found.with_:
            found.note(r.where, r.seen, said("init.set_aside", why=r.why or said("init.meant_for", target=r.target)))


def _explain(d: Decision, found: Detected) -> None:
    if d.candidates:
        found.note(said("init.the_project"), ", ".join(d.candidates), said("init.auto_tiers", tiers=", ".join(d.candidates)))
    if d.by is not None:
        found.note(d.by.where, d.by.seen, said("init.setting_by", setting=f'{d.field} = "{d.value}"',
                                               kind=kind_words(d.by.kind)))
    for r in d.agree:
        found.note(r.where, r.seen, said("init.agrees", setting=f'{d.field} = "{r.value}"'))
    for r, why in d.set_aside:
        found.note(r.where, r.seen, said("init.ignored_why", reason=why) if r.kind == "ignored"
                   else said("init.set_aside", why=why))


# --- requirement files ------------------------------------------------------------------------------------

def requirement_files(project: Path, found: Detected) -> list[tuple[str, str]]:
    """(relative path, why) of the files ``[env] requirements`` should list, best source first: those a README
    installs, else those an installer script installs, else ``requirements.txt`` (with its per-OS siblings),
    else the runtime files of ``requirements/``. Files meant for another OS/accelerator are left out and
    named in ``found.skipped``; a file another chosen one includes is reached through it."""
    named = _readme_named(project) or _script_named(project, found)
    if not named:
        if (project / "requirements.txt").is_file():
            named = [("requirements.txt", said("init.file_exists"))] + _root_variants(project)
        elif (project / "requirements").is_dir():
            named = [(f"requirements/{name}", why) for name, why in _runtime_files(project / "requirements")]
    kept, skipped = files.keep_for_target([n for n, _ in named], files.targets())
    for name, why in skipped:
        found.skipped.append((name, why))
        found.note(name, said("init.requirement_file"), said("init.skipped", why=why))
    included = _included(project, kept)
    return [(n, why) for n, why in named if n in kept and n not in included]


def _root_variants(project: Path) -> list[tuple[str, str]]:
    """``requirements_linux.txt``, ``requirements-cuda.txt``...: per-OS/accelerator siblings of requirements.txt."""
    out: list[tuple[str, str]] = []
    for path in sorted(project.glob("requirements[-_]*.txt")):
        if files.target_of_name(path.name) != ANY and not _NOT_RUNTIME.search(path.stem):
            out.append((path.name, said("init.per_os_file")))
    return out


def _included(project: Path, names: list[str]) -> set[str]:
    """Which of ``names`` another of them includes with ``-r``."""
    from ..requirements_file import parse_requirements_text

    out: set[str] = set()
    for name in names:
        for entry in parse_requirements_text(_read(project / name) or ""):
            if entry.kind == "include":
                rel = _inside(project, (Path(name).parent / entry.text).as_posix())
                if rel and rel != name:
                    out.add(rel)
    return out


def _script_named(project: Path, found: Detected) -> list[tuple[str, str]]:
    """The requirement files an installer script names (``REQS_FILE = "requirements_versions.txt"``), found
    beside the project root or, by name, once below it."""
    out: list[tuple[str, str]] = []
    for r in found.records:
        if r.field != "requirements" or r.kind != "command":
            continue
        rel = _inside(project, r.value) or _by_name(project, Path(r.value).name)
        if rel and rel not in (n for n, _ in out) and not _NOT_RUNTIME.search(Path(rel).stem):
            out.append((rel, said("init.names_it", where=r.where)))
    return out


def _by_name(project: Path, name: str) -> str | None:
    hits = [p for p in project.glob(f"*/{name}")] + [p for p in project.glob(f"*/*/{name}")]
    return hits[0].relative_to(project).as_posix() if len(hits) == 1 else None


def _runtime_files(folder: Path) -> list[tuple[str, str]]:
    """The files of a ``requirements/`` folder the code needs to run: docs/tests/dev files are left out, and a
    file another one includes (``-r common.txt``) is reached through it."""
    from ..requirements_file import parse_requirements_text

    names = sorted(p.name for p in folder.glob("*.txt") if not _NOT_RUNTIME.search(p.stem))
    included: set[str] = set()
    for name in names:
        text = _read(folder / name) or ""
        included |= {Path(e.text).name for e in parse_requirements_text(text) if e.kind in ("include", "constraint")}
    why = said("init.runtime_file")
    return [(n, why) for n in names if n not in included]


def _readme_commands(project: Path) -> list[tuple[str, str, bool]]:
    """(doc, command, optional) for each ``pip install ...`` of the README/INSTALL/docs pages, in order;
    ``optional`` when the line or the one above marks it optional or an example."""
    from .readers.commands import INSTALL

    out = []
    for doc in files.doc_files(project):
        lines = (_read(project / doc) or "")[:200_000].splitlines()
        for no, line in enumerate(lines):
            for m in INSTALL.finditer(line):
                context = " ".join(lines[max(0, no - 1):no + 1])
                out.append((doc, m.group(0).strip(), bool(_OPTIONAL.search(context))))
    return out


_OPTIONAL = re.compile(r"#\s*optional|\boptional(?:ly)?\b|for example|\be\.g\.|\bif you (?:have|want|need)",
                       re.IGNORECASE)


def _readme_named(project: Path) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for doc, command, _optional in _readme_commands(project):
        if "pip" not in command.lower():
            continue
        for m in _DASH_R.finditer(command):
            rel = _inside(project, m.group(1))
            if rel and rel not in (r for r, _ in out) and not _NOT_RUNTIME.search(Path(rel).stem):
                out.append((rel, said("init.doc_says", doc=doc, command=command)))
    return out


def _inside(project: Path, name: str) -> str | None:
    path = (project / name.strip("./") if name.startswith("./") else project / name).resolve()
    try:
        rel = path.relative_to(project.resolve()).as_posix()
    except ValueError:
        return None
    return rel if path.is_file() else None


def scan_requirements(path: Path, project: Path, found: Detected, seen: set[Path]) -> None:
    from ..requirements_file import is_the_project_itself
    from .readers.requirements_txt import read_requirements

    if path.resolve() in seen or len(seen) > MAX_INCLUDES:
        return
    seen.add(path.resolve())
    text = _read(path)
    if text is None:
        return
    rel = _rel(path, project)
    reading = read_requirements(text, rel, files.target_of_name(rel))
    found.records += reading.records
    for line, kind, name in reading.includes:
        if kind == "constraint":
            found.note(f"{rel}:{line}", f"-c {name}", said("init.read_constraints"))
        scan_requirements(path.parent / name, project, found, seen)
    for line, target in reading.editables:
        itself = is_the_project_itself(target, path.parent, project)
        found.note(f"{rel}:{line}", f"-e {target}", said("init.itself" if itself else "init.editable"))


def _rel(path: Path, project: Path) -> str:
    try:
        return path.relative_to(project).as_posix()
    except ValueError:
        return str(path)


# --- the other files --------------------------------------------------------------------------------------

def _scan_pyproject(project: Path, found: Detected) -> None:
    from .readers.pyproject import read_pixi_toml, read_pyproject

    for name, reader in ((pyproject_file(project), read_pyproject), ("pixi.toml", read_pixi_toml)):
        text = _read(project / name)
        if text is None:
            continue
        records = reader(text, name)
        if records is None:
            found.note(name, said("init.unparsable"), said("init.ignored"))
        else:
            found.records += records


def _conda_env_files(project: Path) -> list[str]:
    """``environment.yml``, ``conda.yaml``, ``conda_environment.yaml``, ``environment-cuda.yml``...: conda env
    files at the root, the ones for another OS/accelerator left out."""
    names = [p.name for p in sorted(project.glob("*.y*ml")) if p.name in _CONDA_ENV or
             re.fullmatch(r"(?:[\w-]*[-_])?(?:conda|environment|env)(?:[-_][\w.-]*)?\.ya?ml", p.name)]
    kept, _skipped = files.keep_for_target(names, files.targets())
    return kept


def pyproject_file(project: Path) -> str:
    """``pyproject.toml`` at the root, else the one of a ``python/`` folder (a package beside other languages)."""
    for name in ("pyproject.toml", "python/pyproject.toml"):
        if (project / name).is_file():
            return name
    return "pyproject.toml"


def _scan_conda_envs(project: Path, found: Detected, seen: set[Path]) -> None:
    from .readers.conda_env import read_conda_env

    for name in _conda_env_files(project):
        text = _read(project / name)
        if text is None:
            continue
        reading = read_conda_env(text, name)
        if not reading.ok:
            found.note(name, said("init.unparsable_yaml"), said("init.ignored"))
            continue
        if not found.requirements and reading.pip_lines:   # its pip: list is then what `up` installs
            found.requirements.append(name)
            found.note(name, said("init.conda_file"), said("init.pip_list", setting=f'[env] requirements += ["{name}"]'))
        found.records += reading.records
        _conda_pip_lines(reading.pip_lines, project / name, project, found, seen)
        if reading.not_installed:
            found.note(name, ", ".join(reading.not_installed), said("init.conda_not_installed"))


def _conda_pip_lines(lines: tuple[str, ...], path: Path, project: Path, found: Detected, seen: set[Path]) -> None:
    from ..requirements_file import is_the_project_itself
    from .readers.requirements_txt import read_requirements

    where = f"{path.name} (pip list)"
    reading = read_requirements("\n".join(lines), where)
    found.records += [Record(r.file, None, r.field, r.value, r.kind, r.seen, r.target) for r in reading.records]
    for _line, kind, name in reading.includes:
        if kind == "include":
            scan_requirements(path.parent / name, project, found, seen)
    for _line, target in reading.editables:
        itself = is_the_project_itself(target, path.parent, project)
        found.note(where, f"-e {target}", said("init.itself" if itself else "init.editable"))


def _scan_setup(project: Path, found: Detected, seen: set[Path]) -> None:
    from ..project_deps import read_setup_py as declared
    from .readers.setup import read_setup_cfg, read_setup_py

    text = _read(project / "setup.py")
    if text is not None:
        parsed = declared(text)
        if parsed is None:
            found.note("setup.py", said("init.unparsable"), said("init.ignored"))
        else:
            for name in parsed.named_files:
                if (project / name).is_file():
                    found.note("setup.py", said("init.install_requires", text=name), said("init.read"))
                    scan_requirements(project / name, project, found, seen)
            found.records += read_setup_py(text)
    text = _read(project / "setup.cfg")
    if text is not None:
        records = read_setup_cfg(text)
        if records is None:
            found.note("setup.cfg", said("init.unparsable"), said("init.ignored"))
        else:
            found.records += records


def _scan_python_version(project: Path, found: Detected) -> None:
    from .readers.specs import python_records

    text = _read(project / ".python-version")
    first = text.split()[0] if text and text.split() else ""
    m = re.match(r"(?:python|cpython)?-?(3\.\d+)", first)
    if not m:
        return
    records = python_records(m.group(1), ".python-version", 1, "pin", first)
    if not records:
        found.note(".python-version", first, said("init.ignored_python"))
    found.records += records


def _scan_docs(project: Path, found: Detected) -> None:
    from .readers.prose import read_prose

    for doc in files.doc_files(project):
        found.records += read_prose(_read(project / doc) or "", doc)


def _scan_scripts(project: Path, found: Detected) -> None:
    from .readers.scripts import read_python_script, read_shell_script

    for rel, kind in files.installer_scripts(project):
        text = _read(project / rel) or ""
        records = read_python_script(text, rel) if kind == "python" else read_shell_script(text, rel)
        target = files.target_of_name(rel)
        found.records += [r if target == ANY or r.target != ANY else
                          Record(r.file, r.line, r.field, r.value, r.kind, r.seen, target) for r in records]


def _scan_locks(project: Path, found: Detected) -> None:
    from .readers.locks import READERS

    for name, reader in READERS:
        text = _read(project / name)
        if text is not None:
            found.records += reader(text, name)


def _scan_dockerfiles(project: Path, found: Detected) -> None:
    from .readers.docker import read_dockerfile

    for rel in files.dockerfiles(project):
        found.records += read_dockerfile(_read(project / rel) or "", rel)


# --- README extras (item: the project's optional dependencies) --------------------------------------------

_TIER_EXTRA = re.compile(r"(?:^|[-_])(?:cu\d{2,3}|cpu|rocm[\d.]*)(?:[-_]|$)|torch\d{2,3}", re.IGNORECASE)


def _extras_pattern(name: str) -> re.Pattern[str]:
    """``.[a,b]`` or ``<project name>[a,b]`` in a command (the name with ``-``, ``_`` and ``.`` alike)."""
    names = r"\." + (f"|{re.sub(r'[-_.]+', '[-_.]', name)}" if name else "")
    return re.compile(r"(?:^|[\s'\"])(?:" + names + r")\[([A-Za-z0-9_,\s-]+)\]", re.IGNORECASE)


def _set_aside_why(asked: list[str], optional: bool) -> Reason | None:
    """Why a README command's extras are not taken: the README marks it optional, or an extra names a build."""
    if optional:
        return said("init.readme_optional")
    builds = [e for e in asked if _TIER_EXTRA.search(e)]
    if builds:
        return said("init.extras_build", extras=", ".join(builds))
    return None


def scan_readme_extras(project: Path, found: Detected) -> None:
    """The extras of the first README command installing the project with some (``pip install -e ".[all]"``).

    Left out: dev/test/docs groups, a command the README marks optional or gives as an example, and
    extras whose names encode a CUDA tier or torch version (``cu121-torch240``): those are one
    (version, tier) choice of torch's build, which torchenv makes per machine."""
    from .readers.pyproject import optional_groups

    groups, name = optional_groups(_read(project / pyproject_file(project)) or "")
    if not groups:
        return
    target = _extras_pattern(name)
    for doc, command, optional in _readme_commands(project):
        m = target.search(command)
        if not m:
            continue
        asked = [e.strip().lower() for e in m.group(1).split(",") if e.strip()]
        why = _set_aside_why(asked, optional)
        if why:
            found.note(doc, f"`{command}`", said("init.set_aside", why=why))
            continue
        kept = [e for e in asked if e in groups and not _NOT_RUNTIME.search(e)]
        if kept:
            found.extras.extend(kept)
            found.note(doc, f"`{command}`", said("init.extras_taken", setting=f"extras = {kept}"))
            return


# --- imports ----------------------------------------------------------------------------------------------

def scan_imports(project: Path, found: Detected) -> None:
    """Add torchvision/torchaudio to ``with`` when the code imports them and no file names them; a guarded
    import (``except ImportError``, ``if TYPE_CHECKING``) is said as optional and not added."""
    from .readers.imports import read_imports

    wanted = {"torchvision", "torchaudio"} - set(found.with_)
    optional: dict[str, tuple[str, str]] = {}
    for path in _python_files(project):
        if not wanted:
            return
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                text = fh.read(MAX_PY_BYTES)
        except OSError:
            continue
        rel = path.relative_to(project).as_posix()
        for name, line, seen, guarded in read_imports(text):
            if name not in wanted:
                continue
            if guarded:
                optional.setdefault(name, (f"{rel}:{line}", seen))
                continue
            wanted.discard(name)
            found.with_.append(name)
            found.records.append(Record(rel, line, "with", name, "import", seen))
            found.note(f"{rel}:{line}", seen, said("init.imported", setting=f'with += "{name}"'))
    for name in sorted(wanted & set(optional)):
        where, seen = optional[name]
        found.note(where, seen, said("init.optional_import", name=name))


def _python_files(project: Path) -> Iterator[Path]:
    count = 0
    for root, dirs, names in os.walk(project):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS)
        for name in sorted(names):
            if name.endswith(".py"):
                count += 1
                if count > MAX_PY_FILES:
                    return
                yield Path(root) / name
