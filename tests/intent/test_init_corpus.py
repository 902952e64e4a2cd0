"""`torchenv init` on the dependency files of real public projects (tests/intent/corpus).

Each folder holds a project's own files as published (trimmed to what matters), an ORIGIN
naming the repository, path and commit, and expect.toml: what init must carry into
torchenv.toml. The projects are what people clone: detection, segmentation, diffusion,
LLM fine-tuning, speech, and papers pinned to torch 1.x.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import tomllib

from torchenv.cli import main
from torchenv.intent.load import load_project_intent

CORPUS = Path(__file__).parent / "corpus"
PROJECTS = sorted(p.name for p in CORPUS.iterdir() if p.is_dir())


def test_the_corpus_is_large_and_every_fixture_names_its_origin():
    assert len(PROJECTS) >= 60
    for name in PROJECTS:
        origin = (CORPUS / name / "ORIGIN").read_text()
        assert origin.startswith("repo: ") and "commit" in origin, name


@pytest.mark.parametrize("name", PROJECTS)
def test_init_reads_what_the_project_says(name, tmp_path, capsys):
    project = tmp_path / name
    shutil.copytree(CORPUS / name, project, ignore=shutil.ignore_patterns("ORIGIN", "expect.toml"))
    expect = tomllib.loads((CORPUS / name / "expect.toml").read_text())
    before = {p.relative_to(project): p.read_bytes() for p in project.rglob("*") if p.is_file()}

    assert main(["init", "-C", str(project)]) == 0

    intent = load_project_intent(project)
    got = {"version": intent.torch.version, "cuda": intent.torch.cuda, "python": intent.torch.python,
           "with": list(intent.torch.with_), "requirements": list(intent.env.requirements)}
    want = {"version": expect.get("version"), "cuda": expect["cuda"], "python": expect.get("python"),
            "with": expect["with"], "requirements": expect["requirements"]}
    assert got == want
    after = {p.relative_to(project): p.read_bytes() for p in project.rglob("*") if p.is_file()}
    assert {k: v for k, v in after.items() if k.name != "torchenv.toml"} == before, "init changed a project file"
    out = capsys.readouterr().out
    if want["version"]:
        assert "version =" in out, "init says where the torch pin came from"
