"""Bad input through the real CLI: each error names the file, line and key, says what is valid,
exits 2, and leaves the existing env, lock and config as they were."""
from __future__ import annotations

import pytest
from tests.support.console import unwrapped

GOOD = '[torch]\nversion = "2.4"\ncuda = "cpu"\npython = "3.11"\n'

CASES = [
    pytest.param("malformed TOML (unclosed string)", '[torch]\nversion = "2.4\ncuda = "cpu"\n',
                 ["torchenv.toml:2"], id="malformed"),
    pytest.param("misspelled key `verison`", '[torch]\nverison = "2.4"\n',
                 ["torchenv.toml:2", "verison", "did you mean 'version'"], id="typo-key"),
    pytest.param("unknown table `[tourch]`", '[tourch]\nversion = "2.4"\n',
                 ["torchenv.toml:1", "[tourch]", "did you mean 'torch'"], id="typo-table"),
    pytest.param("wrong type `python = 3.10` (a number)", '[torch]\nversion = "2.4"\npython = 3.10\n',
                 ["torchenv.toml:3", "python", "expected a string", "quote it"], id="wrong-type"),
    pytest.param("wrong value `installer = \"conda\"`", GOOD + '[env]\ninstaller = "conda"\n',
                 ["torchenv.toml:6", "installer", "uv, pip"], id="wrong-value"),
    pytest.param("unknown CUDA tier `cuda = \"cu999\"`", '[torch]\nversion = "2.4"\ncuda = "cu999"\n',
                 ["torchenv.toml:3", "cuda"], id="bad-tier"),
]


@pytest.mark.parametrize("label,text,expect", CASES)
@pytest.mark.fault("{label} in torchenv.toml", where="`torchenv up` on a project with a working env",
                   expect="exit 2; message names file:line and key, with a suggestion; env/lock untouched")
def test_bad_config_is_named_and_nothing_changes(guard, label, text, expect, observed):
    world = guard.world
    (world.project / "torchenv.toml").write_text(text)
    guard.accept_user_edits()
    r = world.up()
    assert r.rc == 2, r.text
    assert "Traceback" not in r.text
    flat = unwrapped(r.err)
    for fragment in expect:
        assert fragment in flat, f"{fragment!r} missing from: {flat}"
    guard.check(observed)
    observed(flat[:140])


@pytest.mark.fault("an intent the machine cannot meet", where="`up --torch 2.7 --cuda cu128` with an assumed "
                   "GTX 1080 Ti (sm_61)", expect="exit 2; refusal with reasons and alternatives; env/lock untouched")
def test_impossible_intent_is_refused_with_alternatives(guard, observed):
    world = guard.world
    r = world.cli("up", "-C", str(world.project), "--no-verify", "--torch", "2.7", "--cuda", "cu128",
                  "--assume-os", "linux", "--assume-arch", "x86_64", "--assume-gpu", "6.1",
                  "--assume-driver", "570.86.10", "--assume-python", "3.11")
    assert r.rc == 2, r.text
    flat = unwrapped(r.text)
    assert "cu128" in flat and "would work instead" in flat and "--cuda cu126" in flat
    assert "Traceback" not in flat
    guard.check(observed)
    observed(flat[:140])


@pytest.mark.fault("torchenv.toml is a directory / not UTF-8", where="`torchenv up`",
                   expect="exit 2, names the file; no traceback")
@pytest.mark.parametrize("kind", ["binary", "directory"])
def test_unreadable_config_is_named(world, kind, observed):
    cfg = world.project / "torchenv.toml"
    cfg.unlink()
    if kind == "binary":
        cfg.write_bytes(b'[torch]\nversion = "\xff\xfe"\n')
    else:
        cfg.mkdir()
    r = world.up()
    assert r.rc == 2 and "torchenv.toml" in r.err and "Traceback" not in r.text, r.text
    observed(f"{kind}: {' '.join(r.err.split())[:100]}")
