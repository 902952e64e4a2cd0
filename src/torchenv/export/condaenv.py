"""``environment.yml`` for ``conda env create -f`` / ``mamba`` / ``micromamba``: conda pins + a pip section.

Why exact ``name ==version build`` pins (MatchSpec's space form, read alike by conda, mamba and rattler): a solver
lands on the locked builds; the wheels go to the ``pip:`` section with their hashes (conda hands
that section to ``pip install -r``, where a ``--hash`` turns on hash-checking for all of it).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .base import index_lines

if TYPE_CHECKING:
    from .base import ExportRequest


def _conda_specs(request: ExportRequest) -> list[str]:
    t = request.target
    specs = [f"{p.name} =={p.version} {p.build}" for p in t.conda]
    if not any(p.name == "python" for p in t.conda):
        specs.insert(0, f"python={t.python}")
    if t.wheels and not any(p.name == "pip" for p in t.conda):
        specs.append("pip")
    return specs


def _pip_section(request: ExportRequest) -> list[str]:
    t = request.target
    lines = index_lines(t)
    return lines + [f"{w.name}=={w.version} --hash=sha256:{w.sha256}" for w in t.wheels]


def environment_document(request: ExportRequest) -> dict[str, Any]:
    from ..conda.channels import channel_name

    t = request.target
    deps: list[Any] = _conda_specs(request)
    if t.wheels:
        deps.append({"pip": _pip_section(request)})
    return {"name": request.env_name, "channels": [channel_name(c) for c in t.channels] or ["conda-forge"],
            "dependencies": deps}


def render(request: ExportRequest) -> str:
    from ..conda.export import to_yaml

    return (request.header("conda-env") + "# Create with: conda env create -f environment.yml "
            "(or mamba / micromamba create -f)\n" + to_yaml(environment_document(request)))
