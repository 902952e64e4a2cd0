"""Benchmark every path of ``torchenv up`` against uv (and pip) doing the same work, in one run.

    .torchenv-dev/bin/python bench/bench_up.py [--runs 5] [--cold-runs 3] [--pip-runs 3] [--write docs/benchmarks.md]

Every torchenv run is paired with the uv run doing the same work, in ABBA order (AB, BA, AB, ...),
so the load of a shared machine falls on both alike; the ratio is of the medians. Before each cold
run the write-back of the run before is flushed (``os.sync``): left in the page cache, the gigabytes
one cold run unpacked are written out during the next and swung the ratio from 1.0x to 1.6x.

(cold) empty caches, no env, no lock: ``up --no-verify`` vs ``uv venv`` + ``uv pip install torch==...``
       from the same sources (the plan's index, extra indexes, find-links, constraints);
(a) fresh env from an existing lock, warm caches: ``torchenv up --frozen`` (with and without
    verify) vs ``uv venv && uv pip install`` vs ``python -m venv && pip install`` of the very
    files the lock names (``--no-deps --no-index``), and ``front_end_floor.py``: the least any Python
    command can do for this path (start, read the lock, the same two uv commands, a state file);
(b) the no-op ``torchenv up`` vs ``uv pip sync`` of the same files into the same env;
(c) disk: cache + five projects with the same stack vs cache + one (``du`` counts hardlinks once);
(d) a project-sized stack (60+ packages: an LLM / vision project's requirements.txt) from a local
    wheelhouse only (``pip download``ed from PyPI once, kept in the user's cache folder): cold,
    warm and no-op, each against uv;
(e) the CUDA stack (``cuda = "cu130"``: torch 2.14.1 + numpy and the nvidia-* wheels, a ~5 GB env)
    from the sources of the user's pip configuration (the files it names; ``--no-cuda`` skips it):
    cold, warm and no-op, each against uv.
Every uv baseline creates its venv from the interpreter's real path (as torchenv does; a pyenv shim
would cost uv ~0.13 s per venv) and installs pip's wheel with the files (torchenv seeds every venv with it).
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
CUDA_TOML = '[torch]\nversion = "2.14"\ncuda = "cu130"\npython = "3.11"\n'
VERIFY = ("import sys, pathlib; from torchenv.verification import run_verify; "
          "sys.exit(0 if run_verify(pathlib.Path('{python}'), expected={{'torch': '2.13.0+cpu', 'cuda': 'none'}}).ok else 1)")


def timed(cmd: list[str] | str, env: dict[str, str], cwd: Path | None = None) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=cwd, shell=isinstance(cmd, str), capture_output=True, text=True)
    took = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"failed: {cmd}\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    return took


def real_interpreter(python: str) -> str:
    """The interpreter itself, as torchenv hands it to ``uv venv``, not a launcher in front of it.

    Why: a pyenv shim (``~/.pyenv/shims/python3.11``) is a shell script that runs ``pyenv`` on every
    start; given it, ``uv venv`` spends ~0.13 s in the shim, which torchenv (it finds the real
    binary) never pays. The baseline must create the same venv from the same binary.
    """
    out = subprocess.run([python, "-c", "import sys; print(sys.executable)"], capture_output=True, text=True)
    return os.path.realpath(out.stdout.strip() or python)


def _pip_seed() -> str:
    """pip's wheel, which torchenv installs into every venv beside the locked files (``engines/seed.py``):
    the uv baseline installs it too, so both do the same work and hold the same packages."""
    from torchenv.engines.seed import pip_wheel

    found = pip_wheel("3.11")
    if found is None:
        raise SystemExit("virtualenv's bundled pip wheel is missing: install torchenv with its dependencies")
    return str(found[0])


SEED = _pip_seed()
FLOOR = Path(__file__).with_name("front_end_floor.py")


def du_mib(*paths: Path) -> float:
    out = subprocess.run(["du", "-sc", "--block-size=1M", *map(str, paths)], capture_output=True, text=True).stdout
    return float(out.strip().splitlines()[-1].split()[0])


def locked_files(project: Path, folders: list[Path] | None = None) -> list[str]:
    from torchenv.lockfile.io import read_lock
    from torchenv.sources.fetch import fetch
    from torchenv.sources.pipconfig import local_dirs, read_pip_config

    folders = folders if folders is not None else local_dirs(read_pip_config().find_links)
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


# A typical LLM / vision project's own requirements (torch comes from torchenv.toml).
PROJECT_REQUIREMENTS = ("transformers", "accelerate", "datasets", "safetensors", "sentencepiece", "tokenizers",
                        "peft", "scipy", "scikit-learn", "pandas", "matplotlib", "pillow", "opencv-python-headless",
                        "tqdm", "pyyaml", "requests", "fastapi", "uvicorn", "pydantic", "einops", "rich")


def pair(runs: int, a, b) -> tuple[list[float], list[float]]:
    """``runs`` pairs of ``a(i)`` and ``b(i)``, each returning seconds, in ABBA order (AB, BA, AB, BA, ...):
    each side runs first as often as second, so a drift in the machine's load falls on both."""
    xs, ys = [], []
    for i in range(runs):
        first, second = (a, b) if i % 2 == 0 else (b, a)
        t1, t2 = first(i), second(i)
        xs.append(t1 if first is a else t2)
        ys.append(t2 if first is a else t1)
    return xs, ys


def rotate(runs: int, *fns) -> tuple[list[float], ...]:
    """``runs`` rounds of every ``fn(i)``, each round starting one further along (ABC, BCA, CAB, ...)."""
    out: list[list[float]] = [[] for _ in fns]
    for i in range(runs):
        for k in range(len(fns)):
            j = (i + k) % len(fns)
            out[j].append(fns[j](i))
    return tuple(out)


def ratio(xs: list[float], ys: list[float]) -> float:
    return statistics.median(xs) / statistics.median(ys)


def paired_extra(xs: list[float], ys: list[float]) -> float:
    """The median of the round-by-round differences ``xs[i] - ys[i]``: what the one costs over the other.

    Why beside the ratio: both runs of a round meet the same state of the machine, so the difference
    holds when the whole machine slows down; the ratio of medians does not (on a 2-core VM the same warm
    commands took 0.4 s in one run of the bench and 0.8 s in the next, and a fixed cost moved from 24% to 12%).
    """
    return statistics.median(x - y for x, y in zip(xs, ys))


def plan_json(torchenv: list[str], proj: Path, env: dict[str, str]) -> dict:
    import json

    out = subprocess.run(torchenv + ["plan", "--json", "-C", str(proj)], env=env, capture_output=True, text=True)
    return json.loads(out.stdout)


def uv_requirements(torchenv: list[str], proj: Path, env: dict[str, str]) -> str:
    """What the uv baseline installs for a stack: the plan's exact torch and its import needs (numpy), which
    torchenv locks beside torch, and pip's wheel (the seed every torchenv venv gets)."""
    plan = plan_json(torchenv, proj, env)
    return " ".join([f"torch=={plan['torch']}", *plan.get("import_requirements", []), SEED])


def plan_sources(torchenv: list[str], proj: Path, env: dict[str, str]) -> list[str]:
    """uv/pip flags for the very sources the plan chose (what the uv baseline must use to do the same work)."""
    pypi = plan_json(torchenv, proj, env)["sources"]["pypi"]
    flags = ["--no-index"] if not pypi.get("index_url") and not pypi["extra_index_urls"] else []
    if pypi.get("index_url"):
        flags += ["--index-url", pypi["index_url"]]
    for url in pypi["extra_index_urls"]:
        flags += ["--extra-index-url", url]
    for link in pypi["find_links"]:
        flags += ["--find-links", link]
    for c in pypi["constraints"]:
        flags += ["--constraint", c]
    return flags + ["--index-strategy", "unsafe-best-match"]


def wheelhouse(python: str) -> Path:
    """The project-sized stack's wheels, ``pip download``ed once into the user's cache folder (PyPI + pip config)."""
    import hashlib

    key = hashlib.sha256("\n".join(PROJECT_REQUIREMENTS).encode()).hexdigest()[:12]
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    folder = base / "torchenv-bench" / f"wheelhouse-{key}"
    if not (folder / ".complete").exists():
        folder.mkdir(parents=True, exist_ok=True)
        subprocess.run([python, "-m", "pip", "download", "-q", "--only-binary", ":all:", "-d", str(folder),
                        "torch==2.13.0+cpu", *PROJECT_REQUIREMENTS], check=True)
        (folder / ".complete").write_text("")
    return folder


class Bench:
    """Fresh folders, environments and commands for one benchmark run."""

    def __init__(self, work: Path, python: str, uv: str, env: dict[str, str]) -> None:
        self.work, self.python, self.uv, self.env = work, python, uv, env
        # torchenv's own modules get their .pyc once (as a pip-installed torchenv has), not recompiled every run;
        # PYTHONDONTWRITEBYTECODE=1 stays in force for the uv/pip baselines.
        self.tenv = {k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"}
        self.tenv["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
        self.torchenv = [sys.executable, "-m", "torchenv"]
        self.count = 0

    def fresh(self, name: str) -> Path:
        self.count += 1
        d = self.work / f"{name}-{self.count}"
        d.mkdir(parents=True)
        return d

    def project(self, name: str, requirements: str = "", lock_from: Path | None = None, toml: str = TOML) -> Path:
        d = self.fresh(name)
        (d / "torchenv.toml").write_text(toml)
        if requirements:
            (d / "requirements.txt").write_text(requirements)
        if lock_from is not None:
            shutil.copy(lock_from / "torchenv.lock", d)
        return d

    def up(self, proj: Path, *flags: str, home: Path | None = None, extra: dict | None = None) -> float:
        env = dict(self.tenv, TORCHENV_HOME=str(home or self.work / "home"), **(extra or {}))
        return timed(self.torchenv + ["up", "-q", "-C", str(proj), *flags], env)

    def uv_env(self, cache: Path | None = None, extra: dict | None = None) -> dict[str, str]:
        return dict(self.env, UV_CACHE_DIR=str(cache or self.work / "home" / "cache" / "uv"),
                    UV_LINK_MODE="hardlink", **(extra or {}))

    def uv_install(self, target: Path, args: str, env: dict[str, str]) -> float:
        return timed(f"{self.uv} venv -q --python {self.python} {target} && {self.uv} pip install -q --python "
                     f"{target}/bin/python {args}", env)

    def cold(self, runs: int, requirements: str, uv_args: str, extra: dict | None = None,
             toml: str = TOML) -> tuple[list, list]:
        """Empty caches, no env, no lock: ``up --no-verify`` vs ``uv venv`` + ``uv pip install`` (own empty caches).

        Each run starts with the write-back flushed (``os.sync``, not timed) and its folders are removed
        after it (not timed either): a CUDA stack's run leaves ~5 GB of cache and env.
        """
        def ours(_i: int) -> float:
            proj, home = self.project("cold", requirements, toml=toml), self.fresh("home")
            os.sync()
            took = self.up(proj, "--no-verify", home=home, extra=extra)
            shutil.rmtree(proj, ignore_errors=True)
            shutil.rmtree(home, ignore_errors=True)
            return took

        def theirs(_i: int) -> float:
            target, cache = self.fresh("uvcold"), self.fresh("uvcache")
            os.sync()
            took = self.uv_install(target / "venv", uv_args, self.uv_env(cache, extra))
            shutil.rmtree(target, ignore_errors=True)
            shutil.rmtree(cache, ignore_errors=True)
            return took
        return pair(runs, ours, theirs)

    def warm(self, runs: int, proj: Path, files: list[str], extra: dict | None = None,
             verify: bool = False) -> tuple[list, list, list]:
        """A fresh env from an existing lock, warm caches: ``up --frozen --no-verify`` vs uv of the lock's files,
        and the least a Python command can do for it (``front_end_floor.py``), rotated.

        Each run starts with the write-back flushed (``os.sync``, not timed), as a cold run does: removing the
        last run's env (thousands of hardlinks) and the cold runs before left work for the disk that landed on
        whichever run came next, and the same three commands took 0.4 s alone and 0.9-1.2 s here.
        """
        def ours(_i: int) -> float:
            d = self.project("warm", (proj / "requirements.txt").read_text()
                             if (proj / "requirements.txt").exists() else "", lock_from=proj,
                             toml=(proj / "torchenv.toml").read_text())
            os.sync()
            took = self.up(d, "--frozen", *(() if verify else ("--no-verify",)), extra=extra)
            shutil.rmtree(d, ignore_errors=True)
            return took

        def theirs(_i: int) -> float:
            d = self.fresh("uvwarm") / "venv"
            os.sync()
            took = self.uv_install(d, "--no-deps --no-index " + " ".join(files), self.uv_env(extra=extra))
            shutil.rmtree(d.parent, ignore_errors=True)
            return took

        listed = self.work / f"files-{proj.name}.txt"
        listed.write_text("\n".join(files) + "\n")

        def floor(_i: int) -> float:
            d = self.fresh("floor") / "venv"
            os.sync()
            took = timed([sys.executable, str(FLOOR), str(proj / "torchenv.lock"), str(listed), str(d), self.uv,
                          self.python], self.uv_env(extra=extra))
            shutil.rmtree(d.parent, ignore_errors=True)
            return took
        return rotate(runs, ours, theirs, floor)

    def noop(self, runs: int, proj: Path, files: list[str], extra: dict | None = None) -> tuple[list, list]:
        """The env already matches: ``up`` on the project's env vs ``uv pip sync`` of the same files into an
        env uv made from them (each tool checks an env it made itself; syncing uv's list into torchenv's env
        would re-install packages whose recorded file URL differs, and each tool would then undo the other)."""
        reqs = self.work / f"sync-{proj.name}.txt"
        reqs.write_text("\n".join(files) + "\n")
        target = self.fresh("uvnoop") / "venv"
        self.uv_install(target, "--no-deps --no-index " + " ".join(files), self.uv_env(extra=extra))
        self.up(proj, extra=extra)   # the first no-op after an install runs the full check and leaves its stamp
        sync = f"{self.uv} pip sync -q --no-index --python {target}/bin/python {reqs}"
        return pair(runs, lambda _i: self.up(proj, extra=extra),
                    lambda _i: timed(sync, self.uv_env(extra=extra)))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--cold-runs", type=int, default=3)
    ap.add_argument("--pip-runs", type=int, default=3)
    ap.add_argument("--noop-runs", type=int, default=10)
    ap.add_argument("--no-project", action="store_true", help="skip the project-sized stack (d)")
    ap.add_argument("--no-cuda", action="store_true", help="skip the CUDA stack (e)")
    ap.add_argument("--write", metavar="FILE")
    ap.add_argument("--cold-only", action="store_true",
                    help="only the cold pair (--cold-runs of each, ABBA), printed as medians; nothing written")
    ap.add_argument("--warm-only", action="store_true",
                    help="only the warm triple (--runs of each, rotated), printed as medians; nothing written")
    ap.add_argument("--stack", "--cold-stack", dest="stack", choices=["cpu", "cuda"], default="cpu",
                    help="the stack --cold-only or --warm-only measures")
    opts = ap.parse_args()
    python = real_interpreter(shutil.which("python3.11") or sys.executable)
    work = Path(tempfile.mkdtemp(prefix="torchenv-bench-"))
    env = dict(os.environ, TORCHENV_HOME=str(work / "home"))
    env.pop("UV_CACHE_DIR", None)
    uv = subprocess.run([sys.executable, "-c", "import uv; print(uv.find_uv_bin())"], capture_output=True,
                        text=True).stdout.strip()
    b = Bench(work, python, uv, env)
    toml = CUDA_TOML if opts.stack == "cuda" else TOML
    if opts.cold_only:
        return cold_only(b, opts.cold_runs, work, toml)
    if opts.warm_only:
        return warm_only(b, opts.runs, work, toml)
    house = None if opts.no_project else wheelhouse(sys.executable)

    proj = b.project("p0")
    cold = b.up(proj)   # the first `up` with verify: locks, fills the caches
    files = locked_files(proj) + [SEED]
    torch_args = " ".join(plan_sources(b.torchenv, proj, b.tenv)) + " " + uv_requirements(b.torchenv, proj, b.tenv)
    res: dict[str, list[float]] = {}
    res["cold_up"], res["cold_uv"] = b.cold(opts.cold_runs, "", torch_args)

    # (a) warm: paired, alternating runs on fresh envs, with verify too, and pip on the same files
    res["up_noverify"], res["uv"], res["floor"] = b.warm(opts.runs, proj, files)
    res["up"], res["uv_verify"] = [], []
    for i in range(opts.runs):
        d = b.project("a-up", lock_from=proj)
        res["up"].append(b.up(d, "--frozen"))
        u = b.fresh("a-uv") / "venv"
        b.uv_install(u, "--no-deps --no-index " + " ".join(files), b.uv_env())
        # the same verify `up` runs, on the fresh uv env (first import: no .pyc yet)
        res["uv_verify"].append(timed([sys.executable, "-c", VERIFY.format(python=f"{u}/bin/python")], env))
        shutil.rmtree(u.parent, ignore_errors=True)
        if i < opts.pip_runs:
            p = b.fresh("a-pip") / "venv"
            res.setdefault("pip", []).append(
                timed(f"{python} -m venv {p} && {p}/bin/pip install -q --no-deps --no-index "
                      + " ".join(f for f in files if f != SEED), env))   # the venv has its own pip
            shutil.rmtree(p.parent, ignore_errors=True)
    up_envs = sorted(work.glob("a-up-*"), key=lambda p: int(p.name.rsplit("-", 1)[1]))
    verify_alone = [timed([sys.executable, "-c", VERIFY.format(python=f"{d}/.venv/bin/python")], env)
                    for d in up_envs[:3]]
    # (b) no-op
    res["noop_up"], res["noop_uv"] = b.noop(opts.noop_runs, proj, files)
    # (c) disk: cache + 1 env vs cache + 5 envs (4 of the projects of (a), plus p0)
    caches = [work / "home" / "cache"]
    one = du_mib(*caches, proj / ".venv")
    five = du_mib(*caches, proj / ".venv", *[d / ".venv" for d in up_envs[:4]])
    n_five = 1 + len(up_envs[:4])
    # (d) the project-sized stack, from the wheelhouse only
    big = {}
    if house is not None:
        only_house = {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(house), "PIP_EXTRA_INDEX_URL": "",
                      "PIP_INDEX_URL": ""}
        reqs = "".join(f"{r}\n" for r in PROJECT_REQUIREMENTS)
        bigproj = b.project("big", reqs)
        b.up(bigproj, "--no-verify", extra=only_house)
        big_files = locked_files(bigproj, [house]) + [SEED]
        uv_args = f"--no-index --find-links {house} torch==2.13.0+cpu {SEED} " + " ".join(PROJECT_REQUIREMENTS)
        big["n"] = len(big_files)
        big["cold_up"], big["cold_uv"] = b.cold(opts.cold_runs, reqs, uv_args, only_house)
        big["warm_up"], big["warm_uv"], big["warm_floor"] = b.warm(opts.cold_runs, bigproj, big_files, only_house)
        big["noop_up"], big["noop_uv"] = b.noop(opts.noop_runs, bigproj, big_files, only_house)
    cuda = {} if opts.no_cuda else cuda_stack(b, opts)

    text = report(res, big, cold, verify_alone, (one, five, n_five), cuda)
    print(text)
    if opts.write:
        from bench_download import write_section

        write_section(Path(opts.write), f"{MARK}\nMeasured {time.strftime('%Y-%m-%d %H:%M')}, `{' '.join(sys.argv)}`, "
                      f"{_versions(python, uv)}:\n\n" + text + "\n" + MARK.replace("results", "end"),
                      MARK, "`torchenv up` against uv (`bench/bench_up.py`)")
    shutil.rmtree(work, ignore_errors=True)
    return 0


MARK = "<!-- bench_up results -->"


def cuda_stack(b: Bench, opts: argparse.Namespace) -> dict:
    """(e) The CUDA stack from the user's pip sources: cold, warm and no-op, each against uv doing the same work.

    Why its own rows: a ~5 GB env is bound by unpacking and writing, not by resolving; the small CPU
    stack's ratios say nothing about it.
    """
    proj = b.project("cuda", toml=CUDA_TOML)
    b.up(proj, "--no-verify")      # locks, fills the caches (no GPU needed)
    files = locked_files(proj) + [SEED]
    args = " ".join(plan_sources(b.torchenv, proj, b.tenv)) + " " + uv_requirements(b.torchenv, proj, b.tenv)
    out: dict = {"n": len(files)}
    out["cold_up"], out["cold_uv"] = b.cold(opts.cold_runs, "", args, toml=CUDA_TOML)
    out["warm_up"], out["warm_uv"], out["warm_floor"] = b.warm(opts.cold_runs, proj, files)
    out["noop_up"], out["noop_uv"] = b.noop(opts.noop_runs, proj, files)
    return out


def cold_only(b: Bench, runs: int, work: Path, toml: str) -> int:
    """The cold pair alone: what a change to the cold path is measured with, in minutes, not the whole bench."""
    proj = b.project("p0", toml=toml)
    torch_args = " ".join(plan_sources(b.torchenv, proj, b.tenv)) + " " + uv_requirements(b.torchenv, proj, b.tenv)
    ours, theirs = b.cold(runs, "", torch_args, toml=toml)
    print(f"cold `up --no-verify`: {med(ours)} s; `uv venv` + `uv pip install`: {med(theirs)} s; "
          f"ratio of medians {ratio(ours, theirs):.2f}x")
    shutil.rmtree(work, ignore_errors=True)
    return 0


def warm_only(b: Bench, runs: int, work: Path, toml: str) -> int:
    """The warm triple alone (torchenv, uv, the Python floor), after one ``up`` that locks and fills the caches."""
    proj = b.project("p0", toml=toml)
    b.up(proj, "--no-verify")
    ours, theirs, floor = b.warm(runs, proj, locked_files(proj) + [SEED])
    print(f"warm `up --frozen --no-verify`: {med(ours)} s; uv: {med(theirs)} s; floor: {med(floor)} s; "
          f"over the floor {ratio(ours, floor):.2f}x ({paired_extra(ours, floor):+.3f} s a round), "
          f"over uv {ratio(ours, theirs):.2f}x")
    shutil.rmtree(work, ignore_errors=True)
    return 0


def stack_rows(label: str, st: dict) -> list[tuple[str, list[float]]]:
    """The measured rows of a stack of (d)/(e): cold, warm (with the floor) and no-op, torchenv then uv."""
    return [(f"{label} cold: `up --no-verify`", st["cold_up"]),
            (f"{label} cold: `uv venv` + `uv pip install`, same sources, empty cache", st["cold_uv"]),
            (f"{label} warm: `up --frozen --no-verify`", st["warm_up"]),
            (f"{label} warm: `uv venv` + `uv pip install --no-deps` of the lock's files", st["warm_uv"]),
            (f"{label} warm: `bench/front_end_floor.py`", st["warm_floor"]),
            (f"{label} no-op: `torchenv up`", st["noop_up"]),
            (f"{label} no-op: `uv pip sync`", st["noop_uv"])]


def stack_ratios(label: str, st: dict) -> list[str]:
    """The ratio rows of a stack, each against uv doing the same work in the same run (warm: against the floor)."""
    return [f"| {label} cold | **{ratio(st['cold_up'], st['cold_uv']):.2f}x** | <= 1.1x |",
            f"| {label} warm, over the Python floor | **{ratio(st['warm_up'], st['warm_floor']):.2f}x** | <= 1.1x |",
            f"| {label} warm, torchenv's own time over the floor (median of the rounds' differences) | "
            f"{paired_extra(st['warm_up'], st['warm_floor']):+.3f} s | |",
            f"| {label} warm, over uv | {ratio(st['warm_up'], st['warm_uv']):.2f}x | |",
            f"| {label} warm, the floor over uv | {ratio(st['warm_floor'], st['warm_uv']):.2f}x | |",
            f"| {label} no-op | **{ratio(st['noop_up'], st['noop_uv']):.2f}x** | <= 1.5x |"]


def report(res: dict, big: dict, cold: float, verify_alone: list[float], disk: tuple[float, float, int],
           cuda: dict | None = None) -> str:
    m = {k: statistics.median(v) for k, v in res.items() if v}
    one, five, n_five = disk
    cpu = {"cold_up": res["cold_up"], "cold_uv": res["cold_uv"], "warm_up": res["up_noverify"], "warm_uv": res["uv"],
           "warm_floor": res["floor"], "noop_up": res["noop_up"], "noop_uv": res["noop_uv"]}
    stacks = [("CPU stack", cpu)]
    stacks += [(f"project ({big['n']} packages)", big)] if big else []
    stacks += [(f"CUDA stack ({cuda['n']} packages)", cuda)] if cuda else []
    rows = [row for label, st in stacks for row in stack_rows(label, st)]
    rows += [
        ("CPU stack `torchenv up --frozen` (fresh env, warm cache, incl. verify)", res["up"]),
        ("`python -m venv` + `pip install --no-deps` same files", res.get("pip", [])),
        ("verify of the fresh uv env (`run_verify`, first import)", res["uv_verify"]),
        ("verify again (`run_verify`, .pyc written by up's verify)", verify_alone),
    ]
    lines = ["| case | wall s, median [min-max] | n |", "|---|---|---|",
             f"| first `torchenv up` with verify (lock + fill caches + verify) | {cold:.2f} | 1 |"]
    lines += [f"| {name} | {med(xs)} | {len(xs)} |" for name, xs in rows if xs]
    lines += ["", "| path | torchenv / uv (medians, same run) | target |", "|---|---|---|"]
    lines += [line for label, st in stacks for line in stack_ratios(label, st)]
    verify_cost = m["up"] - m["up_noverify"]
    lines += ["",
              f"- verify on a warm cache (`up --frozen` with verify, less without; the `.pyc` lent from the cache): "
              f"**{verify_cost:.2f} s** (target <= 1.2 s)",
              f"- up (with verify) / (uv + verify of that env): **{m['up'] / (m['uv'] + m['uv_verify']):.2f}x**"
              + (f"; pip / up (with verify): {m['pip'] / m['up']:.1f}x" if "pip" in m else ""),
              f"- no-op up: **{m['noop_up']:.3f} s** (target < 0.5 s)",
              f"- disk, torchenv cache + 1 env: {one:.0f} MiB; cache + {n_five} envs: {five:.0f} MiB: "
              f"**{five / one:.2f}x** (target < 1.2x)"]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
