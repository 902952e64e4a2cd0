"""``bundle`` carries the wheels built against torch, so an offline ``up`` from it never compiles.

A user builds a project with a compiled dependency where there is network, bundles it, and installs it on
an air-gapped machine that has no compiler: the built wheel comes from the bundle, hash-checked against its
manifest, and no compiler runs there.
"""
from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from tests.up.test_build_against_torch import _torch_sdist

from torchenv.backends.torchbuild import cache_root
from torchenv.cli import main


def _compiler(folder, log, *, works: bool):
    folder.mkdir(exist_ok=True)
    wrapper = folder / "c++"
    wrapper.write_text(f"#!/bin/sh\necho \"$@\" >> {log}\n" + ("" if works else "exit 127\n"))
    wrapper.chmod(0o755)


@pytest.mark.parametrize("installer", ["uv"])     # pip's resolver locks wheels only: no sdist to build
def test_an_offline_up_from_a_bundle_installs_the_built_wheel_without_a_compiler(world, monkeypatch, tmp_path):
    from tests.support.packages import build_index

    build_index(world.root / "pypi", {"fastop": [_torch_sdist(world.root / "sdists")]})
    online, offline = world.root / "online.log", world.root / "offline.log"
    _compiler(world.root / "bin", online, works=True)
    monkeypatch.setenv("PATH", f"{world.root / 'bin'}{os.pathsep}{os.environ['PATH']}")
    (world.project / "requirements.txt").write_text("fastop\n")
    world.run_up()
    assert len(online.read_text().splitlines()) == 1, "built once where there is a compiler"
    bundle = tmp_path / "b.tar"
    (world.root / "torchidx" / "cpu").symlink_to("simple")      # the mirror layout: <base>/cpu/torch/
    assert main(["bundle", "-C", str(world.project), "-o", str(bundle), "--no-tool", "-q", "--torch-mirror",
                 (world.root / "torchidx").as_uri(), "--pypi-mirror", world.pypi_index]) == 0

    shutil.rmtree(world.env)               # the air-gapped machine: no env, no built wheel, no compiler
    shutil.rmtree(cache_root())
    _compiler(world.root / "bin", offline, works=False)
    world.run_up("--offline", "--from", str(bundle))
    check = [str(world.env / "bin" / "python"), "-c", "import fastop; print(fastop.BUILT_WITH)"]
    assert subprocess.run(check, capture_output=True, text=True).stdout.strip() == "2.4.1+cpu"
    assert not offline.exists(), "no compiler ran on the offline machine"
    assert any(cache_root().glob("*/fastop-1.0-*.whl")), "the bundle's built wheel is in this machine's cache now"


def test_a_damaged_built_wheel_in_a_bundle_is_refused(tmp_path, monkeypatch):
    import hashlib
    import json

    from torchenv.offline.install import adopt_built_wheels
    from torchenv.offline.layout import BundleError

    key = "0" * 32
    root = tmp_path / "b"
    (root / "built" / key).mkdir(parents=True)
    (root / "built" / key / "fastop-1.0-py3-none-any.whl").write_bytes(b"changed on the way")
    files = {f"built/{key}/fastop-1.0-py3-none-any.whl": {"sha256": hashlib.sha256(b"as built").hexdigest(),
                                                           "size": 8}}
    (root / "manifest.json").write_text(json.dumps({"format": 1, "files": files}))
    with pytest.raises(BundleError, match="differs from the bundle's manifest"):
        adopt_built_wheels(root, None)
    assert not (cache_root() / key).exists()
