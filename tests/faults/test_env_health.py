"""A damaged env is never called up to date: ``up`` names the damage and repairs it; ``doctor`` fails.

The project starts from a good env + lock (``ready``); then one thing a user, a script or a
crash could do to the env is done to it, and the real CLI is run again.
"""
from __future__ import annotations

import json
import signal
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from tests.support.console import unwrapped


@dataclass(frozen=True)
class Damage:
    label: str
    do: Callable            # (world) -> None
    reason: str             # what `up` must say about it
    status: str             # what `up` then did
    undone: Callable = lambda w: True     # (world) -> the damage itself is gone, not only reported


def _version_py_is_original(w) -> bool:
    return "edited by hand" not in (w.site() / "torch" / "version.py").read_text()


def _delete_init(w):
    (w.site() / "torch" / "__init__.py").unlink()


def _edit_version(w):
    with open(w.site() / "torch" / "version.py", "a") as fh:
        fh.write("cuda = '12.1'   # edited by hand\n")


def _delete_folder(w):
    import shutil

    shutil.rmtree(w.site() / "filelock")


def _dangle_python(w):
    py = w.env / "bin" / "python"
    py.unlink()
    py.symlink_to("/nonexistent/python3.11")


DAMAGES = [
    Damage("torch/__init__.py deleted", _delete_init, "torch/__init__.py is missing", "repaired"),
    Damage("torch/version.py edited", _edit_version, "torch/version.py was changed", "repaired",
           _version_py_is_original),
    Damage("a package folder (filelock/) deleted", _delete_folder, "filelock/__init__.py is missing", "repaired"),
    Damage(".venv/bin/python a dangling symlink", _dangle_python, "does not exist", "rebuilt"),
]


@pytest.mark.parametrize("damage", DAMAGES, ids=[d.label for d in DAMAGES])
@pytest.mark.fault("{damage}", where="a good env after `torchenv up`",
                   expect="`up` is not a no-op: it names the damage in one line and repairs it; the env imports "
                          "torch again; the next `up` is a no-op")
def test_damaged_env_is_repaired_not_called_up_to_date(ready, damage, observed):
    assert _noop_says_up_to_date(ready)
    damage.do(ready)
    assert not _noop_says_up_to_date(ready), "the no-op check calls the damaged env up to date"
    again = ready.up()
    assert again.rc == 0, again.text
    assert "is up to date" not in again.out, again.text
    assert damage.reason in again.text, again.text
    assert again.status == damage.status, again.text
    observed(f"`up`: '{again.gist(damage.reason, 110)}'")
    assert ready.env_imports() == "2.4.1+cpu"
    assert damage.undone(ready), "`up` said it repaired the env, but the damage is still there"
    assert ready.up().out.strip().endswith("(target linux-x86_64-cpu)"), "the up after the repair is a no-op"


@pytest.mark.fault("`up --force` on a healthy env", where="a good env after `torchenv up`",
                   expect="the env is rebuilt (never 'up to date')")
def test_force_rebuilds(ready, observed):
    before = (ready.site() / "torch" / "__init__.py").stat().st_ino
    r = ready.up("--force")
    assert r.rc == 0, r.text
    assert "is up to date" not in r.out and r.status == "rebuilt", r.text
    assert (ready.site() / "torch" / "__init__.py").stat().st_ino != before or "rebuilding (--force)" in r.text
    observed(f"`up --force`: {r.status}")


@pytest.mark.fault("torch does not import", where="`torchenv doctor --json` on an env whose torch/__init__.py is gone",
                   expect='exit 1, `"ok": false`, a finding that names the import failure')
def test_doctor_fails_when_torch_does_not_import(ready, observed):
    _delete_init(ready)
    r = ready.cli("doctor", "--env", str(ready.env), "--json", "--assume-no-gpu")
    data = json.loads(r.out)
    assert data["runtime"].get("torch_error"), data["runtime"]
    assert r.rc == 1 and data["ok"] is False, r.text
    errors = [f for f in data["findings"] if f["severity"] == "error"]
    assert any("import torch" in f["title"] for f in errors), errors
    observed(f"exit {r.rc}, ok false: '{errors[0]['title']}'")


def _noop_says_up_to_date(world) -> bool:
    """The no-op check `up` runs first (what a plain `torchenv up` with no flags answers from)."""
    from torchenv.flows import noop
    from torchenv.options import UpOptions

    return noop.check(world.project, UpOptions()) is not None


def _fast_up(world):
    """`torchenv up` with no flags at all: the no-op path can answer it."""
    return world.cli("up", "-C", str(world.project), "--no-verify")


# --- a verify that did not pass -------------------------------------------------------------

SIGS = [pytest.param(signal.SIGINT, id="SIGINT"), pytest.param(signal.SIGTERM, id="SIGTERM")]


@pytest.mark.parametrize("sig", SIGS)
@pytest.mark.fault("{sig} during verify", where="`torchenv up` (verify step) of a good env",
                   expect="the next `up` verifies again (not 'up to date'); once verify passes, `up` is a no-op")
def test_interrupted_verify_is_redone(ready, sig, observed):
    (ready.project / "requirements.txt").write_text("six\n")     # up has work to do, then verifies
    proc = ready.popen("--verify", hook="verify")
    killed = ready.kill_when(proc, ready.marker.exists, sig)
    assert killed.rc != 0
    ready.marker.unlink()
    assert not _noop_says_up_to_date(ready), "the no-op check calls an env whose verify was cut short up to date"

    again = ready.up("--verify", hook="verify-pass")
    assert again.rc == 0, again.text
    assert ready.marker.exists(), f"the next `up` did not verify again:\n{again.text}"
    assert again.status == "verified" and "its last verify was interrupted; verifying again" in again.text, \
        again.text
    observed(f"next `up`: '{again.gist('verify', 90)}'")
    ready.marker.unlink()
    third = ready.up("--verify", hook="verify-pass")
    assert "is up to date" in third.out and not ready.marker.exists(), "a passed verify is not redone"


@pytest.mark.fault("verify failed", where="`torchenv up` whose verify step fails",
                   expect="exit 1; every next `up` verifies again until it passes")
def test_failed_verify_is_redone(ready, observed):
    (ready.project / "requirements.txt").write_text("six\n")
    first = ready.up("--verify", hook="verify-fail")
    assert first.rc == 1 and ready.marker.exists(), first.text
    ready.marker.unlink()
    again = ready.up("--verify", hook="verify-fail")
    assert again.rc == 1 and ready.marker.exists(), f"the failed verify was not redone:\n{again.text}"
    assert "its last verify failed" in again.text, again.text
    observed(f"next `up`: exit {again.rc}, '{again.gist('last verify', 80)}'")
    assert ready.up("--no-verify").rc == 0, "--no-verify still skips the verify"


@pytest.mark.fault("`-c constraints.txt` and `-e .` in requirements.txt", where="a no-op `torchenv up`",
                   expect="`-c` is applied (the lock is redone once), then a no-op that still names `-e .` as the project itself")
def test_noop_up_names_requirement_lines_it_does_not_apply(ready, observed):
    (ready.project / "constraints.txt").write_text("six==1.16.0\n")
    (ready.project / "requirements.txt").write_text("-c constraints.txt\n-e .\n")
    changed = ready.up()                            # the constraints are applied: the requirements changed
    assert changed.rc == 0 and "the requirements changed" in changed.out, changed.text
    for r in (ready.up(), _fast_up(ready)):        # the full path (machine flags given) and the no-op path
        assert r.rc == 0 and "is up to date" in r.out, r.text
        assert "requirements.txt:2: `-e .` is this project itself, not a dependency" in r.err, r.err
    assert "planning" not in r.text, "the second run should have taken the no-op path"
    observed(f"'{r.gist('requirements.txt:2', 120)}'")


@pytest.mark.fault("`torchenv verify` fails", where="a good env after `torchenv up` (the fake torch cannot compute)",
                   expect="the next `up` verifies again, as after a failed verify inside `up`")
def test_failed_verify_command_counts_too(ready, observed):
    v = ready.cli("verify", "-C", str(ready.project))
    assert v.rc == 1, v.text
    again = ready.up("--verify", hook="verify-pass")
    assert again.rc == 0 and again.status == "verified", again.text
    assert "its last verify failed; verifying again" in again.text, again.text
    observed(f"next `up`: {again.status}")
    assert "is up to date" in ready.up("--verify", hook="verify-pass").out


@pytest.mark.fault("`torchenv run` after an `up` whose install failed", where="a new project; `up` failed mid-install",
                   expect="exit 1: the env is not fully built, with what failed and `torchenv up` to finish it; "
                          "the command is not run in the half-built env")
def test_run_in_a_half_built_env_says_why(world, observed):
    first = world.up(hook="install-fail")
    assert first.rc != 0, first.text
    r = world.cli("run", "-C", str(world.project), "--", "python", "-c", "import torch; print('ran')")
    flat = unwrapped(r.err)
    assert r.rc != 0 and "ran" not in r.out, r.text
    assert "No module named" not in r.text, r.text
    assert "is not fully built" in flat and "No space left on device" in flat and "torchenv up" in flat, flat
    observed(f"exit {r.rc}, '{flat[flat.index('.venv'):][:150]}'")
