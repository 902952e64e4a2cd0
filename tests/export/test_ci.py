"""`torchenv export github-actions|gitlab-ci`: one job per target; the YAML's structure checked strictly,
every command parsed by bash and by torchenv's own argument parser."""
from __future__ import annotations

import shlex
import subprocess
from dataclasses import replace

import pytest
from tests.export import yamlish
from tests.export.conftest import export, write_cuda_lock

from torchenv.commands import build_parser


def _two_target_project(tmp_path):
    """A lock with a cu126 target and a cpu one (the laptops'), like a team's."""
    from torchenv.lockfile.io import read_lock, write_lock

    project = write_cuda_lock(tmp_path)
    lock = read_lock(project / "torchenv.lock")
    cpu = replace(lock.targets[0], name="linux-x86_64-cpu", tier="cpu", torch="2.7.1+cpu")
    write_lock(project / "torchenv.lock", lock.with_target(cpu))
    return project


def _check_command(line: str) -> None:
    assert subprocess.run(["bash", "-n", "-c", line]).returncode == 0
    words = shlex.split(line)
    assert words[0] == "./bootstrap"
    words = words[1:]
    if words[0] == "--offline":                    # bootstrap's own flag, then torchenv's arguments
        words = words[2:]
    build_parser().parse_args(words)               # exits (SystemExit) on a flag torchenv does not have


def _run_steps(job: dict) -> list[str]:
    return [s["run"] for s in job["steps"] if "run" in s]


@pytest.mark.parametrize("bundle", [None, "site.tar"])
def test_github_workflow_has_a_hosted_cpu_job_and_a_gpu_runner_job(tmp_path, bundle):
    project = _two_target_project(tmp_path)
    out = tmp_path / "torchenv.yml"
    assert export(project, "github-actions", "-o", str(out), *(["--bundle", bundle] if bundle else [])) == 0
    doc = yamlish.loads(out.read_text())
    assert set(doc) == {"name", "on", "jobs"} and "push" in doc["on"]
    jobs = doc["jobs"]
    assert jobs["linux-x86_64-cpu"]["runs-on"] == "ubuntu-22.04"
    assert jobs["linux-x86_64-cu126"]["runs-on"] == ["self-hosted", "linux", "gpu", "x64"]
    for job in jobs.values():
        assert all(set(step) <= {"name", "uses", "with", "run"} for step in job["steps"])
        assert all("@v" in step["uses"] for step in job["steps"] if "uses" in step)   # actions pinned
        cache = next(s for s in job["steps"] if s.get("uses", "").startswith("actions/cache@"))
        assert "hashFiles('torchenv.lock')" in cache["with"]["key"]
        runs = _run_steps(job)
        assert runs[-1] == "./bootstrap verify"
        assert "--frozen" in runs[0] and (bundle is None or f"--from {bundle}" in runs[0])
        for line in runs:
            _check_command(line)


def test_gitlab_pipeline_tags_the_cuda_job_for_a_gpu_runner(tmp_path):
    project = _two_target_project(tmp_path)
    out = tmp_path / ".gitlab-ci.yml"
    assert export(project, "gitlab-ci", "-o", str(out)) == 0
    doc = yamlish.loads(out.read_text())
    with pytest.raises(ValueError):                    # the reader is strict: a flow mapping is refused
        yamlish.loads(out.read_text().replace('stages:\n  - "verify"', "stages: {verify: 1}"))
    jobs = {k: v for k, v in doc.items() if k not in ("stages", "variables")}
    assert set(jobs) == {"torchenv-linux-x86_64-cpu", "torchenv-linux-x86_64-cu126"}
    assert jobs["torchenv-linux-x86_64-cu126"]["tags"] == ["gpu"]
    assert "tags" not in jobs["torchenv-linux-x86_64-cpu"]
    for job in jobs.values():
        assert job["stage"] in doc["stages"] and job["image"] == "python:3.12-slim"
        assert job["cache"]["key"]["files"] == ["torchenv.lock"]
        for line in job["script"]:
            _check_command(line)
