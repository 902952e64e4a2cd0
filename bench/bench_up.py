"""Benchmark ``torchenv up`` against uv and pip installing the same files, the no-op ``up``, and disk use.

    .torchenv-dev/bin/python bench/bench_up.py [--runs 5] [--pip-runs 3] [--write docs/benchmarks.md]

(a) fresh env from an existing lock, warm caches: ``torchenv up --frozen`` (with and without
    verify) vs ``uv venv && uv pip install`` vs ``python -m venv && pip install`` of the very
    files the lock names (``--no-deps --no-index``), paired and alternated;
(b) the no-op ``torchenv up``;
(c) disk: cache + five projects with the same stack vs cache + one (``du`` counts hardlinks once).
Needs the torch 2.13.0+cpu cp311 wheel in a find-links folder of your pip configuration (or a reachable
download.pytorch.org); uv is the one torchenv depends on.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TOML = '[torch]\nversion = "2.13"\ncuda = "cpu"\npython = "3.11"\n'
VERIFY = ("import sys, pathlib; from torchenv.verify import run_verify; "
          "sys.exit(0 if run_verify(pathlib.Path('{python}'), expected={{'torch': '2.13.0+cpu', 'cuda': 'none'}}).ok else 1)")


def timed(cmd: list[str] | str, env: dict[str, str], cwd: Path | None = None) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=cwd, shell=isinstance(cmd, str), capture_output=True, text=True)
    took = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"failed: {cmd}\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    return took


def du_mib(*paths: Path) -> float:
    out = subprocess.run(["du", "-sc", "--block-size=1M", *map(str, paths)], capture_output=True, text=True).stdout
    return float(out.strip().splitlines()[-1].split()[0])


def locked_files(project: Path) -> list[str]:
    from torchenv.lock.io import read_lock
    from torchenv.sources.fetch import fetch
    from torchenv.sources.pipconfig import local_dirs, read_pip_config

    folders = local_dirs(read_pip_config().find_links)
    target = read_lock(project / "torchenv.lock").targets[0]
    files = []
    for w in target.wheels:
        local = [str(d / w.filename) for d in folders if (d / w.filename).is_file()]
        files.append(str(fetch(w.filename, w.sha256, [*local, w.url])))
    return files


def _versions(python: str, uv: str) -> str:
    """Which Python and uv ran, by version (their paths differ per machine)."""
    def first_line(cmd: list[str]) -> str:
        return subprocess.run(cmd, capture_output=True, text=True).stdout.strip().splitlines()[0]
    return f"{first_line([python, '--version'])}, {first_line([uv, '--version'])}"


def med(xs: list[float]) -> str:
    return f"{statistics.median(xs):.2f} [{min(xs):.2f}-{max(xs):.2f}]"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--pip-runs", type=int, default=3)
    ap.add_argument("--write", metavar="FILE")
    opts = ap.parse_args()
    python = shutil.which("python3.11") or sys.executable
    work = Path(tempfile.mkdtemp(prefix="torchenv-bench-"))
    env = dict(os.environ, TORCHENV_HOME=str(work / "home"))
    env.pop("UV_CACHE_DIR", None)
    # torchenv's own modules get their .pyc once (as a pip-installed torchenv has), not recompiled every run;
    # PYTHONDONTWRITEBYTECODE=1 stays in force for the uv/pip baselines.
    tenv = {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}
    tenv["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    torchenv = [sys.executable, "-m", "torchenv"]
    uv = subprocess.run([sys.executable, "-c", "import uv; print(uv.find_uv_bin())"], capture_output=True,
                        text=True).stdout.strip()
    uv_cache = work / "home" / "cache" / "uv"
    uv_env = dict(env, UV_CACHE_DIR=str(uv_cache), UV_LINK_MODE="hardlink")

    proj = work / "p0"
    proj.mkdir()
    (proj / "torchenv.toml").write_text(TOML)
    cold = timed(torchenv + ["up", "-q", "-C", str(proj)], tenv)   # cold: locks, fills the caches
    files = locked_files(proj)

    # (a) paired, alternating runs on fresh envs
    res: dict[str, list[float]] = {"up": [], "up_noverify": [], "uv": [], "pip": [], "uv_verify": []}
    for i in range(opts.runs):
        for key in ("up", "up_noverify", "uv") + (("pip",) if i < opts.pip_runs else ()):
            d = work / f"a-{key}-{i}"
            if key.startswith("up"):
                d.mkdir()
                shutil.copy(proj / "torchenv.toml", d)
                shutil.copy(proj / "torchenv.lock", d)
                flags = ["--frozen", "-q"] + (["--no-verify"] if key == "up_noverify" else [])
                res[key].append(timed(torchenv + ["up", "-C", str(d), *flags], tenv))
            elif key == "uv":
                res[key].append(timed(f"{uv} venv -q --python {python} {d} && {uv} pip install -q --python "
                                      f"{d}/bin/python --no-deps --no-index " + " ".join(files), uv_env))
                # the same verify `up` runs, on the fresh uv env (first import: no .pyc yet)
                res["uv_verify"].append(timed([sys.executable, "-c", VERIFY.format(python=f"{d}/bin/python")], env))
            else:
                res[key].append(timed(f"{python} -m venv {d} && {d}/bin/pip install -q --no-deps --no-index "
                                      + " ".join(files), env))
            if key != "up":
                shutil.rmtree(d, ignore_errors=True)
    verify_alone = [timed([sys.executable, "-c", VERIFY.format(python=f"{work}/a-up-{i}/.venv/bin/python")], env)
                    for i in range(min(3, opts.runs))]
    # (b) no-op
    noop = [timed(torchenv + ["up", "-C", str(proj)], tenv) for _ in range(10)]
    # (c) disk: cache + 1 env vs cache + 5 envs (the 5 projects of (a) with verify, plus p0)
    caches = [work / "home" / "cache"]
    one = du_mib(*caches, proj / ".venv")
    five = du_mib(*caches, proj / ".venv", *[work / f"a-up-{i}" / ".venv" for i in range(min(4, opts.runs))])
    n_five = 1 + min(4, opts.runs)

    m = {k: statistics.median(v) for k, v in res.items() if v}
    mv = statistics.median(res["uv_verify"])
    lines = [
        "| case | wall s, median [min-max] | n |",
        "|---|---|---|",
        f"| cold first `torchenv up` (lock + fill caches + verify) | {cold:.2f} | 1 |",
        f"| `torchenv up --frozen` (fresh env, warm cache, incl. verify) | {med(res['up'])} | {len(res['up'])} |",
        f"| `torchenv up --frozen --no-verify` | {med(res['up_noverify'])} | {len(res['up_noverify'])} |",
        f"| `uv venv` + `uv pip install --no-deps` same files | {med(res['uv'])} | {len(res['uv'])} |",
        f"| `python -m venv` + `pip install --no-deps` same files | {med(res['pip'])} | {len(res['pip'])} |",
        f"| verify of the fresh uv env (`run_verify`, first import) | {med(res['uv_verify'])} | {len(res['uv_verify'])} |",
        f"| verify again (`run_verify`, .pyc written by up's verify) | {med(verify_alone)} | {len(verify_alone)} |",
        f"| no-op `torchenv up` | {med(noop)} | {len(noop)} |",
        "",
        f"- up (no verify) / uv: **{m['up_noverify'] / m['uv']:.2f}x**; up (with verify) / (uv + verify of that env): "
        f"**{m['up'] / (m['uv'] + mv):.2f}x**; pip / up (with verify): {m['pip'] / m['up']:.1f}x",
        f"- no-op up: **{statistics.median(noop):.3f} s** (target < 0.5 s)",
        f"- disk, torchenv cache + 1 env: {one:.0f} MiB; cache + {n_five} envs: {five:.0f} MiB: "
        f"**{five / one:.2f}x** (target < 1.2x)",
    ]
    text = "\n".join(lines)
    print(text)
    if opts.write:
        path = Path(opts.write)
        head = path.read_text().split("<!-- bench_up results -->")[0] if path.exists() else ""
        path.write_text(head + "<!-- bench_up results -->\n" + f"Measured {time.strftime('%Y-%m-%d %H:%M')}, "
                        f"`{' '.join(sys.argv)}`, {_versions(python, uv)}:\n\n" + text + "\n")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
