"""Benchmark ``torchenv up`` through three user-named torch mirrors, each throttled per connection.

    .torchenv-dev/bin/python bench/bench_mirrors.py [--size-mb 200] [--rate-mb 2] [--write docs/benchmarks.md]

Three loopback mirrors (127.0.0.1) serve the same generated torch wheel (``--size-mb``, incompressible,
named as torch 2.4.1+cu118 for this Python) at ``<base>/cu118/``, with a PEP 503 page, each throttled
**per connection** to ``--rate-mb`` MB/s. They are named only in the user's mirrors file (``bench-a``,
``bench-b``, ``bench-c``, as ``torchenv mirror add`` writes it), and the project says
``[mirror] use = "bench-a"``, ``fallback = ["bench-b", "bench-c"]``; ``bench-a`` also serves the PyPI side.
Nothing else is reachable (a refusing proxy stands for the network). Cases, each a fresh process:

(a) one connection: a plain GET of the wheel from one mirror, hashed while it streams;
(b) ``torchenv up --no-verify`` of the project (plan, download, install with uv): its time over (a)'s
    (target <= 0.25), the TCP connects it made to each mirror, and the most transfers at once;
(c) (b) in a fresh home killed with SIGKILL once 40% of the wheel is on disk, then run again:
    the bytes the mirrors sent twice, in chunks (target <= 1).
Every wait is bounded; the servers stop when the script ends.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_download import write_section  # noqa: E402
from tests.support.connects import read_log  # noqa: E402
from tests.support.packages import build_index, make_wheel  # noqa: E402
from tests.support.rangeserver import serve_ranges  # noqa: E402
from tests.support.server import closed_port_url, serve_dir  # noqa: E402

MARK = "<!-- bench_mirrors results -->"
RUNNER = ROOT / "tests" / "e2e_mirrors" / "run_torchenv.py"
PY = f"{sys.version_info.major}.{sys.version_info.minor}"
TAG = f"cp{PY.replace('.', '')}-cp{PY.replace('.', '')}-linux_x86_64"
TORCH = "2.4.1+cu118"
FILE = f"torch-{TORCH}-{TAG}.whl"
NAMES = ("bench-a", "bench-b", "bench-c")
TOML = f"""[torch]
version = "2.4.1"
cuda = "cu118"
python = "{PY}"

[mirror]
use = "bench-a"
fallback = ["bench-b", "bench-c"]
"""

ONE_CONNECTION = """
import hashlib, time, urllib.request
t = time.perf_counter()
h = hashlib.sha256()
with urllib.request.urlopen({url!r}) as resp:
    for block in iter(lambda: resp.read(1 << 20), b""):
        h.update(block)
assert h.hexdigest() == {sha!r}
print(time.perf_counter() - t)
"""


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def user_mirrors(mirrors, pypi: str) -> str:
    """The user's mirrors file, in the schema of recipes/mirrors.toml."""
    out = [f'[pypi.bench-a]\nurl = "{pypi}/simple"\n']
    out += [f'[torch.{name}]\nbase = "{m.url}"\nlayout = "index"\n' for name, m in zip(NAMES, mirrors)]
    return "\n".join(out)


def environ(tmp: Path, home: str, log: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if "proxy" not in k.lower() and not k.startswith(("PIP_", "UV_", "TORCHENV_"))}
    refused = closed_port_url()    # the network: every non-loopback connection is refused at once
    env.update(TORCHENV_HOME=str(tmp / home), HOME=str(tmp / home / "user"), PIP_CONFIG_FILE=os.devnull,
               XDG_CONFIG_HOME=str(tmp / home / "user" / ".config"), PYTHONUNBUFFERED="1",
               HTTP_PROXY=refused, HTTPS_PROXY=refused, http_proxy=refused, https_proxy=refused,
               NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost", TEST_CONNECTS_LOG=str(log))
    return env


def up_command(project: Path) -> list[str]:
    return [sys.executable, str(RUNNER), "up", "-q", "--no-verify", "-C", str(project),
            "--assume-driver", "550.54.14", "--assume-gpu", "8.6"]


def prepare_home(tmp: Path, home: str, text: str) -> Path:
    config = tmp / home / "config"
    config.mkdir(parents=True)
    (config / "mirrors.toml").write_text(text)
    project = tmp / home / "proj"
    project.mkdir()
    (project / "torchenv.toml").write_text(TOML)
    return project


def sent(mirrors) -> int:
    return sum(m.sent for m in mirrors)


def timed_up(project: Path, env: dict[str, str], timeout: float) -> float:
    t = time.perf_counter()
    proc = subprocess.run(up_command(project), env=env, capture_output=True, text=True, timeout=timeout)
    took = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"torchenv up failed (exit {proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return took


def kill_and_resume(project: Path, env: dict[str, str], home: Path, size: int, mirrors, timeout: float) -> dict:
    before = sent(mirrors)
    proc = subprocess.Popen(up_command(project), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    have, deadline = 0, time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            sidecar = next(home.rglob(".ranged-*.json"))
            have = sum(json.loads(sidecar.read_text())["have"].values())
        except (StopIteration, ValueError, OSError, KeyError):
            have = 0
        if have >= size * 0.4:
            break
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    first = sent(mirrors) - before
    took = timed_up(project, env, timeout)
    second = sent(mirrors) - before - first
    return {"killed_at": have, "first": first, "second": second, "resume_s": took}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size-mb", type=int, default=200)
    ap.add_argument("--rate-mb", type=float, default=2.0)
    ap.add_argument("--write", type=Path)
    args = ap.parse_args()
    rate = args.rate_mb * 1e6
    timeout = 3 * (args.size_mb << 20) / rate + 180
    from torchenv.sources.ranged import CHUNK_BYTES, PER_MIRROR_CONNECTIONS, budget_size

    with tempfile.TemporaryDirectory(prefix="bench-mirrors-") as tmp_name, ExitStack() as stack:
        tmp = Path(tmp_name)
        wheel = make_wheel(tmp / "wheels", "torch", TORCH, tag=TAG, payload=args.size_mb << 20)
        sha, size = sha256(wheel), wheel.stat().st_size
        page = f'<a href="../{FILE.replace("+", "%2B")}#sha256={sha}">{FILE}</a><br/>'.encode()
        mirrors = [stack.enter_context(serve_ranges({f"cu118/{FILE}": wheel}, pages={"cu118/torch/": page},
                                                    rate=rate)) for _ in NAMES]
        build_index(tmp / "pypi", {"fakedep": [make_wheel(tmp / "wheels", "fakedep", "1.0.0")]})
        pypi = stack.enter_context(serve_dir(tmp / "pypi"))
        text = user_mirrors(mirrors, pypi)
        out: dict = {"size": size, "rate": rate, "chunk": CHUNK_BYTES, "budget": budget_size(),
                     "per_mirror": PER_MIRROR_CONNECTIONS}

        plain = environ(tmp, "plain", tmp / "plain.log")
        out["one_s"] = float(subprocess.run([sys.executable, "-c", ONE_CONNECTION.format(
            url=f"{mirrors[0].url}/cu118/{FILE.replace('+', '%2B')}", sha=sha)], env=plain, capture_output=True,
            text=True, timeout=timeout, check=True).stdout.split()[-1])
        print(f"one connection: {out['one_s']:.1f} s", flush=True)

        for m in mirrors:
            m.peak = 0
        log = tmp / "up.log"
        project = prepare_home(tmp, "up", text)
        before = sent(mirrors)
        out["up_s"] = timed_up(project, environ(tmp, "up", log), timeout)
        out["up_sent"] = sent(mirrors) - before
        out["connects"] = {name: len(read_log(log, m.url.removeprefix("http://"))) for name, m in zip(NAMES, mirrors)}
        out["peaks"] = {name: m.peak for name, m in zip(NAMES, mirrors)}
        print(f"torchenv up: {out['up_s']:.1f} s, connects {out['connects']}, peaks {out['peaks']}", flush=True)

        project = prepare_home(tmp, "resume", text)
        out["resume"] = kill_and_resume(project, environ(tmp, "resume", tmp / "resume.log"), tmp / "resume",
                                        size, mirrors, timeout)
        print(f"kill/resume: {out['resume']}", flush=True)
    report = render(out, args)
    print(report)
    if args.write:
        write(args.write, report)
    return 0


def render(o: dict, args: argparse.Namespace) -> str:
    r, mb = o["resume"], 1e6
    twice = max(0, r["first"] + r["second"] - o["size"])
    ratio = o["up_s"] / o["one_s"]
    lines = [
        MARK,
        f"Measured {time.strftime('%Y-%m-%d %H:%M')}, `bench/bench_mirrors.py --size-mb {args.size_mb} "
        f"--rate-mb {args.rate_mb:g}`: a {o['size'] / mb:.0f} MB torch wheel on three user-named loopback mirrors "
        f"(the user's mirrors file only), each throttled to {o['rate'] / mb:g} MB/s per connection; chunks of "
        f"{o['chunk'] >> 20} MiB, {o['per_mirror']} connections per mirror, a budget of {o['budget']}.",
        "",
        "| case | wall s | over one connection |",
        "|---|---|---|",
        f"| one connection (plain GET of the wheel from one mirror) | {o['one_s']:.1f} | 1.00 |",
        f"| `torchenv up --no-verify` (plan, ranged download from the three mirrors, uv install) | {o['up_s']:.1f} "
        f"| **{ratio:.2f}** |",
        f"| `torchenv up` again after SIGKILL at {r['killed_at'] / o['size']:.0%} of the wheel | {r['resume_s']:.1f} "
        f"| - |",
        "",
        f"- time of `up` over one connection's: **{ratio:.2f}** (target <= 0.25)",
        f"- TCP connects of `up` per mirror: {', '.join(f'{k} {v}' for k, v in o['connects'].items())}; most "
        f"transfers at once per mirror: {', '.join(f'{k} {v}' for k, v in o['peaks'].items())} "
        f"(together {sum(o['peaks'].values())}, budget {o['budget']})",
        f"- bytes the mirrors sent for `up`: {o['up_sent'] / mb:.1f} MB for a {o['size'] / mb:.1f} MB wheel",
        f"- kill and resume: {(r['first'] + r['second']) / mb:.1f} MB sent in all, {twice / mb:.1f} MB twice = "
        f"**{twice / o['chunk']:.2f} chunks** (target <= 1)",
        MARK.replace("results", "end"),
    ]
    return "\n".join(lines)


def write(path: Path, report: str) -> None:
    write_section(path, report, MARK, "`torchenv up` through user-named mirrors (`bench/bench_mirrors.py`)")


if __name__ == "__main__":
    raise SystemExit(main())
