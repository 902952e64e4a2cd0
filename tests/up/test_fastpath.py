"""The second no-op ``torchenv up`` answers from a stamp before the command line is built, and only while
nothing the full check looked at has changed."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time

import pytest

from torchenv.flows import noop


def _up(project, *extra):
    cmd = [sys.executable, "-X", "importtime", "-m", "torchenv", "up", "-C", str(project), *extra]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ))
    assert proc.returncode == 0, proc.stderr[-2000:]
    imported = {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    return proc.stdout, imported


def _installed_and_settled(world):
    """``up``, then a wait until its files are more than an mtime tick old, as they are by the time a
    user's next ``up`` runs (a stamp holds only settled paths)."""
    world.run_up()
    time.sleep(2 * noop.SETTLE_NS / 1e9)


@pytest.mark.parametrize("installer", ["uv"], indirect=True)
def test_second_noop_up_answers_without_building_the_command_line(world):
    _installed_and_settled(world)
    first, imported_first = _up(world.project)        # the full no-op check, which writes the stamp
    second, imported_second = _up(world.project)
    assert "is up to date with torchenv.lock" in first and second == first
    assert {"torchenv.intent.load", "torchenv.lockfile.io"} <= imported_first
    assert not {m for m in imported_second if m.startswith(("torchenv.commands", "torchenv.intent", "torchenv.lock"))}


@pytest.mark.parametrize("installer", ["uv"], indirect=True)
def test_the_stamp_says_what_the_full_check_says_flags_kept_included(world):
    """One answerer: the stamped no-op said nothing of the flags kept from ``up --torch X``, the full one did."""
    world.run_up("--torch", "2.4.1")
    time.sleep(2 * noop.SETTLE_NS / 1e9)
    full, imported_full = _up(world.project)
    stamped, imported_stamped = _up(world.project)
    assert "torchenv.lockfile.io" in imported_full and "torchenv.lockfile.io" not in imported_stamped, "two paths ran"
    assert "kept --torch 2.4.1" in full
    assert stamped == full


def _site(world):
    return next((world.project / ".venv" / "lib").glob("python*/site-packages"))


CHANGES = {
    "torchenv.toml edited": lambda w: (w.project / "torchenv.toml").write_text(
        (w.project / "torchenv.toml").read_text() + "\n# edited\n"),
    "requirements.txt added": lambda w: (w.project / "requirements.txt").write_text("six\n"),
    "lock edited": lambda w: (w.project / "torchenv.lock").write_text(
        (w.project / "torchenv.lock").read_text() + "\n"),
    "package removed by hand": lambda w: shutil.rmtree(next(_site(w).glob("filelock-*.dist-info"))),
    "package added by hand": lambda w: (_site(w) / "six-1.16.0.dist-info").mkdir(),
    "install left unfinished": lambda w: (w.project / ".venv" / ".torchenv" / "in-progress").write_text("{}"),
    "verify failed": lambda w: (w.project / ".venv" / ".torchenv" / "verify-not-passed").write_text("{}"),
    "interpreter relinked": lambda w: (os.unlink(w.project / ".venv" / "bin" / "python"),
                                       os.symlink(sys.executable, w.project / ".venv" / "bin" / "python")),
    "env removed": lambda w: shutil.rmtree(w.project / ".venv"),
}


@pytest.mark.parametrize("installer", ["uv"], indirect=True)
@pytest.mark.parametrize("change", sorted(CHANGES))
def test_any_change_the_full_check_would_see_sends_up_down_the_full_path(world, change, capsys):
    _installed_and_settled(world)
    argv = ["up", "-C", str(world.project)]
    noop.record(argv, str(world.project))
    assert noop.answer(argv) == 0
    assert "is up to date" in capsys.readouterr().out
    CHANGES[change](world)
    assert noop.answer(argv) is None
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("installer", ["uv"], indirect=True)
@pytest.mark.parametrize("argv", [["up", "--python", "3.12"], ["up", "--force"], ["up", "--mirror", "x"],
                                  ["up", "--no-v"], ["lock"], ["up", "-C"]])
def test_flags_the_stamp_cannot_answer_for_go_the_full_path(world, argv, capsys, monkeypatch):
    _installed_and_settled(world)
    noop.record(["up", "-C", str(world.project)], str(world.project))
    monkeypatch.chdir(world.project)     # and back: a removed tmp_path must not stay the worker's cwd
    assert noop.answer(argv) is None
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("installer", ["uv"], indirect=True)
def test_no_stamp_when_the_env_is_not_up_to_date(world):
    _installed_and_settled(world)
    (world.project / ".venv" / ".torchenv" / "verify-not-passed").write_text("{}")
    noop.record(["up", "-C", str(world.project)], str(world.project))
    assert not (world.project / ".torchenv" / noop.STAMP_FILE).exists()


@pytest.mark.parametrize("installer", ["uv"], indirect=True)
def test_stamp_keeps_no_login(world):
    (world.project / "requirements.txt").write_text("--extra-index-url https://bob:s3cret@example.org/simple\nsix\n")
    _installed_and_settled(world)
    noop.record(["up", "-C", str(world.project)], str(world.project))
    text = (world.project / ".torchenv" / noop.STAMP_FILE).read_text()
    assert "s3cret" not in text and json.loads(text)["warnings"]


@pytest.mark.parametrize("installer", ["uv"], indirect=True)
def test_the_noop_ups_warning_about_a_logged_source_line_shows_no_login(world, capsys):
    """requirements.txt's ``--extra-index-url`` line (not applied, said as a warning) holds a login: neither the
    full no-op check's answer nor the stamp's shows it."""
    from torchenv.cli import main

    (world.project / "requirements.txt").write_text("--extra-index-url https://bob:s3cret@example.org/simple\nsix\n")
    _installed_and_settled(world)
    capsys.readouterr()
    argv = ["up", "-C", str(world.project)]
    for path in ("full", "stamp"):
        assert not (world.project / ".torchenv" / noop.STAMP_FILE).exists() or path == "stamp"
        assert main(argv) == 0
        out, err = capsys.readouterr()
        assert "is up to date" in out and "--extra-index-url https://***@example.org/simple" in err, (path, err)
        assert "s3cret" not in out + err and "bob" not in out + err, path
        assert (world.project / ".torchenv" / noop.STAMP_FILE).exists()


def _sleeps_of_fastpath(monkeypatch):
    """The sleeps ``flows.noop`` itself asks for (other modules' waits are not its business)."""
    asked: list[float] = []
    real = time.sleep

    def sleep(seconds):
        if sys._getframe(1).f_globals.get("__name__") == noop.__name__:
            asked.append(seconds)
        real(seconds)

    monkeypatch.setattr(time, "sleep", sleep)
    return asked


@pytest.mark.parametrize("installer", ["uv"], indirect=True)
def test_the_up_that_installed_does_not_wait_for_its_stamp_and_the_next_up_leaves_one(world, capsys, monkeypatch):
    from torchenv.cli import main

    asked = _sleeps_of_fastpath(monkeypatch)
    stamp = world.project / ".torchenv" / noop.STAMP_FILE
    argv = ["up", "-q", "--no-verify", "-C", str(world.project)]
    assert main(argv) == 0
    assert (world.project / ".venv" / ".torchenv" / "state.json").exists()
    assert asked == [], "no sleeping out the mtime tick after an install"
    if stamp.exists():                             # a slow machine: the check began a tick after the install
        held = json.loads(stamp.read_text())["paths"]
        assert max(sig[0] for _p, _f, sig in held if isinstance(sig, list)) + noop.SETTLE_NS \
            < os.stat(stamp).st_mtime_ns
    time.sleep(2 * noop.SETTLE_NS / 1e9)
    assert main(argv) == 0 and stamp.exists(), "the next up's full check leaves the stamp"
    capsys.readouterr()
    assert noop.answer(argv) == 0
    assert "is up to date with torchenv.lock" in capsys.readouterr().out


@pytest.mark.parametrize("installer", ["uv"], indirect=True)
def test_the_up_that_installed_and_verified_leaves_the_stamp_so_the_very_next_up_answers_from_it(
        world, capsys, monkeypatch):
    """The install's files can be a moment old when it records (a verify that is quick, here one that only
    passes): it waits them out once, as a verify's seconds make nothing of the wait, and the user's
    next ``up`` is answered from the stamp."""
    from torchenv.cli import main

    def verify_that_passes(python, target, plan, project_dir, ui, *, meanwhile=lambda: None):
        meanwhile()
        return True

    monkeypatch.setattr("torchenv.flows.verify_step._verify", verify_that_passes)
    argv = ["up", "-q", "-C", str(world.project)]
    assert main(argv) == 0
    assert (world.project / ".torchenv" / noop.STAMP_FILE).exists()
    capsys.readouterr()
    assert noop.answer(argv) == 0
    assert "is up to date with torchenv.lock" in capsys.readouterr().out


@pytest.mark.parametrize("installer", ["uv"], indirect=True)
def test_a_stamp_holds_only_files_older_than_a_tick_before_its_check(world, monkeypatch):
    """A change within the same mtime tick, same size, would go unseen ("racy clean"): a file fresher than
    a tick before the check gets no stamp (and no wait); once it is older, the stamp holds it."""
    asked = _sleeps_of_fastpath(monkeypatch)
    world.run_up()
    time.sleep(2 * noop.SETTLE_NS / 1e9)       # the install's own files are settled
    toml = world.project / "torchenv.toml"
    stamp = world.project / ".torchenv" / noop.STAMP_FILE
    stamp.unlink(missing_ok=True)
    soon = time.time_ns() + 10**9
    os.utime(toml, ns=(soon, soon))                # written by a clock a little ahead (NFS): fresher than any check
    noop.record(["up"], str(world.project))
    assert not stamp.exists() and asked == []
    past = time.time_ns() - 2 * noop.SETTLE_NS
    os.utime(toml, ns=(past, past))
    noop.record(["up"], str(world.project))
    held = {path: sig for path, _follow, sig in json.loads(stamp.read_text())["paths"]}
    assert held[str(toml)][0] == past


@pytest.mark.parametrize("installer", ["uv"], indirect=True)
def test_from_a_subdirectory_the_stamp_answers_and_says_where_the_project_is(world):
    sub = world.project / "src" / "models"
    sub.mkdir(parents=True)
    _installed_and_settled(world)
    cmd = [sys.executable, "-X", "importtime", "-m", "torchenv", "up"]
    full = subprocess.run(cmd, capture_output=True, text=True, cwd=sub)
    fast = subprocess.run(cmd, capture_output=True, text=True, cwd=sub)
    assert full.returncode == fast.returncode == 0 and (world.project / ".torchenv" / noop.STAMP_FILE).exists()
    assert fast.stdout == full.stdout and "is up to date" in fast.stdout
    found = f"torchenv: using {world.project / 'torchenv.toml'} (found above the current directory)"
    assert found in full.stderr and found in fast.stderr
    assert "torchenv.commands" not in fast.stderr, "answered before the command line was built"
    stamp = world.project / ".torchenv" / noop.STAMP_FILE
    held = json.loads(stamp.read_text())
    held["paths"][0][2] = [0, 0, 0]                  # a stamp that no longer holds: the full path answers
    stamp.write_text(json.dumps(held))
    stale = subprocess.run(cmd, capture_output=True, text=True, cwd=sub)
    assert stale.returncode == 0 and "is up to date" in stale.stdout
    assert stale.stderr.count(found) == 1, "said once, by the full path, not also by the stamp that did not answer"
    (sub / "torchenv.toml").write_text("")           # a nearer project now: the stamp does not answer for it
    assert noop.answer(["up", "-C", str(sub)]) is None


@pytest.mark.parametrize("installer", ["uv"], indirect=True)
def test_a_noop_up_checks_once_and_its_stamp_comes_from_that_check(world, monkeypatch, capsys):
    from torchenv.cli import main

    _installed_and_settled(world)
    (world.project / ".torchenv").mkdir(exist_ok=True)
    time.sleep(2 * noop.SETTLE_NS / 1e9)              # the install's files are more than a tick old now
    checks = []
    real = noop._check
    monkeypatch.setattr(noop, "_check", lambda *a: checks.append(1) or real(*a))
    monkeypatch.setattr(noop, "WATCH", None)
    argv = ["up", "-C", str(world.project)]
    assert main(argv) == 0 and "is up to date" in capsys.readouterr().out
    assert len(checks) == 1, "the stamp reuses the no-op check's own answer and paths"
    assert noop.answer(argv) == 0
    CHANGES["requirements.txt added"](world)
    assert noop.answer(argv) is None, "the reused check's folders are in the stamp"


@pytest.mark.parametrize("installer", ["uv"], indirect=True)
def test_running_the_project_once_keeps_the_stamp(world):
    """The first import of a package writes its __pycache__, changing the folder's mtime: the full check
    holds package folders by presence alone, and so does the stamp. A folder removed still counts."""
    _installed_and_settled(world)
    argv = ["up", "-C", str(world.project)]
    noop.record(argv, str(world.project))
    (_site(world) / "filelock" / "__pycache__").mkdir()
    assert noop.answer(argv) == 0
    shutil.rmtree(_site(world) / "filelock")
    assert noop.answer(argv) is None
