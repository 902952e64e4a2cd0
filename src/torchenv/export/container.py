"""``Dockerfile`` and Apptainer definition from one lock target: the tier's base image, the locked files.

Why install from an embedded hashed requirements file with uv (not ``torchenv up`` in the build):
the build host usually has no GPU and no driver, and a build must not plan anything; it installs
exactly the locked files, each checked against its sha256. ``torchenv verify`` (installed beside,
not inside, the env) is the health check once the container runs on a GPU host.

Why ``--bundle`` uses the ``python:X.Y-slim`` base even for CUDA tiers: an air-gapped registry
mirrors images but not Python downloads, and torch's Linux wheels carry their CUDA runtime
(``nvidia-*`` wheels, in the bundle); the host driver still comes in through the toolkit.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from .base import cuda_version

if TYPE_CHECKING:
    from .base import ExportRequest

ENV = "/opt/venv"
APP = "/app"
BUNDLE_ROOT = "/opt/bundle"


@dataclass(frozen=True)
class ImageRecipe:
    """Everything both container formats say, decided once."""

    base: str
    python: str
    install_python: bool          # the base image has no (or another) Python: uv brings the locked one
    needs: str                    # what the host must have, in one sentence
    requirements: str             # the hashed requirements file, embedded in the image
    uv: str                       # uv version for the image (the one torchenv itself pins)
    torchenv: str                 # pip requirement for torchenv itself
    bundle_name: str | None       # the bundle's top folder, when installing offline

    @property
    def wheel_source(self) -> str:
        return f"--no-index --find-links {BUNDLE_ROOT}/{self.bundle_name}/files " if self.bundle_name else ""

    @property
    def tool_source(self) -> str:
        return f"--no-index --find-links {BUNDLE_ROOT}/{self.bundle_name}/torchenv-wheels " if self.bundle_name \
            else ""

    def install_commands(self) -> list[str]:
        steps = [f"uv python install {self.python}"] if self.install_python else []
        return steps + [
            f"uv venv --python {self.python} {ENV}",
            f"uv pip install --python {ENV}/bin/python --require-hashes --no-deps {self.wheel_source}"
            f"-r {APP}/requirements.txt",
            f"uv tool install {self.tool_source}{self.torchenv}",
        ]

    def verify_command(self) -> list[str]:
        return ["torchenv", "verify", "-C", APP, "--env", ENV]


def _base(request: ExportRequest) -> tuple[str, bool]:
    from ..errors import LockError
    from ..kb.load import recipe

    t = request.target
    table = recipe("containers")
    if t.tier == "cpu" or request.bundle:
        return table["cpu"]["image"].format(python=t.python), False
    cuda = cuda_version(t)
    row = table.get("cuda", {}).get(cuda or "")
    if row is None:
        raise LockError(f"no container base image known for tier {t.tier} (target {t.name})",
                        hint="the known ones are in recipes/containers.toml; "
                             f"CUDA versions: {', '.join(table.get('cuda', {}))}")
    return row["image"], True


def _needs(request: ExportRequest) -> str:
    from ..kb.query import driver_floor

    t = request.target
    floor = driver_floor(t.tier, "linux")
    if floor is None:
        return "No GPU or driver needed (CPU build)."
    return (f"Needs an NVIDIA GPU host with driver >= {floor} (CUDA {cuda_version(t)}, minor-version "
            "compatibility) and the NVIDIA Container Toolkit.")


def _tool_version() -> tuple[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    from ..version import __version__

    try:
        uv = version("uv")
    except PackageNotFoundError:
        uv = "latest"
    return uv, f"torchenv=={__version__}"


def recipe_for(request: ExportRequest) -> ImageRecipe:
    from ..errors import LockError
    from ..offline.layout import stem
    from .requirements import render as requirements_text

    t = request.target
    if t.os != "linux" or t.backend != "venv":
        raise LockError(f"target {t.name} is {t.os}/{t.backend}; container images are built from linux venv "
                        "targets", hint="add one with `torchenv lock --target linux-x86_64-<tier>`")
    base, install_python = _base(request)
    uv, tool = _tool_version()
    plain = replace(request, wheels_dir=None)       # index lines; a bundle install passes --no-index itself
    bundle = stem(Path(request.bundle)) if request.bundle else None
    return ImageRecipe(base=base, python=t.python, install_python=install_python, needs=_needs(request),
                       requirements=requirements_text(plain), uv=uv, torchenv=tool, bundle_name=bundle)


def dockerfile(request: ExportRequest) -> str:
    import json

    r = recipe_for(request)
    t = request.target
    run_gpu = "--gpus all " if cuda_version(t) else ""
    lines = [
        "# syntax=docker/dockerfile:1",
        request.header("dockerfile").rstrip("\n"),
        f"# torch {t.torch} ({t.tier}), Python {t.python}, {t.os}-{t.arch}. {r.needs}",
        f"# Build on any host, no GPU needed, from the project folder: docker build -t {request.env_name} .",
        f"# Run: docker run {run_gpu}--rm -it {request.env_name}",
        f"FROM {r.base}",
        f"COPY --from=ghcr.io/astral-sh/uv:{r.uv} /uv /uvx /usr/local/bin/",
        "ENV UV_LINK_MODE=copy UV_COMPILE_BYTECODE=1 UV_PYTHON_INSTALL_DIR=/opt/python "
        "UV_TOOL_DIR=/opt/torchenv-tool/tools UV_TOOL_BIN_DIR=/opt/torchenv-tool/bin "
        f"PATH={ENV}/bin:/opt/torchenv-tool/bin:$PATH",
        f"WORKDIR {APP}",
        "COPY torchenv.lock ./",
    ]
    if request.bundle:
        lines.append(f"ADD {request.bundle} {BUNDLE_ROOT}/")
    lines += [f"COPY <<'TORCHENV_REQUIREMENTS' {APP}/requirements.txt", r.requirements.rstrip("\n"),
              "TORCHENV_REQUIREMENTS", "",       # hadolint's parser wants a blank line after a heredoc
              "RUN " + " \\\n    && ".join(r.install_commands()),
              f"HEALTHCHECK --interval=30m --timeout=10m --start-period=30s CMD {json.dumps(r.verify_command())}",
              'CMD ["python"]']
    return "\n".join(lines) + "\n"


def apptainer(request: ExportRequest) -> str:
    r = recipe_for(request)
    t = request.target
    nv = " --nv" if cuda_version(t) else ""
    files = [f"    {request.bundle} {BUNDLE_ROOT}/{request.bundle}"] if request.bundle else []
    unpack = [f"    tar -xf {BUNDLE_ROOT}/{request.bundle} -C {BUNDLE_ROOT}"] if request.bundle else []
    lines = [
        "Bootstrap: docker",
        f"From: ghcr.io/astral-sh/uv:{r.uv}",
        "Stage: uv",
        "",
        "Bootstrap: docker",
        f"From: {r.base}",
        "Stage: final",
        "",
        "%files from uv",
        "    /uv /usr/local/bin/uv",
        "",
        "%help",
        f"    {request.header('apptainer').strip().lstrip('# ')}",
        f"    torch {t.torch} ({t.tier}), Python {t.python}, {t.os}-{t.arch}. {r.needs}",
        f"    Build (no GPU needed): apptainer build {request.env_name}.sif THIS_FILE",
        f"    Run: apptainer run{nv} {request.env_name}.sif",
        "",
        "%files",
        f"    torchenv.lock {APP}/torchenv.lock",
        *files,
        "",
        "%environment",
        f"    export PATH={ENV}/bin:/opt/torchenv-tool/bin:$PATH",
        "",
        "%post",
        "    set -eu",
        "    export UV_LINK_MODE=copy UV_COMPILE_BYTECODE=1 UV_PYTHON_INSTALL_DIR=/opt/python "
        "UV_TOOL_DIR=/opt/torchenv-tool/tools UV_TOOL_BIN_DIR=/opt/torchenv-tool/bin",
        *unpack,
        f"    cat > {APP}/requirements.txt <<'TORCHENV_REQUIREMENTS'",
        *(f"{line}" for line in r.requirements.rstrip("\n").splitlines()),
        "TORCHENV_REQUIREMENTS",
        *(f"    {cmd}" for cmd in r.install_commands()),
        "",
        "%runscript",
        '    exec python "$@"',
        "",
        "%test",
        "    " + " ".join(r.verify_command()),
    ]
    return "\n".join(lines) + "\n"
