"""CI jobs from the lock: one job per target that restores the caches, rebuilds the env with
``./bootstrap up --frozen`` (or from an offline bundle) and runs ``torchenv verify``.

Why one job per target: a lock made for the cluster (cu126) and the laptops (cpu) is checked
on a GPU runner and a hosted runner alike; a CUDA target runs on a self-hosted GPU runner,
since hosted runners have no NVIDIA driver.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .base import cuda_version

if TYPE_CHECKING:
    from ..lockfile.model import LockTarget
    from .base import ExportRequest

HOSTED = {("linux", "x86_64"): "ubuntu-22.04", ("linux", "aarch64"): "ubuntu-22.04-arm",
          ("macos", "arm64"): "macos-14", ("macos", "x86_64"): "macos-13"}
GPU_LABELS = ["self-hosted", "linux", "gpu"]
CACHE_DIRS = (".cache/torchenv", ".cache/uv", ".cache/torchenv-tool")


def _jobs_targets(request: ExportRequest) -> list[LockTarget]:
    from ..errors import LockError

    usable = [t for t in request.targets if t.os != "windows"]     # ./bootstrap is POSIX sh
    if not usable:
        raise LockError(f"{request.lock_path}: only Windows targets; the CI jobs run ./bootstrap (POSIX sh)",
                        hint="lock a linux or macos target too: `torchenv lock --target linux-x86_64-cpu`")
    return usable


def commands(request: ExportRequest) -> list[str]:
    if request.bundle:
        b = request.bundle
        return [f"./bootstrap --offline {b} up --offline --from {b} --frozen --no-verify", "./bootstrap verify"]
    return ["./bootstrap up --frozen --no-verify", "./bootstrap verify"]


def _env(prefix: str) -> dict[str, str]:
    return {"TORCHENV_HOME": f"{prefix}/.cache/torchenv", "UV_CACHE_DIR": f"{prefix}/.cache/uv",
            "TORCHENV_TOOL_HOME": f"{prefix}/.cache/torchenv-tool"}


def _runs_on(t: LockTarget) -> Any:
    if cuda_version(t) or t.tier.startswith("rocm"):
        return GPU_LABELS + (["x64"] if t.arch == "x86_64" else ["arm64"])
    return HOSTED.get((t.os, t.arch), "ubuntu-22.04")


def github_document(request: ExportRequest) -> dict[str, Any]:
    jobs: dict[str, Any] = {}
    for t in _jobs_targets(request):
        steps: list[dict[str, Any]] = [
            {"uses": "actions/checkout@v4"},
            {"uses": "actions/setup-python@v5", "with": {"python-version": t.python}},
            {"name": "restore torchenv and uv caches", "uses": "actions/cache@v4",
             "with": {"path": "\n".join(CACHE_DIRS),
                      "key": f"torchenv-{t.name}-${{{{ hashFiles('torchenv.lock') }}}}"}},
        ]
        steps += [{"run": cmd} for cmd in commands(request)]
        jobs[t.name] = {"runs-on": _runs_on(t), "timeout-minutes": 60, "env": _env("${{ github.workspace }}"),
                        "steps": steps}
    return {"name": "torchenv", "on": {"push": {}, "pull_request": {}, "workflow_dispatch": {}}, "jobs": jobs}


def gitlab_document(request: ExportRequest) -> dict[str, Any]:
    doc: dict[str, Any] = {"stages": ["verify"], "variables": _env("$CI_PROJECT_DIR")}
    for t in _jobs_targets(request):
        job: dict[str, Any] = {"stage": "verify", "image": f"python:{t.python}-slim",
                               "cache": {"key": {"files": ["torchenv.lock"], "prefix": t.name},
                                         "paths": list(CACHE_DIRS)},
                               "script": commands(request)}
        if cuda_version(t):
            job["tags"] = ["gpu"]          # a runner with the NVIDIA container toolkit (gpus = "all")
        doc[f"torchenv-{t.name}"] = job
    return doc


def _render(request: ExportRequest, kind: str, doc: dict[str, Any], note: str) -> str:
    from ..conda.export import to_yaml

    header = request.header(kind).replace(f"(target {request.target.name})",
                                          "(targets " + ", ".join(t.name for t in request.targets) + ")")
    return header + f"# {note}\n" + to_yaml(doc)


def github(request: ExportRequest) -> str:
    return _render(request, "github-actions", github_document(request),
                   "Save as .github/workflows/torchenv.yml; CUDA targets run on a self-hosted runner labelled gpu.")


def gitlab(request: ExportRequest) -> str:
    return _render(request, "gitlab-ci", gitlab_document(request),
                   "Save as .gitlab-ci.yml (or include it); CUDA jobs need a runner tagged gpu with gpus = \"all\".")
