"""A project's kernel: registered after ``up`` built its env, kept in step with the env, removed with it.

Why after the install and not in the plan: the kernelspec names the env's interpreter and the
locked torch, which exist only once the env does; ``up`` calls ``sync_kernel`` with what it
installed, so a rebuilt env (a new tier, ``up --force``) rewrites the same kernelspec.
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..activation import EnvInfo
    from ..lockfile.model import LockTarget
    from .kernelspec import Kernel, Registered

# conda packages whose presence makes the prefix itself a CUDA toolkit (nvcc in <prefix>/bin)
CONDA_TOOLKITS = frozenset({"cuda-nvcc", "cuda-toolkit", "cudatoolkit-dev"})


def cuda_home(env: EnvInfo, target: LockTarget) -> str | None:
    """CUDA_HOME for the kernel: the conda prefix when the plan put a toolkit in it, else a system
    toolkit of torch's CUDA version when this machine has one (as ``export modulefile`` sets it)."""
    if any(p.name in CONDA_TOOLKITS for p in target.conda):
        return str(env.prefix)
    from ..export.base import cuda_version

    cuda = cuda_version(target)
    if cuda is None:
        return None
    from ..export.modulefile import matching_toolkit
    from ..probing import make_context
    from ..probing.cuda_toolkits import probe_cuda_toolkits

    return matching_toolkit(cuda, probe_cuda_toolkits(make_context()))[0]


def sync_kernel(env_path: Path, project: Path, target: LockTarget,
                environ: Mapping[str, str] | None = None) -> Registered:
    """Register or update the kernelspec of the project's env; drop the project's kernelspecs whose env is gone."""
    from ..activation import find_env
    from . import kernelspec

    env = find_env(env_path)
    done = kernelspec.register(env, project, target, cuda_home=cuda_home(env, target), environ=environ)
    for old in kernelspec.of_project(project, environ):
        if old.name != done.kernel.name and old.env_gone:
            kernelspec.remove(old)
    return done


def forget_env(env_path: Path, environ: Mapping[str, str] | None = None) -> list[Kernel]:
    """Remove the kernelspecs of an env that was removed; the ones removed."""
    from . import kernelspec

    gone = [k for k in kernelspec.ours(environ) if k.env == str(Path(env_path).absolute())]
    return [k for k in gone if kernelspec.remove(k)]
