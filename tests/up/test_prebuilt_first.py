"""Prebuilt first: a package that compiles against torch is taken as a wheel from its project's page when the page
has one for this torch, tier and Python, and built only when it has none.

The page is a loopback fake of a find-links page like OpenMMLab's or PyG's, added as a source of the user's
own in the recipe overlay (as a mirror would be). A compiler wrapper on PATH records every call.
"""
from __future__ import annotations

import os
import subprocess

import pytest
from tests.support.packages import build_index, make_wheel
from tests.support.server import serve_dir
from tests.up.test_build_against_torch import _torch_sdist

from torchenv.kb.load import overlay
from torchenv.paths import config_dir

PAGE = "fastop/{tier}/torch{torch_minor}/index.html"


def _page(root, files) -> None:
    """``root/fastop/cpu/torch2.4/index.html`` linking ``files`` (kept beside it), as the projects' pages do."""
    folder = root / "fastop" / "cpu" / "torch2.4"
    folder.mkdir(parents=True)
    links = "".join(f'<a href="{f.name}">{f.name}</a><br>\n' for f in files)
    for f in files:
        (folder / f.name).write_bytes(f.read_bytes())
    (folder / "index.html").write_text(f"<html><body>\n{links}</body></html>\n")


def _known_source(base: str) -> None:
    path = config_dir() / "recipes" / "overlay.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'[[prebuilt.source]]\nname = "fastop wheels"\npackages = ["fastop"]\nurl = "{base}/{PAGE}"\n')
    overlay.cache_clear()


@pytest.fixture
def compiler(world, monkeypatch):
    calls = world.root / "compiler-calls"
    wrapper = world.root / "bin" / "c++"
    wrapper.parent.mkdir()
    wrapper.write_text(f"#!/bin/sh\necho \"$@\" >> {calls}\n")
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{wrapper.parent}{os.pathsep}{os.environ['PATH']}")
    build_index(world.root / "pypi", {"fastop": [_torch_sdist(world.root / "sdists")]})
    (world.project / "requirements.txt").write_text("fastop\n")
    yield calls
    overlay.cache_clear()


def _built_with(world) -> str:
    check = [str(world.env / "bin" / "python"), "-c", "import fastop; print(fastop.BUILT_WITH)"]
    return subprocess.run(check, capture_output=True, text=True).stdout.strip()


@pytest.mark.parametrize("installer", ["uv"])
def test_a_prebuilt_wheel_on_the_packages_page_is_locked_and_nothing_compiles(world, compiler, tmp_path, capsys):
    from torchenv.flows.up import run_up
    from torchenv.ui import Ui

    wheels = tmp_path / "prebuilt"
    fitting = make_wheel(wheels, "fastop", "1.0", tag="cp311-cp311-manylinux2014_x86_64",
                         extra_files={"fastop/__init__.py": "BUILT_WITH = 'prebuilt'\n"})
    other_python = make_wheel(wheels, "fastop", "1.1", tag="cp39-cp39-manylinux2014_x86_64")
    _page(tmp_path / "site", [fitting, other_python])
    with serve_dir(tmp_path / "site") as base:
        _known_source(str(base))
        run_up(world.project, world.options(), Ui())
    said = " ".join(capsys.readouterr().out.split())
    assert _built_with(world) == "prebuilt" and not compiler.exists(), "the prebuilt wheel, no compile"
    locked = world.read_lock().target("linux-x86_64-cpu").wheel("fastop")
    assert locked.filename == fitting.name and len(locked.sha256) == 64
    assert locked.url.startswith(str(base)), "locked from the page it came from"
    assert f"fastop 1.0: prebuilt wheel {fitting.name} from fastop wheels" in said, "the plan says which was used"


@pytest.mark.parametrize("installer", ["uv"])
def test_without_a_fitting_prebuilt_wheel_the_package_is_built(world, compiler, tmp_path, capsys):
    from torchenv.flows.up import run_up
    from torchenv.ui import Ui

    other_python = make_wheel(tmp_path / "prebuilt", "fastop", "1.0", tag="cp39-cp39-manylinux2014_x86_64")
    _page(tmp_path / "site", [other_python])
    with serve_dir(tmp_path / "site") as base:
        _known_source(str(base))
        run_up(world.project, world.options(), Ui())
    said = " ".join(capsys.readouterr().out.split())
    assert _built_with(world) == "2.4.1+cpu" and len(compiler.read_text().splitlines()) == 1, "built from source"
    assert "no prebuilt wheel of fastop for torch 2.4.1 (cpu, Python 3.11) on fastop wheels's page" in said


def test_the_shipped_pages_are_filled_in_as_their_projects_name_them():
    from types import SimpleNamespace

    from torchenv.sources.prebuilt import page_values, sources

    values = page_values(SimpleNamespace(torch_version="2.4.1+cu121", tier="cu121"))
    pages = {s.name: s.urls[0].format(**values) for s in sources()}
    assert pages["OpenMMLab"] == "https://download.openmmlab.com/mmcv/dist/cu121/torch2.4/index.html"
    assert pages["PyG"] == "https://data.pyg.org/whl/torch-2.4.0+cu121.html"


@pytest.mark.parametrize("installer", ["uv"])
def test_a_page_that_does_not_answer_leaves_the_package_to_the_build_and_says_why(world, compiler, tmp_path,
                                                                                capsys):
    from torchenv.flows.up import run_up
    from torchenv.ui import Ui

    with serve_dir(tmp_path) as base:      # a server that has no such page: 404
        _known_source(str(base))
        run_up(world.project, world.options(), Ui())
    said = " ".join(capsys.readouterr().out.split())
    assert _built_with(world) == "2.4.1+cpu" and len(compiler.read_text().splitlines()) == 1
    assert "on fastop wheels's page (" in said and "404" in said and "it is built from source" in said
