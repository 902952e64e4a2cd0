"""``pixi.toml`` from one lock target: the platform, the CUDA system requirement, every pin.

Why ``[system-requirements] cuda``: pixi (like conda) decides CUDA builds from the ``__cuda``
virtual package; stating the tier's CUDA makes pixi refuse a machine whose driver is too old
instead of installing a torch that cannot start there.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import tomltext
from .base import cuda_version, pypi_index, torch_family_wheels, torch_indexes

if TYPE_CHECKING:
    from .base import ExportRequest

CONDA_FORGE = "conda-forge"


def pixi_document(request: ExportRequest) -> dict[str, Any]:
    from ..conda.channels import channel_name, conda_subdir

    t = request.target
    family = {w.name for w in torch_family_wheels(t)}
    workspace = {"name": request.env_name, "channels": [channel_name(c) for c in t.channels] or [CONDA_FORGE],
                 "platforms": [conda_subdir(f"{t.os}-{t.arch}")]}
    conda: dict[str, Any] = {p.name: {"version": f"=={p.version}", "build": p.build} for p in t.conda}
    conda.setdefault("python", f"{t.python}.*")
    pypi: dict[str, Any] = {}
    for w in t.wheels:
        pypi[w.name] = ({"version": f"=={w.version}", "index": w.index.rstrip("/")} if w.name in family
                        else f"=={w.version}")
    doc: dict[str, Any] = {"workspace": workspace}
    cuda = cuda_version(t)
    if cuda:
        doc["system-requirements"] = {"cuda": cuda}
    doc["dependencies"] = conda
    if pypi:
        doc["pypi-dependencies"] = pypi
        options: dict[str, str | list[str]] = {"index-url": pypi_index(t)}
        if torch_indexes(t):
            options["extra-index-urls"] = torch_indexes(t)
        doc["pypi-options"] = options
    return doc


def render(request: ExportRequest) -> str:
    lines = [request.header("pixi").rstrip("\n"), "# Then: pixi install (pixi checks the CUDA driver first)"]
    for table, body in pixi_document(request).items():
        lines += ["", f"[{table}]", *tomltext.pairs(body)]
    return "\n".join(lines) + "\n"
