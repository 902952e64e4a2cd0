"""Scenarios 1, 2 and 8: with a torch mirror and a PyPI-side mirror, ``torchenv up`` takes the torch
family only from the torch mirror, everything else from the PyPI side, never a planted torch, and
the lock records download.pytorch.org URLs with the sha256 of the bytes installed."""
from __future__ import annotations

import zipfile

import pytest
from tests.support import serve_dir, sha256_of

from .conftest import (
    CANONICAL_TORCH,
    TIER,
    TORCH,
    TORCH_FILE,
    VISION,
    VISION_FILE,
    assert_ok,
    family_hits,
    file_hits,
    pypi_tree,
    torch_mirror_tree,
)


@pytest.mark.parametrize("installer,layout", [("uv", "index"), ("uv", "flat"), ("pip", "index")])
def test_torch_family_from_torch_mirror_only_rest_from_pypi_mirror(e2e, e2e_wheels, installer, layout):
    e2e.installer = installer
    torch_mirror_tree(e2e.root / "A", [e2e_wheels.torch, e2e_wheels.vision], layout=layout)
    pypi_tree(e2e.root / "B", e2e_wheels, planted=True)
    with serve_dir(e2e.root / "A") as a, serve_dir(e2e.root / "B") as b:
        layout_line = f'torch-layout = "{layout}"\n' if layout == "flat" else ""
        e2e.write_toml(f'torch = "{a}"\n{layout_line}pypi = "{b}/simple"\n')
        run = e2e.up()
        assert_ok(run)

        # torch and torchvision were fetched from the torch mirror ...
        assert file_hits(a.hits, TORCH_FILE), a.hits
        assert file_hits(a.hits, VISION_FILE), a.hits
        assert all(h.startswith(f"/{TIER}/") for h in a.hits), a.hits
        # ... and the PyPI-side mirror was never asked for any torch-family name or file
        assert family_hits(b.hits) == [], b.hits
        assert any("fakedep" in h for h in b.hits), b.hits
    assert e2e.proxy_asked == [], "nothing may leave the machine (download.pytorch.org, pypi.org)"

    # the installed torch is the torch mirror's build, not the planted one
    assert e2e.installed_version("torch") == TORCH
    assert e2e.installed_version("torchvision") == VISION
    assert e2e.origin("torch") == "genuine" and e2e.origin("torchvision") == "genuine"
    assert e2e.installed_version("fakedep") == "1.0.0"
    record = (e2e.site() / f"torch-{TORCH}.dist-info" / "RECORD").read_text().splitlines()
    with zipfile.ZipFile(e2e_wheels.torch) as zf:
        genuine = zf.read(f"torch-{TORCH}.dist-info/RECORD").decode().splitlines()
    marker_line = next(line for line in genuine if line.startswith("torch/_origin.txt,"))
    assert marker_line in record, "the installed files are not those of the torch mirror's wheel"

    target = e2e.read_lock().target(f"linux-x86_64-{TIER}")
    torch = target.wheel("torch")
    assert torch.url == CANONICAL_TORCH
    assert torch.sha256 == sha256_of(e2e_wheels.torch)
    assert torch.source == "torch-index"
    assert target.wheel("torchvision").url == (
        f"https://download.pytorch.org/whl/{TIER}/torchvision-0.19.1%2Bcu118-cp311-cp311-linux_x86_64.whl")
    text = e2e.lock.read_text()
    assert a not in text, "the lock must never record the torch mirror that served the file"
    assert target.wheel("fakedep").sha256 == sha256_of(e2e_wheels.fakedep)


def test_planted_torch_on_pypi_side_is_never_installed_even_when_torch_mirror_lacks_it(e2e, e2e_wheels):
    """The torch mirror has no torch for the tier; a PyPI-side mirror offers a same-version
    ``+cu118`` build and a higher 2.4.2. ``up`` must fail naming the torch source, never fall
    back to the PyPI side."""
    torch_mirror_tree(e2e.root / "A", [e2e_wheels.vision])
    pypi_tree(e2e.root / "B", e2e_wheels, planted=True)
    with serve_dir(e2e.root / "A") as a, serve_dir(e2e.root / "B") as b:
        e2e.write_toml(f'torch = "{a}"\npypi = "{b}/simple"\n')
        run = e2e.up()
        assert family_hits(b.hits) == [], b.hits
    assert run.rc != 0, run.text
    assert "torch 2.4.1+cu118" in run.text and f"{a}/{TIER}" in run.text, run.text
    assert not e2e.lock.exists()
    assert not (e2e.site() / "torch").exists()
