"""Run ``checks_script.py`` in the environment's interpreter and turn its output into a report.

Why a subprocess: the checks must exercise the env's own torch and CUDA libraries, and a
broken env may segfault or hang; either way torchenv stays alive and reports what passed,
what was running, and the interpreter's stderr tail.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypedDict

from .checks_script import BEGIN, CHECK, Text
from .report import Check, VerifyReport

SCRIPT = Path(__file__).with_name("checks_script.py")
STDERR_TAIL = 2000


class ScriptConfig(TypedDict):
    """The JSON argument of ``checks_script.py`` (read there by key, so the shape is fixed here)."""

    expected: dict[str, str]     # name -> version from the lock, plus ``cuda``
    expects_gpu: bool
    deep: bool


class _NewSession(TypedDict, total=False):
    """How the script is put in a process group of its own (one key per OS)."""

    start_new_session: bool
    creationflags: int


def script_argv(env_python: Path, config: ScriptConfig) -> list[str]:
    """``<python> -I [-B] <script> '<json>'``.

    Why ``-I``: a ``torch/`` folder in the project or PYTHONPATH must not shadow the env's
    torch. ``-I`` also ignores PYTHONDONTWRITEBYTECODE, so the inherited setting is passed
    on as ``-B``.
    """
    argv = [str(env_python), "-I"]
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        argv.append("-B")
    if SCRIPT.is_file():
        argv.append(str(SCRIPT))
    else:  # zipped install: ship the source instead of a path
        from importlib.resources import files

        argv += ["-c", files("torchenv.verification").joinpath("checks_script.py").read_text(encoding="utf-8"), "-"]
    return argv + [json.dumps(config)]


def script_env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("CUDA_MODULE_LOADING", "LAZY")   # load kernels on first use: faster, less memory
    return env


def run_verify(env_python: Path, *, expected: dict[str, str] | None = None, expects_gpu: bool = False,
               deep: bool = False, timeout: float = 600,
               on_check: Callable[[str, Check | None], None] | None = None) -> VerifyReport:
    """Verify the env whose interpreter is ``env_python``; never raises for a broken env.

    ``expected``: name -> version from the lock (``torch``, ``torchvision``...) plus
    ``cuda`` ("12.1", or "none" for a CPU target). ``on_check(name, None)`` is called when a
    check starts and ``on_check(name, check)`` when it ends (for a live display).
    """
    return start_verify(env_python, expected=expected, expects_gpu=expects_gpu, deep=deep, timeout=timeout,
                        on_check=on_check).result()


def start_verify(env_python: Path, *, expected: dict[str, str] | None = None, expects_gpu: bool = False,
                 deep: bool = False, timeout: float = 600,
                 on_check: Callable[[str, Check | None], None] | None = None) -> RunningVerify:
    """``run_verify`` started, not waited for: the caller does other work while ``import torch`` runs
    (2-4 s on a fresh env), then asks ``result()``, or ``stop()`` when that work failed."""
    return RunningVerify(Path(env_python), expected=dict(expected or {}), expects_gpu=expects_gpu, deep=deep,
                         timeout=timeout, on_check=on_check)


class RunningVerify:
    """The check script, running since construction; ``result()`` waits for it (once)."""

    def __init__(self, env_python: Path, *, expected: dict[str, str], expects_gpu: bool, deep: bool,
                 timeout: float, on_check: Callable[[str, Check | None], None] | None) -> None:
        config: ScriptConfig = {"expected": expected, "expects_gpu": expects_gpu, "deep": deep}
        self.meta = {"python": str(env_python), "expected": dict(expected), "expects_gpu": expects_gpu,
                     "deep": deep}
        self.timeout = timeout
        self.start = time.perf_counter()
        self.proc = _start(env_python, config)
        self.streams = None if isinstance(self.proc, Check) else _Streams(self.proc, on_check)

    def stop(self) -> None:
        """Kill the script (and its children) without a report: the run it belonged to failed."""
        if not isinstance(self.proc, Check):
            _kill(self.proc)

    def result(self) -> VerifyReport:
        meta = self.meta
        proc, streams = self.proc, self.streams
        if isinstance(proc, Check) or streams is None:
            return VerifyReport.from_checks([proc] if isinstance(proc, Check) else [], **meta)
        timed_out = _wait(proc, max(0.0, self.timeout - (time.perf_counter() - self.start)))
        streams.join()
        duration = time.perf_counter() - self.start
        result = _parse_stdout(b"".join(streams.stdout_chunks))
        if result is not None and not timed_out and proc.returncode == 0:
            checks = [Check.from_json(c) for c in result.get("checks", [])]
            return VerifyReport.from_checks(checks, facts=result.get("facts") or {}, duration_s=duration, **meta)
        # The interpreter died or hung: keep what passed, name what was running.
        tail = _tail(streams.stderr_lines)
        checks = streams.streamed + [_unfinished(streams, proc, timed_out, self.timeout, tail)]
        facts = {"stderr_tail": tail} if tail else {}
        return VerifyReport.from_checks(checks, facts=facts, duration_s=duration, **meta)


def _start(env_python: Path, config: ScriptConfig) -> subprocess.Popen[bytes] | Check:
    """The check script running in the env's interpreter, or the failed ``import torch`` check saying why not."""
    if not env_python.exists():
        return Check(Text("import torch"), False, Text("no Python interpreter at {python}", python=str(env_python)),
                     "error", hint=Text("create the environment with `torchenv up`"))
    kwargs: _NewSession = {}
    if os.name == "posix":
        kwargs["start_new_session"] = True   # a timeout kills DataLoader workers too
    else:  # pragma: no cover - Windows
        kwargs["creationflags"] = getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)
    try:
        return subprocess.Popen(script_argv(env_python, config), env=script_env(), stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kwargs)
    except OSError as exc:
        return Check(Text("import torch"), False,
                     Text("could not start {python}: {error}", python=str(env_python), error=str(exc)), "error",
                     hint=Text("the environment is broken; recreate it with `torchenv up`"))


class _Streams:
    """Reads the script's stderr (check begin/end lines, everything else kept) and stdout, each in a thread."""

    def __init__(self, proc: subprocess.Popen[bytes], on_check: Callable[[str, Check | None], None] | None) -> None:
        self.proc, self.on_check = proc, on_check
        self.streamed: list[Check] = []
        self.running: list[str] = []
        self.stderr_lines: list[str] = []
        self.stdout_chunks: list[bytes] = []
        self.threads = [threading.Thread(target=self._read_stderr, daemon=True),
                        threading.Thread(target=self._read_stdout, daemon=True)]
        for t in self.threads:
            t.start()

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for raw in self.proc.stderr:
            self._line(raw.decode("utf-8", "replace").rstrip("\n"))

    def _line(self, line: str) -> None:
        if line.startswith(BEGIN):
            self.running.append(_begun(line[len(BEGIN):]))
            if self.on_check:
                self.on_check(self.running[-1], None)
        elif line.startswith(CHECK):
            try:
                check = Check.from_json(json.loads(line[len(CHECK):]))
            except ValueError:
                return
            self.streamed.append(check)
            if self.on_check:
                self.on_check(check.name, check)
        else:
            self.stderr_lines.append(line)

    def _read_stdout(self) -> None:
        assert self.proc.stdout is not None
        self.stdout_chunks.append(self.proc.stdout.read())

    def join(self) -> None:
        for t in self.threads:
            t.join(timeout=5)

    def current(self) -> str:
        """The check that began and never ended (``import torch`` when none began)."""
        done = {c.name for c in self.streamed}
        return next((n for n in reversed(self.running) if n not in done), None) or Text("import torch")


def _begun(said: str) -> str:
    """The name a begin line gives: JSON, a ``Text``'s data or a plain name (text that is no JSON is the name)."""
    try:
        return Text.from_data(json.loads(said)) if said.startswith(("{", '"')) else said
    except (ValueError, KeyError, IndexError, TypeError):
        return said


def _wait(proc: subprocess.Popen[bytes], timeout: float) -> bool:
    """Wait for the script; ``True`` when it ran past ``timeout`` (then it and its children are killed)."""
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill(proc)
        return True
    except BaseException:
        _kill(proc)
        raise
    return False


def _unfinished(streams: _Streams, proc: subprocess.Popen[bytes], timed_out: bool, timeout: float, tail: str) -> Check:
    """The failed check for a script that hung or died, naming the check it was running."""
    if timed_out:
        detail = Text("timed out after {seconds} s while running this check", seconds=f"{timeout:g}")
        hint = Text("a hung GPU or driver is the usual cause; `torchenv doctor` inspects without importing torch")
    else:
        how = _describe_exit(proc.returncode)
        detail = Text("the interpreter died ({how}) while running this check; stderr tail:\n{tail}", how=how,
                      tail=tail) if tail else Text("the interpreter died ({how}) while running this check", how=how)
        hint = Text("run `torchenv doctor` to diagnose the environment without importing torch")
    return Check(streams.current(), False, detail, "error", hint=hint)


def _kill(proc: subprocess.Popen[bytes]) -> None:
    try:
        if os.name == "posix":
            os.killpg(proc.pid, signal.SIGKILL)
        else:  # pragma: no cover
            proc.kill()
    except (ProcessLookupError, PermissionError, OSError):
        pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:  # pragma: no cover
        pass


def _parse_stdout(data: bytes) -> dict[str, Any] | None:   # the script's JSON report
    for line in reversed(data.decode("utf-8", "replace").splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            if isinstance(obj, dict) and "checks" in obj:
                return obj
    return None


def _tail(lines: list[str]) -> str:
    text = "\n".join(line for line in lines if line.strip()).strip()
    return text[-STDERR_TAIL:]


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "no exit status"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    if sys.platform == "win32" and code > 0x7FFFFFFF:  # pragma: no cover - NTSTATUS crash codes
        return f"exit status 0x{code:08X}"
    return f"exit status {code}"
