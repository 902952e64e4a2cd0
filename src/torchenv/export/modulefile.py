"""Modulefiles for HPC clusters: Tcl (Environment Modules, also read by Lmod) and Lua (Lmod).

Why: on a cluster, ``module load cuda/11.6`` is how people switch toolkits; ``module load
PROJECT/TARGET`` should activate the project's env the same way, set ``CUDA_HOME``/``PATH``/
``LD_LIBRARY_PATH`` to a system toolkit of torch's CUDA version when this machine has one (for
extension builds), and belong to the ``torchenv`` family so two project envs never stack.
Paths are this machine's, so the file is generated where it is used.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .base import cuda_version

if TYPE_CHECKING:
    from ..machine import CudaToolkit
    from .base import ExportRequest

FAMILY = "torchenv"


@dataclass(frozen=True)
class ModulePlan:
    name: str                      # PROJECT/TARGET, what `module load` takes
    env: str                       # absolute env prefix
    project: str
    env_var: str                   # VIRTUAL_ENV | CONDA_PREFIX
    summary: str
    toolkit: str | None            # CUDA_HOME when a matching toolkit was found
    note: str                      # why there is (or is not) a toolkit


def matching_toolkit(cuda: str | None, toolkits: list[CudaToolkit]) -> tuple[str | None, str]:
    if cuda is None:
        return None, "CPU/ROCm build: no CUDA toolkit set"
    for tk in toolkits:
        if tk.version == cuda and Path(tk.path).is_dir():
            return tk.path, f"CUDA {cuda} toolkit found at {tk.path} ({tk.source})"
    seen = ", ".join(f"{tk.version or '?'} at {tk.path}" for tk in toolkits) or "none"
    return None, f"no CUDA {cuda} toolkit on this machine (found: {seen}); CUDA_HOME left alone"


def _toolkits() -> list[CudaToolkit]:
    from ..probing import make_context
    from ..probing.cuda_toolkits import probe_cuda_toolkits

    return probe_cuda_toolkits(make_context())


def module_plan(request: ExportRequest) -> ModulePlan:
    from ..activation import project_env_path

    t = request.target
    project = request.project.resolve()
    env = project_env_path(project)
    toolkit, note = matching_toolkit(cuda_version(t), _toolkits())
    return ModulePlan(name=f"{request.env_name}/{t.name}", env=str(env), project=str(project),
                      env_var="CONDA_PREFIX" if t.backend == "conda" else "VIRTUAL_ENV",
                      summary=f"torchenv env of {request.env_name}: torch {t.torch} ({t.tier}), Python {t.python}",
                      toolkit=toolkit, note=note)


def _tcl_word(text: str) -> str:
    """A Tcl word that stands for ``text`` exactly: braces, unless it holds braces or backslashes."""
    if not any(c in text for c in "{}\\"):
        return "{" + text + "}"
    return '"' + "".join("\\" + c if c in '\\"$[]{}' else c for c in text) + '"'


def tcl(request: ExportRequest) -> str:
    p = module_plan(request)
    w = _tcl_word
    lines = ["#%Module1.0", request.header("modulefile", "##").rstrip("\n"),
             f"## Save as MODULES_DIR/{p.name}, then: module use MODULES_DIR; module load {p.name}",
             f"## {_comment(p.note)}",
             f"module-whatis {w(p.summary)}",
             f"proc ModulesHelp {{}} {{ puts stderr {w(p.summary + '; project ' + p.project)} }}",
             f"family {FAMILY}",
             f"if {{![file exists {w(os.path.join(p.env, 'bin', 'python'))}]}} {{",
             f"    puts stderr {w(f'{p.env}: no environment; run torchenv up in {p.project}')}",
             "    break", "}",
             f"setenv {p.env_var} {w(p.env)}", f"setenv TORCHENV_PROJECT {w(p.project)}", "unsetenv PYTHONHOME",
             f"prepend-path PATH {w(os.path.join(p.env, 'bin'))}"]
    if p.toolkit:
        lines += [f"setenv CUDA_HOME {w(p.toolkit)}", f"prepend-path PATH {w(os.path.join(p.toolkit, 'bin'))}",
                  f"prepend-path LD_LIBRARY_PATH {w(os.path.join(p.toolkit, 'lib64'))}"]
    return "\n".join(lines) + "\n"


def _lua(text: str) -> str:
    """A Lua string literal for ``text``: ``\\ddd`` for control characters (JSON's ``\\u00XX`` is not Lua)."""
    def char(c: str) -> str:
        if c in '\\"':
            return "\\" + c
        return f"\\{ord(c):03d}" if ord(c) < 32 or ord(c) == 127 else c

    return '"' + "".join(char(c) for c in text) + '"'


def _comment(text: str) -> str:
    """One comment line, whatever a toolkit path holds: a newline would start a command."""
    return "".join(c if c.isprintable() else "?" for c in text)


def lua(request: ExportRequest) -> str:
    p = module_plan(request)
    q = _lua
    lines = [request.header("modulefile-lua", "--").rstrip("\n"),
             f"-- Save as MODULES_DIR/{p.name}.lua, then: module use MODULES_DIR; module load {p.name}",
             f"-- {_comment(p.note)}",
             f"whatis({q(p.summary)})", f"help({q(p.summary + '; project ' + p.project)})",
             f"family({q(FAMILY)})",
             f"local env = {q(p.env)}",
             'if not isFile(pathJoin(env, "bin", "python")) then',
             f"    LmodError(env .. {q(': no environment; run torchenv up in ' + p.project)})", "end",
             f"setenv({q(p.env_var)}, env)", f"setenv(\"TORCHENV_PROJECT\", {q(p.project)})",
             'unsetenv("PYTHONHOME")', 'prepend_path("PATH", pathJoin(env, "bin"))']
    if p.toolkit:
        lines += [f"local cuda = {q(p.toolkit)}", 'setenv("CUDA_HOME", cuda)',
                  'prepend_path("PATH", pathJoin(cuda, "bin"))',
                  'prepend_path("LD_LIBRARY_PATH", pathJoin(cuda, "lib64"))']
    return "\n".join(lines) + "\n"
