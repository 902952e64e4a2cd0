"""Wall time of `torchenv plan ... --json` on an assumed machine, as a whole process (target < 0.3 s).

Why a subprocess and a `python -c pass` baseline in the same run: start-up cost is what users
feel, and the shared machine's speed varies, so the interpreter's own start-up is measured
alongside and reported as the difference too.

Bytecode: an installed torchenv (bootstrap, pip) has its .pyc; a dev checkout on a machine that
exports PYTHONDONTWRITEBYTECODE=1 (this one does) would recompile every module on every run. So
the measured process may write and reuse .pyc under a private PYTHONPYCACHEPREFIX, as an
installed torchenv would; the first (unmeasured) run writes them.

Usage: python bench/bench_plan.py [-n RUNS]
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

PLAN = ["-m", "torchenv", "plan", "--assume-os", "linux", "--assume-arch", "x86_64", "--assume-driver", "550.54.14",
        "--assume-gpu", "8.6", "--json"]
TARGET_S = 0.3


def median_wall(argv: list[str], runs: int, cwd: str, env: dict[str, str]) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, *argv], cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              env=env)
        times.append(time.perf_counter() - start)
        if proc.returncode != 0:
            sys.exit(f"{' '.join(argv)} failed ({proc.returncode}): {proc.stderr.decode()[-2000:]}")
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--runs", type=int, default=11)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as project, tempfile.TemporaryDirectory() as pycache:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = pycache                # .pyc as an installed torchenv has them
        median_wall(PLAN, 1, project, env)                  # warm the file cache, write the .pyc
        base = median_wall(["-c", "pass"], args.runs, project, env)
        plan = median_wall(PLAN, args.runs, project, env)
    verdict = "OK" if plan < TARGET_S else "OVER TARGET"
    print(f"python -c pass      median {base * 1000:7.1f} ms  ({args.runs} runs)")
    print(f"torchenv plan --json median {plan * 1000:7.1f} ms  (+{(plan - base) * 1000:.1f} ms over bare Python)")
    print(f"target < {TARGET_S * 1000:.0f} ms: {verdict}")
    return 0 if plan < TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
