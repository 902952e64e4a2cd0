"""``[tool.uv]`` tables for a project's ``pyproject.toml``, the way uv's PyTorch guide does it.

Why this shape: each tier's index is declared with ``explicit = true`` so only the torch family
is taken from it, and ``[tool.uv.sources]`` pins those packages to it (per platform when the
lock has several targets). Everything else the lock holds becomes ``constraint-dependencies``,
so ``uv lock`` lands on the versions torchenv locked.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import tomltext
from .base import PLATFORM_MARKERS, relative_to_output, torch_family_wheels

if TYPE_CHECKING:
    from ..lockfile.model import LockTarget
    from .base import ExportRequest


def index_name(target: LockTarget) -> str:
    return f"pytorch-{target.tier}"


def _platform_marker(target: LockTarget) -> str:
    return PLATFORM_MARKERS.get((target.os, target.arch), f"platform_machine == '{target.arch}'")


def _check_platforms(request: ExportRequest) -> None:
    from ..errors import LockError

    seen: dict[str, str] = {}
    for t in request.targets:
        other = seen.setdefault(_platform_marker(t), t.name)
        if other != t.name:
            raise LockError(f"{request.lock_path}: targets {other} and {t.name} are for the same platform; uv "
                            "sources choose an index by platform", hint="pick one with --target NAME")


def _indexes(request: ExportRequest) -> list[dict[str, Any]]:
    out = []
    for t in request.targets:
        urls = {w.index.rstrip("/") for w in torch_family_wheels(t)}
        if not urls:
            continue                    # the tier is PyPI's own build: no extra index
        entry: dict[str, Any] = {"name": index_name(t), "url": sorted(urls)[0], "explicit": True}
        if request.wheels_dir is not None:
            entry.update(url=relative_to_output(request, request.wheels_dir), format="flat")
        out.append(entry)
    return out


def _sources(request: ExportRequest) -> dict[str, Any]:
    multi = len(request.targets) > 1
    sources: dict[str, list[dict[str, str]]] = {}
    for t in request.targets:
        for w in torch_family_wheels(t):
            entry = {"index": index_name(t)} | ({"marker": _platform_marker(t)} if multi else {})
            sources.setdefault(w.name, []).append(entry)
    return {name: (entries if multi else entries[0]) for name, entries in sorted(sources.items())}


def _pins(request: ExportRequest, family: bool) -> list[str]:
    """Exact pins; with several targets each pin carries its platform marker."""
    multi = len(request.targets) > 1
    pins = []
    for t in request.targets:
        names = {w.name for w in torch_family_wheels(t)} | {"torch"}
        for w in t.wheels:
            if (w.name in names) == family:
                pins.append(f"{w.name}=={w.version}" + (f"; {_platform_marker(t)}" if multi else ""))
    return list(dict.fromkeys(pins))


def uv_document(request: ExportRequest) -> dict[str, Any]:
    _check_platforms(request)
    uv: dict[str, Any] = {"environments": [_platform_marker(t) for t in request.targets]}
    constraints = _pins(request, family=False)
    if constraints:
        uv["constraint-dependencies"] = constraints
    return {"dependencies": _pins(request, family=True), "uv": uv, "index": _indexes(request),
            "sources": _sources(request)}


def render(request: ExportRequest) -> str:
    doc = uv_document(request)
    lines = [request.header("uv").rstrip("\n"),
             "# Merge into your pyproject.toml (add the dependencies to [project]), then: uv lock && uv sync",
             "[project]", f"dependencies = {tomltext.multiline_list(doc['dependencies'])}", "",
             "[tool.uv]", *(f"{tomltext.key(k)} = {tomltext.multiline_list(v)}" for k, v in doc["uv"].items()), ""]
    for index in doc["index"]:
        lines += ["[[tool.uv.index]]", *tomltext.pairs(index), ""]
    if doc["sources"]:
        lines += ["[tool.uv.sources]", *tomltext.pairs(doc["sources"])]
    return "\n".join(lines).rstrip("\n") + "\n"
