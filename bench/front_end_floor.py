"""The least any Python command can do for the warm path of ``up``: the floor under ``torchenv up --frozen``.

    python bench/front_end_floor.py LOCK FILES_LIST ENV UV PYTHON      (Python 3.11+: tomllib)

Why it exists: ``bench_up.py`` compares ``torchenv up --frozen --no-verify`` with uv alone (``uv venv`` +
``uv pip install`` of the lock's files, started from a shell). A command written in Python pays for its
interpreter's start and for reading the lock before uv can begin, and it must check the files' hashes
and remember what it installed. This script does only that, and nothing torchenv adds (no probe, no
plan, no state checks, no stamp): it starts, reads ``LOCK`` with tomllib, writes a requirements file of
the paths in ``FILES_LIST`` (one per line) with the lock's sha256 of each, runs ``uv venv`` and
``uv pip sync`` into ``ENV`` as torchenv's uv engine does (uv checks every hash a line gives; pip's own
wheel, which the lock does not name, has none here), and writes a state file.
Its time over uv's is the part of any ratio that no Python front end can remove.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

import tomllib


def requirement_lines(lock: str, files: list[str]) -> str:
    with open(lock, "rb") as fh:
        data = tomllib.load(fh)
    sha = {p["filename"]: p["sha256"] for t in data.get("target", []) for p in t.get("package", [])}
    return "".join(f"{f} --hash=sha256:{sha[os.path.basename(f)]}\n" if os.path.basename(f) in sha else f"{f}\n"
                   for f in files)


def main(lock: str, files_list: str, env: str, uv: str, python: str) -> int:
    with open(files_list, encoding="utf-8") as fh:
        files = fh.read().split()
    lines = requirement_lines(lock, files)
    with tempfile.TemporaryDirectory(prefix="floor-") as tmp:
        req = os.path.join(tmp, "requirements.txt")
        with open(req, "w", encoding="utf-8") as fh:
            fh.write(lines)
        subprocess.run([uv, "venv", "--no-config", "--quiet", "--no-python-downloads", "--python", python, env],
                       check=True)
        subprocess.run([uv, "pip", "sync", "--no-config", "--quiet", "--no-index", "--python",
                        os.path.join(env, "bin", "python"), req],
                       check=True)
    os.makedirs(os.path.join(env, ".torchenv"), exist_ok=True)
    with open(os.path.join(env, ".torchenv", "state.json"), "w", encoding="utf-8") as fh:
        json.dump({"files": files}, fh)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:6]))
