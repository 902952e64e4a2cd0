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
from pathlib import Path
from typing import Callable

from .report import Check, VerifyReport

SCRIPT = Path(__file__).with_name("checks_script.py")
BEGIN = "@@torchenv-begin "
CHECK = "@@torchenv-check "
STDERR_TAIL = 2000


def script_argv(env_python: Path, config: dict) -> list[str]:
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

        argv += ["-c", files("torchenv.verify").joinpath("checks_script.py").read_text(encoding="utf-8"), "-"]
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
    env_python = Path(env_python)
    config = {"expected": dict(expected or {}), "expects_gpu": expects_gpu, "deep": deep}
    meta = {"python": str(env_python), "expected": dict(expected or {}), "expects_gpu": expects_gpu,
            "deep": deep}
    start = time.perf_counter()
    if not env_python.exists():
        check = Check("import torch", False, f"no Python interpreter at {env_python}", "error",
                      hint="create the environment with `torchenv up`")
        return VerifyReport.from_checks([check], **meta)
    kwargs: dict = {}
    if os.name == "posix":
        kwargs["start_new_session"] = True   # a timeout kills DataLoader workers too
    else:  # pragma: no cover - Windows
        kwargs["creationflags"] = getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)
    try:
        proc = subprocess.Popen(script_argv(env_python, config), env=script_env(), stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kwargs)
    except OSError as exc:
        check = Check("import torch", False, f"could not start {env_python}: {exc}", "error",
                      hint="the environment is broken; recreate it with `torchenv up`")
        return VerifyReport.from_checks([check], **meta)
    streamed: list[Check] = []
    running: list[str] = []
    stderr_lines: list[str] = []
    stdout_chunks: list[bytes] = []

    def read_stderr() -> None:
        assert proc.stderr is not None
        for raw in proc.stderr:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            if line.startswith(BEGIN):
                running.append(line[len(BEGIN):])
                if on_check:
                    on_check(running[-1], None)
            elif line.startswith(CHECK):
                try:
                    check = Check.from_json(json.loads(line[len(CHECK):]))
                except ValueError:
                    continue
                streamed.append(check)
                if on_check:
                    on_check(check.name, check)
            else:
                stderr_lines.append(line)

    def read_stdout() -> None:
        assert proc.stdout is not None
        stdout_chunks.append(proc.stdout.read())

    threads = [threading.Thread(target=read_stderr, daemon=True), threading.Thread(target=read_stdout, daemon=True)]
    for t in threads:
        t.start()
    timed_out = False
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        _kill(proc)
    except BaseException:
        _kill(proc)
        raise
    for t in threads:
        t.join(timeout=5)
    duration = time.perf_counter() - start
    result = _parse_stdout(b"".join(stdout_chunks))
    if result is not None and not timed_out and proc.returncode == 0:
        checks = [Check.from_json(c) for c in result.get("checks", [])]
        return VerifyReport.from_checks(checks, facts=result.get("facts") or {}, duration_s=duration, **meta)
    # The interpreter died or hung: keep what passed, name what was running.
    done = {c.name for c in streamed}
    current = next((n for n in reversed(running) if n not in done), None) or "import torch"
    tail = _tail(stderr_lines)
    if timed_out:
        detail = f"timed out after {timeout:g} s while running this check"
        hint = "a hung GPU or driver is the usual cause; `torchenv doctor` inspects without importing torch"
    else:
        detail = f"the interpreter died ({_describe_exit(proc.returncode)}) while running this check"
        detail += f"; stderr tail:\n{tail}" if tail else ""
        hint = "run `torchenv doctor` to diagnose the environment without importing torch"
    checks = streamed + [Check(current, False, detail, "error", hint=hint)]
    facts = {"stderr_tail": tail} if tail else {}
    return VerifyReport.from_checks(checks, facts=facts, duration_s=duration, **meta)


def _kill(proc: subprocess.Popen) -> None:
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


def _parse_stdout(data: bytes) -> dict | None:
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
