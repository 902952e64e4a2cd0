"""The warm ``up``: a fresh env from a current lock whose files are all on this machine.

What it must not do (each once cost tens of ms per run, on every CI job): read the tier indexes
or check reachability for a plan whose locked files need no fetching, import virtualenv for
pip's seed wheel it already knows, or read RECORDs more slowly than the no-op check needs.
"""
from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from torchenv.machine import Machine


def _copy_project(world, name: str) -> Path:
    """Another folder with the world's torchenv.toml and lock (no env yet), as a CI checkout has."""
    other = world.root / name
    other.mkdir()
    for file in ("torchenv.toml", "torchenv.lock"):
        shutil.copy(world.project / file, other / file)
    return other


def _torch_in_cache(world) -> Path:
    """The locked torch wheel in torchenv's artifact cache, where a download from a remote torch index lands
    (this world's torch index is a local folder, whose files are used in place, never cached)."""
    from torchenv.paths import wheel_cache
    from torchenv.sources.index import list_project_files, local_path

    torch = world.read_lock().targets[0].wheel("torch")
    found = next(f for f in list_project_files(world.torch_index, "torch", layout="index") if f.filename == torch.filename)
    cached = wheel_cache() / torch.sha256[:2] / torch.sha256 / torch.filename
    cached.parent.mkdir(parents=True)
    shutil.copy(local_path(found.url), cached)
    return cached


def _real_planner(world, monkeypatch, plan_kwargs: dict | None = None) -> list[tuple]:
    """The real planner over a fixed machine and a recorded resolver: what each stage was asked."""
    calls: list[tuple] = []

    def resolve(intent, machine, *, check_index=False, **_kw):
        calls.append(("resolve", check_index))
        return world.plan(intent, **(plan_kwargs or {}))

    def available_plan(plan, *_a, **_kw):
        calls.append(("reachable",))
        return plan

    import importlib

    module = importlib.import_module   # (``torchenv.probing.assume`` is also a function's name in its package)
    monkeypatch.setattr(module("torchenv.resolve.resolver"), "resolve", resolve)
    monkeypatch.setattr(module("torchenv.resolve.reachable"), "available_plan", available_plan)
    monkeypatch.setattr(module("torchenv.probing.assume"), "machine_for", lambda _spec, **_kw: Machine(os="linux", arch="x86_64"))
    return calls


@pytest.mark.parametrize("installer", ["uv"], indirect=True)
def test_frozen_up_whose_locked_files_are_at_hand_plans_from_the_recipes_alone(world, monkeypatch):
    from torchenv.commands._options import up_options
    from torchenv.flows.planning import plan_reachable
    from torchenv.flows.up import run_up
    from torchenv.ui import Ui

    world.run_up()                          # the lock, and its files on this machine
    _torch_in_cache(world)
    calls = _real_planner(world, monkeypatch)
    other = _copy_project(world, "checkout")
    result = run_up(other, up_options(world.args("--frozen")), Ui(quiet=True), planner=plan_reachable)
    assert result.status == "installed"
    assert calls == [("resolve", False)], calls     # no index check, no reachability check


@pytest.mark.parametrize("installer", ["uv"], indirect=True)
def test_a_lock_without_this_machines_target_is_planned_with_every_check(world, monkeypatch):
    from torchenv.commands._options import up_options
    from torchenv.errors import LockError
    from torchenv.flows.planning import plan_reachable
    from torchenv.flows.up import run_up
    from torchenv.ui import Ui

    world.run_up()
    calls = _real_planner(world, monkeypatch, {"tier": "cu121", "version": "2.4.1+cu121"})
    other = _copy_project(world, "gpu-node")
    with pytest.raises(LockError, match="none matches this machine"):
        run_up(other, up_options(world.args("--frozen")), Ui(quiet=True), planner=plan_reachable)
    assert calls == [("resolve", False), ("resolve", True), ("reachable",)], calls


@pytest.mark.parametrize("installer", ["uv"], indirect=True)
def test_locked_torch_files_that_are_gone_are_not_at_hand(world):
    from torchenv.flows.planning import locked_files_at_hand

    world.run_up()
    lock = world.read_lock()
    plan = world.plan(_intent(world))
    assert not locked_files_at_hand(plan, lock)     # torch is only listed by a (local) index: not at hand
    cached = _torch_in_cache(world)
    assert locked_files_at_hand(plan, lock)
    cached.unlink()
    assert not locked_files_at_hand(plan, lock)


@pytest.mark.parametrize("installer", ["uv"], indirect=True)
def test_a_recipes_plan_of_another_build_than_the_locked_one_is_not_at_hand(world):
    """The lock may hold the build the reachability check chose (torch for Python 3.11 from a local
    folder) where the recipes alone would plan a newer one (Python 3.13): planning from the recipes then
    installed the project into a site-packages of a Python the env does not have."""
    import dataclasses

    from torchenv.flows.planning import locked_files_at_hand

    world.run_up()
    lock = world.read_lock()
    plan = world.plan(_intent(world))
    _torch_in_cache(world)
    assert locked_files_at_hand(plan, lock)
    assert not locked_files_at_hand(dataclasses.replace(plan, python="3.13"), lock)
    assert not locked_files_at_hand(dataclasses.replace(plan, torch_version="2.15.0"), lock)


def _intent(world):
    from tests.up.conftest import intent_of

    return intent_of(world.project)


# -- the watch list: RECORDs read by cutting rows at the first comma, as csv reads them --------------

RECORD_ROWS = [
    "a.py,sha256=x,1", "pkg/__init__.py,,", "pkg/sub/deep.py,,", "pkg/__pycache__/x.cpython-311.pyc,,",
    "onlycache/__pycache__/y.pyc,,", "__pycache__/z.pyc,,", "../../bin/tool,,", "/abs/path.py,,",
    "foo-1.0.dist-info/METADATA,,", "foo-1.0.data/scripts/s,,", "x__pycache__y/a.py,,", "",
    "pkg2/__pycache__,,", "..odd/f.py,,", "plain/file.txt,sha256=y,2",
]


def _by_csv(record: Path, info: str) -> tuple[set[str], set[str]]:
    """The reading the watch list always had: every row through csv."""
    files, dirs = {f"{info}/RECORD"}, set()
    with open(record, newline="", encoding="utf-8") as fh:
        for row in csv.reader(fh):
            if not row:
                continue
            rel = row[0]
            parts = rel.split("/")
            if rel.startswith(("/", "..")) or "__pycache__" in parts or parts[0].endswith((".dist-info", ".data")):
                continue
            if len(parts) > 1:
                dirs.add(parts[0])
            if len(parts) <= 2:
                files.add(rel)
    return files, dirs


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize("quoted", [False, True])
def test_record_top_level_matches_csv(tmp_path, newline, quoted):
    from torchenv.backends.state import _top_level

    rows = list(RECORD_ROWS) + (['"odd,name/x.py",sha256=z,3', '"q""uote.py",,'] if quoted else [])
    record = tmp_path / "RECORD"
    record.write_bytes(newline.join(rows).encode() + newline.encode())
    assert _top_level(record, "foo-1.0.dist-info") == _by_csv(record, "foo-1.0.dist-info")


def test_watch_list_of_a_real_env_matches_csv():
    """This interpreter's own site-packages: every RECORD read both ways gives the same files and folders."""
    import sysconfig

    from torchenv.backends.state import _top_level

    site = Path(sysconfig.get_paths()["purelib"])
    infos = [n for n in os.listdir(site) if n.endswith(".dist-info") and (site / n / "RECORD").is_file()]
    assert infos
    for info in infos:
        assert _top_level(site / info / "RECORD", info) == _by_csv(site / info / "RECORD", info), info


# -- pip's seed wheel ---------------------------------------------------------------------------------

_SEED = ("import sys; from torchenv.engines.seed import pip_wheel; found = pip_wheel('3.11'); "
         "print(found is not None, 'virtualenv' in sys.modules)")


def _seed_run(home: Path) -> str:
    env = dict(os.environ, TORCHENV_HOME=str(home))
    return subprocess.run([sys.executable, "-c", _SEED], env=env, capture_output=True, text=True,
                          check=True).stdout.strip()


def test_pip_seed_wheel_is_found_without_importing_virtualenv(tmp_path):
    home = tmp_path / "home"
    assert _seed_run(home) == "True False"       # the first run reads virtualenv's listing and remembers
    assert _seed_run(home) == "True False"       # later runs: one small JSON file and two stats


def test_pip_seed_read_from_the_listing_is_the_wheel_virtualenv_names():
    from torchenv.engines import seed

    listing = seed._embed_listing()
    assert listing is not None
    for python in ("3.10", "3.11", "3.12"):
        assert seed._from_listing(listing, python) == seed._from_virtualenv(python), python
    assert seed._from_listing(listing, "2.7") is None      # not in the table: virtualenv is asked


def test_pip_seed_answer_is_dropped_when_the_wheel_changes(tmp_path, monkeypatch):
    import json

    from torchenv.engines import seed

    monkeypatch.setenv("TORCHENV_HOME", str(tmp_path / "home"))
    seed.pip_wheel.cache_clear()
    try:
        first = seed.pip_wheel("3.11")
        assert first is not None
        listing = seed._embed_listing()
        assert listing is not None and seed._remembered(listing, "3.11") == first
        store = seed._store()
        data = json.loads(store.read_text())
        data["3.11"]["wheel"][1][1] += 1           # the wheel's mtime differs now (virtualenv re-installed)
        store.write_text(json.dumps(data))
        assert seed._remembered(listing, "3.11") is None
        seed.pip_wheel.cache_clear()
        assert seed.pip_wheel("3.11") == first     # asked again, and right
    finally:
        seed.pip_wheel.cache_clear()


# -- the project lock ---------------------------------------------------------------------------------

def test_project_lock_excludes_a_filelock_holder_and_is_taken_after_it(tmp_path):
    """The project lock and filelock's (an older torchenv, Windows) are one lock: each waits for the other."""
    import time

    from filelock import FileLock, Timeout

    from torchenv.flows.projectlock import LOCK_NAME, project_lock

    (tmp_path / ".torchenv").mkdir()
    path = str(tmp_path / ".torchenv" / LOCK_NAME)
    holder = subprocess.Popen([sys.executable, "-c", "import sys, time; from filelock import FileLock; "
                               f"lock = FileLock({path!r}); lock.acquire(); print('held', flush=True); "
                               "time.sleep(0.5); lock.release()"], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    start = time.monotonic()
    with project_lock(tmp_path) as waited:
        assert waited and time.monotonic() - start >= 0.2
        with pytest.raises(Timeout):
            FileLock(path, thread_local=False).acquire(timeout=0.1)
    holder.wait(timeout=10)
    FileLock(path).acquire(timeout=1)        # released on the way out


def test_project_lock_does_not_import_filelock():
    code = ("import sys, tempfile, pathlib; from torchenv.flows.projectlock import project_lock; "
            "d = pathlib.Path(tempfile.mkdtemp());\nwith project_lock(d): pass\nprint('filelock' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_local_paths_and_wheel_names_need_no_http_stack():
    """``sources.index`` is on every install's path (local paths, wheel names); its HTTP/HTML parts are not."""
    code = ("import sys; from torchenv.sources import index; "
            "assert str(index.local_path('file:///tmp/a%2Bb/x.whl')) == '/tmp/a+b/x.whl'; "
            "index.project_of('torch-2.4.1+cpu-cp311-cp311-linux_x86_64.whl'); "
            "print(sorted(m for m in ('urllib.request', 'html.parser', 'http.client') if m in sys.modules)); "
            "print([f.filename for f in index.parse_html('<a href=\"x-1.0-py3-none-any.whl#sha256=ab\">x</a>', "
            "'https://h/simple/x/')])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["[]", "['x-1.0-py3-none-any.whl']"], out


def test_the_verified_hash_index_is_parsed_once_per_run_and_reread_when_another_run_changed_it(tmp_path, monkeypatch):
    import hashlib
    import json

    from torchenv.sources import fetch

    cache = tmp_path / "cache"
    files = {}
    for name in ("a-1.0-py3-none-any.whl", "b-1.0-py3-none-any.whl", "c-1.0-py3-none-any.whl"):
        path = tmp_path / name
        path.write_bytes(name.encode())
        files[name] = (path, hashlib.sha256(name.encode()).hexdigest())
    fetch.remember_verified({p: sha for p, sha in list(files.values())[:2]}, cache=cache)
    parsed, hashed = [], []
    real_loads, real_hash = json.loads, fetch.sha256_file
    monkeypatch.setattr(fetch.json, "loads", lambda text, **kw: (parsed.append(1), real_loads(text, **kw))[1])
    monkeypatch.setattr(fetch, "sha256_file", lambda path: (hashed.append(path.name), real_hash(path))[1])
    for name in ("a-1.0-py3-none-any.whl", "b-1.0-py3-none-any.whl"):
        path, sha = files[name]
        assert fetch.fetch(name, sha, [str(path)], cache=cache) == path
    assert parsed == [] and hashed == []          # known from this run's own write: neither parsed nor hashed
    index = cache / "verified-local.json"          # another run adds c
    data = real_loads(index.read_text())
    c_path, c_sha = files["c-1.0-py3-none-any.whl"]
    st = c_path.stat()
    data[str(c_path.resolve())] = [st.st_size, st.st_mtime_ns, c_sha, st.st_ino]   # [size, mtime, sha256, inode]
    index.write_text(json.dumps(data) + " ")
    assert fetch.fetch(c_path.name, c_sha, [str(c_path)], cache=cache) == c_path
    assert parsed == [1] and hashed == []


def _held_elsewhere(path):
    """The lock taken through another open file, as another process would hold it (``flock`` is per open file)."""
    from torchenv.flows.projectlock import _Flock

    other = _Flock(path)
    other.acquire(timeout=0)
    return other


def test_a_run_that_asks_just_before_the_holder_writes_its_pid_names_the_holder(tmp_path, monkeypatch):
    import threading

    from torchenv.flows import projectlock
    from torchenv.flows.projectlock import LOCK_NAME, PID_NAME, _Flock, _holder_pid, _Timeout

    monkeypatch.setattr(projectlock, "PID_WAIT_S", 60.0)    # it answers as soon as it can: a busy machine may be slow

    state = tmp_path / ".torchenv"
    state.mkdir()
    other = _held_elsewhere(str(state / LOCK_NAME))
    writer = threading.Timer(0.15, lambda: (state / PID_NAME).write_text("4242\n"))
    writer.start()
    try:
        assert _holder_pid(state / PID_NAME, _Flock(str(state / LOCK_NAME)), _Timeout) == "4242"
    finally:
        writer.join()
        other.release()


def test_a_run_that_asks_as_the_holder_lets_go_takes_the_lock_without_saying_it_waits(tmp_path, monkeypatch):
    import threading

    from torchenv.flows import projectlock
    from torchenv.flows.projectlock import LOCK_NAME, PID_NAME, _Flock, _holder_pid, _Timeout

    monkeypatch.setattr(projectlock, "PID_WAIT_S", 60.0)    # it answers as soon as it can: a busy machine may be slow

    state = tmp_path / ".torchenv"
    state.mkdir()
    other = _held_elsewhere(str(state / LOCK_NAME))
    mine = _Flock(str(state / LOCK_NAME))
    releaser = threading.Timer(0.15, other.release)
    releaser.start()
    try:
        assert _holder_pid(state / PID_NAME, mine, _Timeout) is None
        with pytest.raises(_Timeout):
            _held_elsewhere(str(state / LOCK_NAME))     # this run holds it now
    finally:
        releaser.join()
        mine.release()
