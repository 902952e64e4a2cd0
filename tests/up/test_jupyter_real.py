"""A project with a notebook, the real CPU torch, and the real Jupyter (slow).

``up`` alone must leave a kernel that a Jupyter outside the env (the dev env's ``jupyter_client``)
lists and starts, and whose ``import torch`` answers the locked version.

    python -m pytest tests/up/test_jupyter_real.py -m integration -q
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.support.assets import CPU_TORCH, cpu_torch_wheel, need, shared_uv_cache
from tests.support.network import pypi_reachable

pytestmark = [pytest.mark.integration, pytest.mark.network]


def _up(project: Path, *flags: str):
    from torchenv.commands import build_parser
    from torchenv.commands._options import up_options
    from torchenv.flows.up import run_up
    from torchenv.ui import Ui

    args = build_parser().parse_args(["up", "-C", str(project), *flags])
    return run_up(project, up_options(args), Ui(quiet=True))


def _ask_kernel(name: str, *codes: str) -> list[str]:
    """Start the kernelspec ``name`` with jupyter_client's KernelManager, run each of ``codes`` in it, return
    their results (one kernel: starting one costs seconds, and each answer comes from the same start)."""
    from jupyter_client.manager import KernelManager

    km = KernelManager(kernel_name=name)
    km.start_kernel()
    try:
        kc = km.client()
        kc.start_channels()
        kc.wait_for_ready(timeout=120)
        return [_result(kc, kc.execute(code)) for code in codes]
    finally:
        km.shutdown_kernel(now=True)


def _result(kc, msg_id: str) -> str:
    while True:
        msg = kc.get_iopub_msg(timeout=120)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "execute_result":
            return str(msg["content"]["data"]["text/plain"])
        if msg["msg_type"] == "error":
            raise AssertionError("\n".join(msg["content"]["traceback"]))


@pytest.mark.timeout(1500)
def test_up_alone_makes_a_jupyter_kernel_that_imports_the_locked_torch(tmp_path, monkeypatch):
    cpu_torch_wheel()
    need(pypi_reachable(), "PyPI (ipykernel and its dependencies)")
    monkeypatch.setenv("UV_CACHE_DIR", str(shared_uv_cache()))
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "jupyter-data"))
    project = tmp_path / "proj"
    (project / "notebooks").mkdir(parents=True)
    (project / "notebooks" / "train.ipynb").write_text('{"cells": [], "metadata": {}, "nbformat": 4, '
                                                      '"nbformat_minor": 5}\n')
    (project / "torchenv.toml").write_text('[torch]\nversion = "2.13"\ncuda = "cpu"\npython = "3.11"\n')

    result = _up(project)
    assert result.verify_ok is True
    from torchenv.lockfile.io import read_lock

    locked = {w.name: w.version for w in read_lock(project / "torchenv.lock").target(result.target).wheels}
    assert locked["torch"] == CPU_TORCH and "ipykernel" in locked

    jupyter = Path(sys.executable).with_name("jupyter")
    listed = subprocess.run([str(jupyter), "kernelspec", "list", "--json"], capture_output=True, text=True,
                            timeout=120, env={**os.environ, "PATH": f"{jupyter.parent}{os.pathsep}{os.environ['PATH']}"})
    assert listed.returncode == 0, listed.stderr
    specs = json.loads(listed.stdout)["kernelspecs"]
    ours = {n: s for n, s in specs.items() if n.startswith("torchenv-proj-")}
    assert len(ours) == 1
    (name, spec), = ours.items()
    assert spec["spec"]["display_name"] == "proj (torch 2.13.0, cpu)"
    assert result.kernel == f"proj (torch 2.13.0, cpu) ({name})"

    env_bin = str(project / ".venv" / "bin")
    assert _ask_kernel(name, "import torch; torch.__version__",
                       "import os, sys; os.environ['PATH'].split(os.pathsep)[0] + '|' + sys.prefix") \
        == [repr(CPU_TORCH), repr(f"{env_bin}|{project / '.venv'}")]
