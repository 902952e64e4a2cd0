"""Benchmark torchenv's ranged multi-mirror download against one connection and uv, on throttled loopback mirrors.

    python bench/bench_download.py [--size-mb 300] [--rate-mb 2] [--write docs/benchmarks.md]

Three loopback "mirrors" (127.0.0.1) serve the same generated wheel (``--size-mb``, random bytes,
stored uncompressed) and a PEP 503 page for it, each throttled **per connection** to
``--rate-mb`` MB/s, as mirrors in China throttle. Cases, each in a fresh process:

(a) one connection: a plain GET of the file from one mirror, hashed while it streams (what
    torchenv did before, and what pip does);
(b) ``torchenv.sources.fetch.fetch`` given the three mirrors' URLs (ranged chunks, all mirrors);
(c) ``uv pip install --no-deps --target`` of the same wheel through the index on one mirror
    (uv's own download; it also unpacks the wheel);
(d) (b) killed with SIGKILL once 40% is on disk, then run again: bytes fetched twice;
(e) (b) with one mirror serving one chunk with flipped bytes;
(f) the paths that must not get slower, HEAD against the commit it branched from (``--base``), both unpacked
    on the same filesystem, in the same run, alternating:
    importing what the no-op ``torchenv up`` imports, and a warm-cache ``fetch`` (file already cached).
The servers stop when the script ends; every wait is bounded.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.rangeserver import serve_ranges  # noqa: E402

NAME = "benchblob-1.0-py3-none-any.whl"
MARK = "<!-- bench_download results -->"

FETCH = """
import sys, time
from pathlib import Path
from torchenv.sources.fetch import fetch
class Ui:
    def warn(self, text): print("warning:", text, file=sys.stderr, flush=True)
    def progress(self, description, total=None, *, bytes_=False):
        from contextlib import nullcontext
        return nullcontext(lambda n=1, total=None: None)
t = time.perf_counter()
fetch({name!r}, {sha!r}, {urls!r}, ui=Ui(), cache=Path({cache!r}))
print(time.perf_counter() - t)
"""

ONE_CONNECTION = """
import hashlib, sys, time, urllib.request
t = time.perf_counter()
h = hashlib.sha256()
with urllib.request.urlopen({url!r}) as resp:
    for block in iter(lambda: resp.read(1 << 20), b""):
        h.update(block)
assert h.hexdigest() == {sha!r}
print(time.perf_counter() - t)
"""


def make_wheel(folder: Path, size: int) -> tuple[Path, str]:
    """A valid wheel whose one data file holds ``size`` random bytes (stored, so the wheel is that big)."""
    path = folder / NAME
    meta = "Metadata-Version: 2.1\nName: benchblob\nVersion: 1.0\n"
    wheel = "Wheel-Version: 1.0\nGenerator: bench\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as z:
        with z.open("benchblob/blob.bin", "w", force_zip64=True) as f:
            for _ in range(size >> 20):
                f.write(os.urandom(1 << 20))
        z.writestr("benchblob/__init__.py", "")
        z.writestr("benchblob-1.0.dist-info/METADATA", meta)
        z.writestr("benchblob-1.0.dist-info/WHEEL", wheel)
        z.writestr("benchblob-1.0.dist-info/RECORD", "")
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return path, h.hexdigest()


def run_py(code: str, *, env: dict[str, str], timeout: float) -> tuple[float, str]:
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise SystemExit(f"failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}")
    return float(proc.stdout.strip().splitlines()[-1]), proc.stderr


def sent(mirrors) -> int:
    return sum(m.sent for m in mirrors)


def kill_and_resume(code: str, env: dict[str, str], cache: Path, size: int, mirrors, timeout: float) -> dict:
    before = sent(mirrors)
    proc = subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    have, deadline = 0, time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            sidecar = next(cache.rglob(".ranged-*.json"))
            have = sum(json.loads(sidecar.read_text())["have"].values())
        except (StopIteration, ValueError, OSError):
            have = 0
        if have >= size * 0.4:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
    first = sent(mirrors) - before
    took, _ = run_py(code, env=env, timeout=timeout)
    second = sent(mirrors) - before - first
    return {"killed_at": have, "first": first, "second": second, "resume_s": took}


def tree_at(commit: str, folder: Path) -> Path:
    """``src`` of ``commit``, unpacked under ``folder``."""
    folder.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "src/torchenv"], capture_output=True,
                             check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder / "src"


def paths_compared(trees: dict[str, Path], cache: Path, sha: str, runs: int) -> dict[str, tuple[float, float]]:
    """Median seconds per tree: importing the no-op ``up`` path, and one warm-cache ``fetch`` (each a fresh
    process). Runs alternate between the trees, so load on a shared machine hits both alike."""
    imp = ("import time; t = time.perf_counter(); import torchenv.cli, torchenv.flows.up, torchenv.flows.noop, "
           "torchenv.ui; print(time.perf_counter() - t)")
    warm = (f"import time; from pathlib import Path; from torchenv.sources.fetch import fetch\n"
            f"t = time.perf_counter(); fetch({NAME!r}, {sha!r}, ['http://127.0.0.1:9/x'], cache=Path({str(cache)!r}))\n"
            f"print(time.perf_counter() - t)")
    base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}   # .pyc, as when installed
    envs = {name: {**base, "PYTHONPATH": str(src), "PYTHONPYCACHEPREFIX": str(src.parent / "pycache")}
            for name, src in trees.items()}
    for env in envs.values():      # warm-up: writes each tree's .pyc and the cache's hash record
        run_py(imp, env=env, timeout=60)
        run_py(warm, env=env, timeout=60)
    seen: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in trees}
    for _ in range(runs):
        for name, env in envs.items():
            seen[name][0].append(run_py(imp, env=env, timeout=60)[0])
            seen[name][1].append(run_py(warm, env=env, timeout=60)[0])
    return {name: (statistics.median(a), statistics.median(b)) for name, (a, b) in seen.items()}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size-mb", type=int, default=300)
    ap.add_argument("--rate-mb", type=float, default=2.0)
    ap.add_argument("--runs", type=int, default=11, help="runs of the no-op/warm-cache comparison")
    ap.add_argument("--base", default="main", help="compare the no-op/warm-cache paths with where HEAD left this")
    ap.add_argument("--uv", default=str(Path(sys.executable).with_name("uv")))
    ap.add_argument("--write", type=Path)
    args = ap.parse_args()
    rate, size_hint = args.rate_mb * 1e6, args.size_mb << 20
    timeout = 10 * size_hint / rate + 120
    with tempfile.TemporaryDirectory(prefix="bench-download-") as tmp_name, ExitStack() as stack:
        tmp = Path(tmp_name)
        whl, sha = make_wheel(tmp, size_hint)
        size = whl.stat().st_size
        page = f'<a href="../../files/{NAME}#sha256={sha}">{NAME}</a>'.encode()
        files, pages = {f"files/{NAME}": whl}, {"simple/benchblob/": page}
        honest = [stack.enter_context(serve_ranges(files, pages=pages, rate=rate)) for _ in range(3)]
        env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
        env.update(PYTHONPATH=str(ROOT / "src"), TORCHENV_HOME=str(tmp / "home"))
        urls = [f"{m.url}/files/{NAME}" for m in honest]
        out: dict = {"size": size, "rate": rate}

        out["one_s"], _ = run_py(ONE_CONNECTION.format(url=urls[0], sha=sha), env=env, timeout=timeout)
        print(f"one connection: {out['one_s']:.1f} s", flush=True)
        code = FETCH.format(name=NAME, sha=sha, urls=urls, cache=str(tmp / "c1"))
        out["torchenv_s"], _ = run_py(code, env=env, timeout=timeout)
        print(f"torchenv: {out['torchenv_s']:.1f} s", flush=True)

        uv = [args.uv, "pip", "install", "--no-deps", "--no-config", "--quiet", "--target", str(tmp / "uvt"),
              "--cache-dir", str(tmp / "uvc"), "--index-url", f"{honest[0].url}/simple", "benchblob==1.0"]
        t = time.perf_counter()
        proc = subprocess.run(uv, env=env, capture_output=True, text=True, timeout=timeout)
        out["uv_s"] = time.perf_counter() - t if proc.returncode == 0 else None
        print(f"uv: {out['uv_s']} {proc.stderr[-500:]}", flush=True)

        from torchenv.sources.ranged import CHUNK_BYTES

        code = FETCH.format(name=NAME, sha=sha, urls=urls, cache=str(tmp / "c2"))
        out["resume"] = kill_and_resume(code, env, tmp / "c2", size, honest, timeout)
        print(f"kill/resume: {out['resume']}", flush=True)

        liar = stack.enter_context(serve_ranges(files, rate=rate, lie=1))
        lying = [urls[0], f"{liar.url}/files/{NAME}", urls[2]]
        out["lie_s"], said = run_py(FETCH.format(name=NAME, sha=sha, urls=lying, cache=str(tmp / "c3")),
                                    env=env, timeout=timeout)
        out["lie_said"] = [line for line in said.splitlines() if "wrong bytes" in line]
        out["lie_served"] = bool(liar.lied)
        print(f"lying mirror: {out['lie_s']:.1f} s {out['lie_said']}", flush=True)

        fork = subprocess.run(["git", "-C", str(ROOT), "merge-base", "HEAD", args.base], capture_output=True,
                              text=True, check=True).stdout.strip()
        trees = {"this": tree_at("HEAD", tmp / "this"), "main": tree_at(fork, tmp / "main")}   # same filesystem
        out["paths"] = paths_compared(trees, tmp / "c1", sha, args.runs)
        print(f"no-op imports / warm fetch: {out['paths']}", flush=True)
    out["chunk"] = CHUNK_BYTES
    report = render(out, args)
    print(report)
    if args.write:
        write(args.write, report)
    return 0


def render(o: dict, args: argparse.Namespace) -> str:
    r, mb = o["resume"], 1e6
    lost = r["first"] + r["second"] - o["size"]
    this, main = o["paths"]["this"], o["paths"]["main"]
    uv = f"{o['uv_s']:.1f}" if o["uv_s"] else "failed"
    lines = [
        MARK,
        f"Measured {time.strftime('%Y-%m-%d %H:%M')}, `bench/bench_download.py --size-mb {args.size_mb} "
        f"--rate-mb {args.rate_mb:g}`: a {o['size'] / mb:.0f} MB wheel on three loopback mirrors, each throttled "
        f"to {o['rate'] / mb:g} MB/s per connection; chunks of {o['chunk'] >> 20} MiB.",
        "",
        "| case | wall s | vs one connection |",
        "|---|---|---|",
        f"| one connection (plain GET from one mirror) | {o['one_s']:.1f} | 1.00x |",
        f"| torchenv `fetch`, three mirrors, ranged | {o['torchenv_s']:.1f} | **{o['one_s'] / o['torchenv_s']:.1f}x** |",
        f"| uv `pip install --no-deps --target` via the index on one mirror | {uv} | "
        + (f"{o['one_s'] / o['uv_s']:.2f}x |" if o["uv_s"] else "- |"),
        f"| torchenv, one mirror serving one chunk with wrong bytes | {o['lie_s']:.1f} | "
        f"{o['one_s'] / o['lie_s']:.1f}x |",
        f"| torchenv resumed after SIGKILL at {r['killed_at'] / o['size']:.0%} | {r['resume_s']:.1f} | - |",
        "",
        f"- torchenv vs one connection: **{o['one_s'] / o['torchenv_s']:.1f}x** (target >= 4x)"
        + (f"; vs uv: **{o['uv_s'] / o['torchenv_s']:.1f}x**" if o["uv_s"] else ""),
        f"- kill and resume: the mirrors sent {(r['first'] + r['second']) / mb:.1f} MB for a {o['size'] / mb:.1f} MB "
        f"file: {max(0, lost) / mb:.1f} MB fetched twice = **{max(0, lost) / o['chunk']:.2f} chunks** (target <= 1)",
        f"- lying mirror: it served a bad chunk: {'yes' if o['lie_served'] else 'no'}; torchenv said: "
        + ("; ".join(f"`{s.split('warning: ', 1)[-1][:160]}`" for s in o["lie_said"]) or "nothing"),
        f"- paths that must not slow down (median of {args.runs}, alternating, this tree / the commit it branched "
        f"from): importing the no-op `up` path "
        f"{this[0] * 1000:.0f} ms / {main[0] * 1000:.0f} ms = **{this[0] / main[0]:.2f}x**; warm-cache `fetch` "
        f"{this[1] * 1000:.1f} ms / {main[1] * 1000:.1f} ms = **{this[1] / main[1]:.2f}x**",
        MARK.replace("results", "end"),
    ]
    return "\n".join(lines)


def write(path: Path, report: str) -> None:
    write_section(path, report, MARK, "Downloads: ranged, multi-mirror (`bench/bench_download.py`)")


def write_section(path: Path, report: str, mark: str, heading: str) -> None:
    """Replace one bench script's section of ``path`` (added under ``heading`` the first time); the rest stays.

    Shared by the bench scripts that write into docs/benchmarks.md, each between its own markers.
    """
    text = path.read_text() if path.exists() else ""
    end = mark.replace("results", "end")
    if mark in text and end in text:
        head, rest = text.split(mark, 1)
        text = head + report + rest.split(end, 1)[1]
    else:
        text = text.rstrip("\n") + f"\n\n## {heading}\n\n" + report + "\n"
    path.write_text(text)


if __name__ == "__main__":
    raise SystemExit(main())
