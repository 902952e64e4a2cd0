"""Hostile input files: slips and tampering a careless or unlucky user brings, through the real CLI.

Each case exits non-zero with a message naming the file (and line) and what to do, without a
traceback, and leaves the project's lock, intent and env as they were.
"""
from __future__ import annotations

import pytest
from tests.support.console import unwrapped

OVERWRITES = [pytest.param("requirements", "torchenv.lock", [], id="requirements-over-lock"),
              pytest.param("uv", "torchenv.lock", ["--force"], id="uv-over-lock-force"),
              pytest.param("requirements", "torchenv.toml", ["--force"], id="requirements-over-toml-force"),
              pytest.param("requirements", "pylock.toml", [], id="requirements-over-pylock")]


@pytest.mark.parametrize("kind,target,extra", OVERWRITES)
@pytest.mark.fault("`export {kind} -o {target}` {extra}", where="a project with a lock (and a pylock.toml export)",
                   expect="exit 1 naming the file; the lock, intent and the other export untouched")
def test_export_never_writes_over_the_lock_intent_or_another_kind(guard, kind, target, extra, observed):
    world = guard.world
    made = world.cli("export", "pylock", "-C", str(world.project), "-o", str(world.project / "pylock.toml"))
    assert made.rc == 0, made.text
    guard.accept_user_edits()
    r = world.cli("export", kind, "-C", str(world.project), "-o", str(world.project / target), *extra)
    assert r.rc != 0, r.text
    flat = unwrapped(r.err)
    assert target in flat and "Traceback" not in r.text, flat
    assert "-o FILE" in flat, flat
    guard.check(observed)
    observed(flat[:160])


def _conflicted(text: str) -> str:
    lines = text.splitlines(keepends=True)
    return "".join(lines[:2] + ["<<<<<<< HEAD\n", *lines[2:4], "=======\n", *lines[2:4], ">>>>>>> feature\n",
                                *lines[4:]])


def _deep(text: str) -> str:
    return text + "deep = " + "[" * 5000 + "]" * 5000 + "\n"


HOSTILE = [pytest.param("torchenv.lock", _conflicted, ["torchenv.lock:3", "merge conflict", "torchenv lock"],
                        id="lock-conflict"),
           pytest.param("torchenv.toml", _conflicted, ["torchenv.toml:3", "merge conflict", "markers"],
                        id="toml-conflict"),
           pytest.param("torchenv.lock", _deep, ["torchenv.lock", "nested too deeply", "recursion limit"],
                        id="lock-deep"),
           pytest.param("torchenv.toml", _deep, ["torchenv.toml", "nested too deeply", "recursion limit"],
                        id="toml-deep"),
           pytest.param("torchenv.lock", None, ["torchenv.lock", "larger than 16 MiB"], id="lock-huge-sparse"),
           pytest.param("torchenv.toml", None, ["torchenv.toml", "larger than 16 MiB"], id="toml-huge-sparse")]


@pytest.mark.parametrize("name,damage,expect", HOSTILE)
@pytest.mark.fault("{name}: merge conflict / 5000 nested [ / a 17 MiB sparse file", where="`export requirements` "
                   "(reads the lock) and `up` (reads both)",
                   expect="exit non-zero naming the file (line), the limit or the conflict, and how to fix it")
def test_hostile_toml_and_lock_are_named_bad_input(guard, name, damage, expect, observed):
    world = guard.world
    target = world.project / name
    if damage is None:
        with open(target, "r+b") as fh:
            fh.truncate(17 * 2**20)        # sparse: nothing is allocated, the size is what matters
    else:
        target.write_text(damage(target.read_text()))
    guard.accept_user_edits()
    r = (world.cli("export", "requirements", "-C", str(world.project)) if name == "torchenv.lock"
         else world.up())
    assert r.rc != 0, r.text
    flat = unwrapped(r.err)
    assert "Traceback" not in r.text and "unexpected" not in flat, flat
    for fragment in expect:
        assert fragment in flat, f"{fragment!r} missing from: {flat}"
    guard.check(observed)
    observed(flat[:180])


@pytest.mark.fault("`-r /etc/passwd` (an include that is no requirements file)", where="requirements.txt of a "
                   "project with a working env, `torchenv up`",
                   expect="exit 2 before any download, naming requirements.txt:LINE, the include and its bad line")
def test_an_include_that_is_not_requirements_is_named_before_download(guard, tmp_path, observed):
    world = guard.world
    other = tmp_path / "passwd"
    other.write_text("root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n")
    (world.project / "requirements.txt").write_text(f"six\n-r {other}\n")
    guard.accept_user_edits()
    r = world.up()
    assert r.rc == 2, r.text
    flat = unwrapped(r.err)
    assert "requirements.txt:2" in flat and str(other) in flat and "root:x:0:0" in flat, flat
    assert "Traceback" not in r.text
    guard.check(observed)
    observed(flat[:200])


@pytest.mark.fault("requirements.txt saved as UTF-16 with a BOM (PowerShell `>`)", where="`torchenv up`",
                   expect="read as pip reads it: the requirement is installed")
def test_utf16_requirements_are_read_as_pip_reads_them(world, observed):
    (world.project / "requirements.txt").write_bytes("\ufeffsix\r\n".encode("utf-16-le"))
    r = world.up()
    assert r.rc == 0, r.text
    assert "codec" not in r.text
    assert world.env_imports("six")
    observed("up exit 0; six installed from the UTF-16 file")


@pytest.mark.fault("a 17 MiB (sparse) requirements.txt", where="`torchenv up`",
                   expect="exit 2 naming the file and the 16 MiB limit; no MemoryError")
def test_a_huge_requirements_file_is_refused_by_size(guard, observed):
    world = guard.world
    req = world.project / "requirements.txt"
    req.write_text("six\n")
    with open(req, "r+b") as fh:
        fh.truncate(17 * 2**20)
    guard.accept_user_edits()
    r = world.up()
    assert r.rc == 2, r.text
    flat = unwrapped(r.err)
    assert "requirements.txt" in flat and "16 MiB" in flat and "Traceback" not in r.text, flat
    guard.check(observed)
    observed(flat[:160])


@pytest.mark.fault("a package listed twice in torchenv.lock", where="`torchenv up --frozen` on a project with a lock",
                   expect="exit non-zero naming the package and the lock line; env untouched")
def test_a_duplicate_lock_entry_is_named_with_its_line(guard, observed):
    world = guard.world
    text = world.lock.read_text()
    start = text.index("[[target.package]]")
    end = text.find("\n[[", start + 1)
    block = text[start:end if end != -1 else len(text)].rstrip("\n") + "\n\n"
    world.lock.write_text(text[:start] + block + text[start:])
    guard.accept_user_edits()
    name = block.split('name = "', 1)[1].split('"', 1)[0]
    r = world.up("--frozen")
    assert r.rc != 0, r.text
    flat = unwrapped(r.err)
    assert f"package {name} twice" in flat and "torchenv.lock:" in flat and "Traceback" not in r.text, flat
    guard.check(observed)
    observed(flat[:160])


@pytest.mark.fault("verify report cannot be saved (read-only project; here `.torchenv/verify.json` is a folder, so "
                   "root is refused too)", where="`torchenv verify`",
                   expect="the checks are shown and judged; a warning says the report could not be saved")
def test_verify_shows_its_checks_when_the_report_cannot_be_saved(ready, observed):
    world = ready
    blocker = world.project / ".torchenv" / "verify.json"
    blocker.unlink(missing_ok=True)
    blocker.mkdir(parents=True)
    r = world.cli("verify", "-C", str(world.project))
    flat = unwrapped(r.err)
    assert "Traceback" not in r.text, r.text
    assert "2.4.1" in r.out and "torch" in r.out, r.text
    assert "could not be saved" in flat and "verify.json" in flat and "report saved" not in r.text, flat
    assert r.rc == 1 and "torch build" in r.out, r.text     # the fake torch fails its build check: judged as usual
    observed(f"exit {r.rc} (the test torch fails its build check); checks shown; {flat[:140]}")
