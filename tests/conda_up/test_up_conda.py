"""`torchenv up` with ``torch-source = "conda"``: CUDA or CPU pytorch build, a valid prefix, the lock,
no-op, ``--frozen``, verify, export."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conda.channel_builder import PLACEHOLDER
from tests.conda_up.conftest import GPU, NO_GPU

from torchenv import safety

HEX64, HEX32 = 64, 32


def _py(env: Path, code: str) -> str:
    return subprocess.run([str(env / "bin" / "python"), "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip()


def test_up_builds_the_cuda_variant_without_a_conda_binary(project, forge, calls):
    project.write(channel=forge)
    result = project.up(*GPU)

    assert result.status == "installed" and result.target == "linux-x86_64-cu126"
    env = project.env
    meta = project.conda_meta()
    assert "pytorch-2.7.1-cuda126_generic_py311_h0_200.json" in meta and "cuda-version-12.6-h0_3.json" in meta
    # a valid conda env: conda-meta/history, records conda reads, placeholders rewritten to this prefix
    assert (env / "conda-meta" / "history").is_file()
    record = json.loads((env / "conda-meta" / "pytorch-2.7.1-cuda126_generic_py311_h0_200.json").read_text())
    assert record["url"].startswith(forge.as_uri()) and record["files"]
    conf = (env / "etc" / "libfoo.conf").read_text()
    assert PLACEHOLDER not in conf and str(env) in conf
    # the conda package's torch module imports with the prefix's own interpreter
    assert _py(env, "import sys, torch; print(sys.prefix, torch.VARIANT)") == f"{env} cuda126"
    # env-local config: a later `conda install` in the prefix uses the same channel
    assert forge.as_uri() in (env / ".condarc").read_text()

    target = project.lock().target("linux-x86_64-cu126")
    assert target.backend == "conda" and target.torch == "2.7.1" and not target.wheels
    assert target.channels == (forge.as_uri(),)
    assert "__cuda=12.9=0" in target.virtual_packages
    assert {p.name for p in target.conda} == {"python", "python_abi", "pytorch", "libfoo", "cuda-version"}
    for p in target.conda:
        assert p.url.startswith(forge.as_uri() + "/") and len(p.sha256) == HEX64 and len(p.md5 or "") == HEX32
    assert "pytorch ==2.7.1 cuda*" in calls.solve[0] and "cuda-version 12.6.*" in calls.solve[0]

    # nothing changed: the second `up` is a no-op (no solve, no install)
    again = project.up(*GPU)
    assert again.status == "up-to-date"
    assert len(calls.solve) == 1 and len(calls.install) == 1


def test_up_without_a_gpu_builds_the_cpu_variant(project, forge):
    project.write(channel=forge)
    result = project.up(*NO_GPU)

    assert result.target == "linux-x86_64-cpu"
    assert "pytorch-2.7.1-cpu_generic_py311_h0_0.json" in project.conda_meta()
    assert not any(m.startswith("cuda-version") for m in project.conda_meta())
    assert _py(project.env, "import torch; print(torch.VARIANT)") == "cpu"
    target = project.lock().target("linux-x86_64-cpu")
    assert not any(v.startswith("__cuda") for v in target.virtual_packages)
    assert next(p for p in target.conda if p.name == "pytorch").build.startswith("cpu_")
    assert safety.claim(project.env, project.dir).kind == safety.OURS, "the prefix carries torchenv's marker"


def test_frozen_rebuilds_a_deleted_prefix_from_the_lock_without_solving(project, forge, calls, tmp_path,
                                                                         monkeypatch):
    channel = tmp_path / "channel"
    shutil.copytree(forge, channel)
    project.write(channel=channel)
    project.up(*GPU)
    before = project.conda_meta()
    lock_text = (project.dir / "torchenv.lock").read_text()

    shutil.rmtree(project.env)
    for repodata in channel.glob("*/repodata.json"):   # no solve could succeed now: the channel has no index
        repodata.unlink()
    from torchenv.engines.rattler import RattlerEngine

    def no_solve(self, **kw):
        raise AssertionError("up --frozen must install from torchenv.lock, not solve")

    monkeypatch.setattr(RattlerEngine, "solve", no_solve)
    result = project.up("--frozen", *GPU)

    assert result.status == "installed"
    assert project.conda_meta() == before
    assert (project.dir / "torchenv.lock").read_text() == lock_text
    assert _py(project.env, "import torch; print(torch.VARIANT)") == "cuda126"
    assert project.up("--frozen", *GPU).status == "up-to-date"


def test_the_cli_builds_the_env_in_a_fresh_process(project, forge, tmp_path):
    """What a user types, in a subprocess: `torchenv up` then `torchenv up` again."""
    project.write(channel=forge)
    env = {**os.environ, "TORCHENV_HOME": str(tmp_path / "home")}
    cmd = [sys.executable, "-m", "torchenv", "up", "-C", str(project.dir), "--no-verify", *GPU]
    first = subprocess.run(cmd, capture_output=True, text=True, env=env)
    assert first.returncode == 0, first.stderr + first.stdout
    assert "pytorch-2.7.1-cuda126_generic_py311_h0_200.json" in project.conda_meta()
    second = subprocess.run(cmd, capture_output=True, text=True, env=env)
    assert second.returncode == 0 and "is up to date" in second.stdout


def test_verify_runs_the_prefix_interpreter_on_the_conda_torch(project, forge):
    """The fake pytorch has an importable ``torch`` (no tensors): verify's import and version layers pass."""
    project.write(channel=forge)
    result = project.up("--verify", *NO_GPU)
    report = json.loads((project.dir / ".torchenv" / "verify.json").read_text())
    checks = {c["name"]: c for c in report["checks"]}
    assert checks["import torch"]["ok"] and str(project.env / "lib") in checks["import torch"]["detail"]
    assert checks["torch version"]["ok"] and "(lock: 2.7.1)" in checks["torch version"]["detail"]
    assert result.verify_ok is False          # the fake torch has no tensors: the build layer fails, as it should


def test_export_reads_back_a_lock_made_by_up(project, forge, tmp_path, capsys):
    """conda-lock.yml and @EXPLICIT from `up`'s lock: rattler parses both and installs the same packages."""
    import argparse
    import asyncio

    from rattler import LockFile, install
    from rattler.explicit_environment import ExplicitEnvironmentSpec

    from torchenv.commands import export

    project.write(channel=forge)
    project.up(*GPU)
    target = project.lock().targets[0]
    urls = {p.url for p in target.conda}

    out = tmp_path / "conda-lock.yml"
    assert export.run(argparse.Namespace(format="conda-lock", output=str(out), target=None,
                                         project=str(project.dir))) == 0
    records = LockFile.from_path(out).default_environment().conda_repodata_records()["linux-64"]
    assert {r.url for r in records} == urls
    asyncio.run(install(records, target_prefix=tmp_path / "from-conda-lock", cache_dir=tmp_path / "pkgs",
                        show_progress=False))
    assert {p.name for p in (tmp_path / "from-conda-lock" / "conda-meta").glob("*.json")} == project.conda_meta()

    explicit = tmp_path / "explicit.txt"
    assert export.run(argparse.Namespace(format="explicit", output=str(explicit), target=None,
                                         project=str(project.dir))) == 0
    spec = ExplicitEnvironmentSpec.from_path(explicit)
    assert str(spec.platform) == "linux-64"
    assert {e.url.split("#")[0] for e in spec.packages} == urls
    md5 = {p.url: p.md5 for p in target.conda}
    for line in explicit.read_text().splitlines():
        if line.startswith("file:"):
            url, _, digest = line.partition("#")
            assert md5[url] == digest
