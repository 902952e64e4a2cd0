"""Time `torchenv up` with the conda backend on the local channel: ``python -m tests.conda_up.bench_conda_up``.

Why a script and not a test: timings vary with the machine's load; the numbers go into the
closing note (docs/dev/STATUS-conda.md), the tests assert behaviour. Each phase is timed where
``up`` calls it (engine solve / install, wheel half lock / install), plus whole CLI runs.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GPU = ["--assume-driver", "575.57.08", "--assume-gpu", "8.6"]


def _timed(cls, name: str, bucket: dict[str, list[float]], key: str) -> None:
    real = getattr(cls, name)

    def wrapper(self, **kw):
        t0 = time.perf_counter()
        try:
            return real(self, **kw)
        finally:
            bucket.setdefault(key, []).append(time.perf_counter() - t0)

    setattr(cls, name, wrapper)


def _cli(project: Path, *flags: str) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "torchenv", "up", "-C", str(project), "--no-verify", "-q", *flags],
                   check=True, capture_output=True)
    return time.perf_counter() - t0


def main() -> int:
    from tests.conda_up.conftest import Project
    from tests.conda_up.forge import forge_channel
    from tests.support import build_index, make_wheel

    from torchenv.backends.conda import UvWheelPart
    from torchenv.engines.rattler import RattlerEngine

    root = Path(tempfile.mkdtemp(prefix="torchenv-bench-conda-"))
    os.environ["TORCHENV_HOME"] = str(root / "home")
    t0 = time.perf_counter()
    forge = forge_channel(root / "channel")
    print(f"channel built + indexed: {time.perf_counter() - t0:.2f}s")
    tag = f"cp{sys.version_info[0]}{sys.version_info[1]}"
    torch = make_wheel(root / "raw", "torch", "2.8.0+cu126", tag=f"{tag}-{tag}-linux_x86_64", requires=["fakedep>=1"])
    (root / "torch" / "cu126").mkdir(parents=True)
    shutil.copy(torch, root / "torch" / "cu126" / torch.name)
    pypi = build_index(root / "pypi", {"fakedep": [make_wheel(root / "raw", "fakedep", "1.0.0")]})

    times: dict[str, list[float]] = {}
    _timed(RattlerEngine, "solve", times, "conda solve")
    _timed(RattlerEngine, "install", times, "conda install")
    _timed(UvWheelPart, "lock", times, "wheel lock (uv)")
    _timed(UvWheelPart, "install", times, "wheel install (uv)")

    from types import SimpleNamespace

    for mode in ("conda", "hybrid"):
        times.clear()
        project = Project(dir=root / mode)
        project.dir.mkdir()
        wheels = SimpleNamespace(torch_mirror=root / "torch", pypi=pypi) if mode == "hybrid" else None
        project.write(channel=forge, torch="2.8" if wheels else "2.7", cuda="12.6" if wheels else None,
                      torch_source="wheels" if wheels else "conda", packages=("cuda-nvcc",) if wheels else (),
                      wheels=wheels)
        t = time.perf_counter()
        project.up(*GPU)
        whole = time.perf_counter() - t
        print(f"\n[{mode}] first up (in-process): {whole:.2f}s  "
              + "  ".join(f"{k}: {sum(v):.2f}s" for k, v in times.items()))
        print(f"[{mode}] no-op up (CLI, new process): {_cli(project.dir, *GPU):.2f}s")
        shutil.rmtree(project.env)
        times.clear()
        t = time.perf_counter()
        project.up("--frozen", *GPU)
        print(f"[{mode}] up --frozen after deleting the prefix (in-process): {time.perf_counter() - t:.2f}s  "
              + "  ".join(f"{k}: {sum(v):.2f}s" for k, v in times.items()))
        shutil.rmtree(project.env)
        frozen_cli = _cli(project.dir, "--frozen", *GPU)
        print(f"[{mode}] up --frozen (CLI, new process, warm package cache): {frozen_cli:.2f}s")
    shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
