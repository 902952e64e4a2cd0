"""A mirror that lies: a wrong sha256 in its index, a file cut short, an HTML page served as a wheel.

Each must be refused before anything is installed or locked, with the file named; afterwards,
an honest mirror finishes the job (nothing poisoned the cache or the env).
"""
from __future__ import annotations

import hashlib
import re
import shutil
from urllib.parse import quote

import pytest
from tests.support.console import unwrapped
from tests.support.world import TORCH_FILE

from torchenv.lockfile.io import read_lock

HTML = b"<!DOCTYPE html><html><body><h1>Please log in to the campus network</h1></body></html>\n"


def _set_index_hash(torch_dir, digest: str) -> None:
    page = torch_dir / "cpu" / "torch" / "index.html"
    page.write_text(re.sub(r"#sha256=[0-9a-f]{64}", f"#sha256={digest}", page.read_text()))


def wrong_hash(torch_dir):
    _set_index_hash(torch_dir, hashlib.sha256(b"another build").hexdigest())
    return {}


def truncated(torch_dir):
    return {"drop_after": {f"files/{quote(TORCH_FILE)}": 4096, f"files/{TORCH_FILE}": 4096}}


def html_page(torch_dir):
    (torch_dir / "files" / TORCH_FILE).write_bytes(HTML)
    _set_index_hash(torch_dir, hashlib.sha256(HTML).hexdigest())     # a consistent lie
    return {}


LIES = [pytest.param("index lists a wrong sha256 for torch", wrong_hash, ["sha256"], id="wrong-hash"),
        pytest.param("torch download cut after 4 KB", truncated, [], id="truncated"),
        pytest.param("an HTML page served (and hashed) as the torch wheel", html_page, [], id="html")]


@pytest.mark.parametrize("label,lie,words", LIES)
@pytest.mark.fault("{label}", where="the torch mirror, first `up` of a project",
                   expect="refused naming the torch file; no lock, torch not installed; an honest mirror "
                          "then finishes the job")
def test_lying_mirror_is_refused(world, mirrors, tmp_path, label, lie, words, observed):
    world.torch_dir = shutil.copytree(mirrors[0], tmp_path / "lying")    # a private torch mirror to damage
    world.serve(**lie(world.torch_dir))
    r = world.up()
    flat = unwrapped(r.err)
    observed(f"exit {r.rc}: {flat[:150]}")
    assert r.rc != 0 and "Traceback" not in r.text, r.text
    assert "torch-2.4.1" in flat and all(w in flat for w in words), flat
    assert not world.lock.exists()
    assert not (world.site() / "torch").exists()
    assert world.cache_partials() == []

    world.torch_dir = mirrors[0]
    world.serve()
    again = world.up()
    assert again.rc == 0, again.text
    assert world.env_imports() == "2.4.1+cpu"
    assert read_lock(world.lock).target("linux-x86_64-cpu").wheel("torch")
