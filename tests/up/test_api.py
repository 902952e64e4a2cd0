"""The Python API: ``torchenv.up()``/``lock()`` run the same stages as the CLI, with typed requests."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

import torchenv
from torchenv.errors import LockError

SRC = Path(torchenv.__file__).parent


def test_up_from_python_installs_then_is_a_no_op(world):
    result = torchenv.up(world.project, torchenv.UpOptions(no_verify=True))
    assert result.status == "installed" and result.exit_code == 0
    assert result.env_path == (world.project / ".venv").absolute() and result.target == "linux-x86_64-cpu"
    assert world.read_lock().target("linux-x86_64-cpu").wheel("torch").version == "2.4.1+cpu"
    assert "torch-2.4.1+cpu.dist-info" in world.dists()
    assert torchenv.up(world.project, torchenv.UpOptions(no_verify=True)).status == "up-to-date"


def test_lock_from_python_returns_what_it_wrote(world):
    result = torchenv.lock(world.project)
    assert result.written == ("linux-x86_64-cpu",) and result.targets == ("linux-x86_64-cpu",)
    assert result.lock_path == world.project.resolve() / "torchenv.lock"
    assert not (world.project / ".venv").exists()        # lock installs nothing


def test_frozen_up_from_python_refuses_without_a_lock(world):
    with pytest.raises(LockError, match="--frozen forbids resolving"):
        torchenv.up(world.project, torchenv.UpOptions(frozen=True, no_verify=True))
    assert not (world.project / ".venv").exists()


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    package = ".".join(("torchenv",) + path.relative_to(SRC).parent.parts)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            names.add(".".join(base + ([node.module] if node.module else [])))
    return names


def test_no_core_module_imports_the_command_line_layer():
    """Requests are built once at the edge (``commands/``, ``cli.py``); the core never sees argparse."""
    edge = {SRC / "cli.py", SRC / "export" / "completion.py"}   # completion renders the parser itself
    offenders = []
    for path in sorted(SRC.rglob("*.py")):
        if path in edge or (SRC / "commands") in path.parents:
            continue
        bad = {n for n in _imports(path) if n == "argparse" or n.startswith("torchenv.commands")}
        offenders += [f"{path.relative_to(SRC)}: {n}" for n in sorted(bad)]
    assert offenders == []


def test_verify_and_doctor_from_python_return_reports(world):
    torchenv.up(world.project, torchenv.UpOptions(no_verify=True))
    report = torchenv.verify(world.project, timeout=120)
    assert report.ok is False                       # the fake torch wheel has no importable torch
    assert (world.project / ".torchenv" / "verify.json").is_file()
    diag = torchenv.doctor(world.project, env=world.env, machine=torchenv.MachineSpec(assume_no_gpu=True),
                           import_check=False)
    assert diag.env is not None and Path(diag.env.prefix) == world.env.absolute()
    assert diag.machine.assumed is True


def test_packages_form_floors_without_cycles():
    """Each stage depends only on the floors below it (``tools/importgraph.py`` prints the graph)."""
    import subprocess
    import sys

    tool = Path(__file__).parents[2] / "tools" / "importgraph.py"
    out = subprocess.run([sys.executable, str(tool)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout
    assert "0 package cycles" in out.stdout


def test_the_import_graph_counts_top_level_modules_as_units(tmp_path):
    """``errors`` importing ``sources`` while ``sources`` imports ``errors`` is a knot, though ``errors`` is no package."""
    import subprocess
    import sys

    pkg = tmp_path / "torchenv"
    (pkg / "sources").mkdir(parents=True)
    (pkg / "__init__.py").write_text('__version__ = "0"\n\ndef up():\n    from .sources import fetch\n')
    (pkg / "errors.py").write_text("def message():\n    from .sources.credentials import redact_text\n")
    (pkg / "sources" / "__init__.py").write_text("")
    (pkg / "sources" / "credentials.py").write_text("from ..errors import TorchenvError\n")
    (pkg / "sources" / "fetch.py").write_text("from .. import __version__\n")
    tool = Path(__file__).parents[2] / "tools" / "importgraph.py"
    out = subprocess.run([sys.executable, str(tool), "--src", str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 1, out.stdout
    cycles = [line for line in out.stdout.splitlines() if line.startswith("cycle:")]
    assert cycles == ["cycle: errors sources torchenv | errors->sources, sources->errors, sources->torchenv, "
                      "torchenv->sources"], out.stdout


def test_no_module_imports_a_private_name_of_another():
    offenders = []
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module != "__future__":
                offenders += [f"{path.relative_to(SRC)}:{node.lineno} {a.name}" for a in node.names
                              if a.name.startswith("_") and not a.name.startswith("__")
                              and a.name not in ("_options", "_")]   # `_`: gettext, by convention
    assert offenders == []


VERBS = ("probe", "plan", "up", "lock", "bundle", "verify", "doctor")
FIRST_IMPORTS = ("torchenv.lockfile.model", "torchenv.probing.assume", "torchenv.verification.report",
                 "torchenv.diagnosis.model", "torchenv.flows.up", "torchenv.cli", "every module")


@pytest.mark.parametrize("first", FIRST_IMPORTS)
def test_the_verbs_are_plain_functions_whatever_was_imported_first(first):
    """``torchenv.lock`` is the function, with its own signature and docstring, in any import order.

    Why a fresh interpreter per order: an import order is a property of a process; a subpackage named
    like a verb would replace the verb in ``torchenv``'s namespace when imported, whichever came first.
    """
    import json
    import subprocess
    import sys

    script = f"""
import importlib, inspect, json, pkgutil
first = {first!r}
if first == "every module":
    import torchenv
    for info in pkgutil.walk_packages(torchenv.__path__, "torchenv."):
        if info.name.endswith(("__main__", "checks_script")):   # scripts: importing one runs it
            continue
        try:
            importlib.import_module(info.name)
        except ImportError:      # an optional dependency this machine lacks
            pass
else:
    importlib.import_module(first)
import ast, torchenv
defs = {{n.name: ast.get_docstring(n) for n in ast.parse(open(torchenv.__file__).read()).body
        if isinstance(n, ast.FunctionDef)}}
print(json.dumps({{v: [type(getattr(torchenv, v)).__name__, inspect.isfunction(getattr(torchenv, v)),
                      inspect.getdoc(getattr(torchenv, v)) == defs[v]]     # the docstring written for the verb
                  for v in {VERBS!r}}}))
"""
    ran = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr
    seen = json.loads(ran.stdout.splitlines()[-1])
    assert seen == {v: ["function", True, True] for v in VERBS}, seen


def test_probe_and_plan_take_the_request_dataclasses_and_nothing_for_tests():
    import inspect

    probe = inspect.signature(torchenv.probe)
    assert list(probe.parameters) == ["machine"], probe        # no environ, root, run or nvml (test-only)
    assert "MachineSpec" in str(probe.parameters["machine"].annotation)
    plan = inspect.signature(torchenv.plan)
    assert list(plan.parameters) == ["intent", "machine", "project_dir", "sources"], plan
    assert all(p.kind is not inspect.Parameter.VAR_KEYWORD for p in (*probe.parameters.values(),
                                                                     *plan.parameters.values()))
    assert "SourceOverrides" in str(plan.parameters["sources"].annotation)


def test_the_up_status_is_one_of_the_documented_words():
    import typing

    from torchenv.flows.up import UpResult, UpStatus

    words = typing.get_args(UpStatus)
    assert words == ("up-to-date", "installed", "synced", "repaired", "rebuilt", "verified")
    assert UpResult.__annotations__["status"] == "UpStatus"
    api = (Path(__file__).parents[2] / "docs" / "api.md").read_text(encoding="utf-8")
    assert ", ".join(f"`{w}`" for w in words) in api, "docs/api.md lists the same words"
