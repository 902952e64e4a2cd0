"""`torchenv run` stops with its command: signals sent to torchenv reach the child, torchenv waits and
exits with the child's status (128+N when it died by signal N); a script it cannot exec gets a message.

Each test starts the real CLI in its own session (as a job runner or a terminal would) and signals the
torchenv process alone, then checks that no child is left running.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

SLEEPER = ("import os, sys, time\n"
           "open(sys.argv[1], 'w').write(str(os.getpid()))\n"
           "time.sleep(60)\n")
TRAPPER = ("import os, signal, sys, time\n"
           "def bye(n, f):\n"
           "    time.sleep(0.3)          # clean-up takes a moment: torchenv must wait for it\n"
           "    open(sys.argv[1] + '.done', 'w').write(str(n)); sys.exit(3)\n"
           "signal.signal(signal.SIGTERM, bye)\n"
           "open(sys.argv[1], 'w').write(str(os.getpid()))\n"
           "time.sleep(60)\n")


def _start(project: Path, script: str, pidfile: Path) -> tuple[subprocess.Popen, int]:
    env = dict(os.environ, COLUMNS="500")
    proc = subprocess.Popen([sys.executable, "-m", "torchenv", "run", "-C", str(project), "--",
                             "python", "-c", script, str(pidfile)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 30
    while not (pidfile.exists() and pidfile.read_text()):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the child never started"
        time.sleep(0.02)
    return proc, int(pidfile.read_text())


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _finish(proc: subprocess.Popen, child: int) -> int:
    try:
        proc.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        os.kill(child, signal.SIGKILL)
        pytest.fail("torchenv did not exit after the signal (it did not pass it on)")
    return proc.returncode


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP], ids=lambda s: s.name)
def test_signal_to_torchenv_stops_the_child(plain_venv, tmp_path, sig):
    proc, child = _start(plain_venv, SLEEPER, tmp_path / "pid")
    os.kill(proc.pid, sig)                  # torchenv alone, as `kill`, systemd or a CI runner does
    rc = _finish(proc, child)
    leftover = _alive(child)
    if leftover:
        os.kill(child, signal.SIGKILL)
    assert not leftover, f"the child (pid {child}) outlived torchenv"
    assert rc == 128 + sig, f"exit {rc}, expected {128 + sig} (child killed by {sig.name})"


def test_torchenv_waits_for_the_childs_clean_up_and_exits_with_its_code(plain_venv, tmp_path):
    pidfile = tmp_path / "pid"
    proc, child = _start(plain_venv, TRAPPER, pidfile)
    os.kill(proc.pid, signal.SIGTERM)
    rc = _finish(proc, child)
    assert rc == 3, proc.stderr
    assert Path(str(pidfile) + ".done").read_text() == str(int(signal.SIGTERM))
    assert not _alive(child)


def test_script_without_shebang_gets_a_message(plain_venv):
    script = plain_venv / "train"
    script.write_text("print('hello')\n")
    script.chmod(0o755)
    res = subprocess.run([sys.executable, "-m", "torchenv", "run", "-C", str(plain_venv), "--", "./train"],
                         capture_output=True, text=True, cwd=plain_venv, env=dict(os.environ, COLUMNS="500"))
    assert "Traceback" not in res.stderr, res.stderr
    assert res.returncode == 126
    assert "./train has no #! line; run it as `torchenv run -- python ./train`" in res.stderr


def test_ctrl_c_in_a_terminal_reaches_the_child_once(plain_venv, tmp_path):
    """The terminal sends Ctrl-C to torchenv and the child alike: passing it on again would make two."""
    import pty

    ready, count = tmp_path / "ready", tmp_path / "count"
    script = ("import signal, sys, time\n"
              "got = []\n"
              "signal.signal(signal.SIGINT, lambda s, f: got.append(s))\n"
              f"open({str(ready)!r}, 'w').write('1')\n"
              "end = time.time() + 1.5\n"
              "while time.time() < end: time.sleep(0.02)\n"
              f"open({str(count)!r}, 'w').write(str(len(got)))\n")
    pid, fd = pty.fork()
    if pid == 0:     # the child of the fork: torchenv on a terminal of its own
        os.execv(sys.executable, [sys.executable, "-m", "torchenv", "run", "-C", str(plain_venv), "--",
                                  "python", "-c", script])
    try:
        deadline = time.monotonic() + 30
        while not ready.exists():
            assert time.monotonic() < deadline, "the child never started"
            time.sleep(0.02)
        os.write(fd, b"\x03")                # Ctrl-C typed in that terminal
        _, status = os.waitpid(pid, 0)
    finally:
        os.close(fd)
    assert os.waitstatus_to_exitcode(status) == 0
    assert count.read_text() == "1", f"the child got {count.read_text()} SIGINTs for one Ctrl-C"
