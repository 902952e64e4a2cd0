"""The whole set resolves before any torch-family wheel is downloaded.

Why users care: a CUDA torch wheel is GBs; a project whose other requirements cannot resolve
must fail in seconds with the resolver's error, not after the download. The resolver reads
each torch file's METADATA from the index's ``.metadata`` file (PEP 658/714) or from byte
ranges of the wheel; only a server that offers neither sends the whole file first.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from tests.support import build_index, make_wheel, serve_dir, sha256_of
from tests.support.rangeserver import serve_ranges

from torchenv.errors import TorchenvError

TORCH_TAG = "cp311-cp311-linux_x86_64"

uv_only = pytest.mark.parametrize("installer", ["uv"], indirect=True)
PAYLOAD = 4 << 20          # big enough that reading all of it shows in the bytes a server sent


def _served_torch(world, *, metadata: bool) -> tuple[Path, Path]:
    """(tree to serve, the torch wheel in it): a PEP 503 torch index with one large wheel."""
    wheel = make_wheel(world.root / "big", "torch", "2.4.1+cpu", tag=TORCH_TAG, requires=["filelock>=3"],
                       payload=PAYLOAD)
    tree = world.root / "served"
    build_index(tree, {"torch": [wheel]}, metadata=metadata)
    return tree, tree / "files" / wheel.name


def _lock(world, capsys=None):
    from torchenv.commands._options import lock_options
    from torchenv.flows.lockcmd import run_lock
    from torchenv.ui import Ui

    run_lock(world.project, lock_options(world.args(verb="lock")), Ui(quiet=capsys is None),
             planner=world.fake_plan)
    entry = world.read_lock().targets[0].wheel("torch")
    return entry, (capsys.readouterr() if capsys is not None else None)


def _assert_real_file(entry, wheel: Path) -> None:
    assert entry.url == f"https://download.pytorch.org/whl/cpu/{wheel.name.replace('+', '%2B')}"
    assert entry.sha256 == sha256_of(wheel)
    assert entry.size == wheel.stat().st_size


def test_an_unresolvable_project_fails_before_the_torch_file_is_requested(world):
    tree, wheel = _served_torch(world, metadata=True)
    (world.project / "requirements.txt").write_text("no-such-package-anywhere==1.0\n")
    with serve_dir(tree) as base:
        world.torch_source_url = base + "/simple"
        with pytest.raises(TorchenvError) as exc:
            world.run_up()
        assert "no-such-package-anywhere" in exc.value.message, "the resolver's own error is shown"
        assert "/files/" + wheel.name.replace("+", "%2B") not in base.hits, base.hits
        assert not any(h.endswith(".whl") for h in base.hits), base.hits
    assert not world.env.exists()


@uv_only
def test_an_unresolvable_project_reads_only_a_few_ranges_of_the_torch_file(world):
    tree, wheel = _served_torch(world, metadata=False)
    (world.project / "requirements.txt").write_text("no-such-package-anywhere==1.0\n")
    with serve_ranges({}, root=tree) as mirror:
        world.torch_source_url = mirror.url + "/simple"
        with pytest.raises(TorchenvError, match="no-such-package-anywhere"):
            world.run_up()
    assert f"files/{wheel.name}" in mirror.requests
    assert mirror.sent < 256 << 10 < wheel.stat().st_size, mirror.sent


def test_the_metadata_file_is_used_when_the_index_offers_it(world):
    tree, wheel = _served_torch(world, metadata=True)
    with serve_dir(tree) as base:
        world.torch_source_url = base + "/simple"
        entry, _out = _lock(world)
        asked = list(base.hits)
        from torchenv import paths

        (world.project / "torchenv.lock").unlink()
        _lock(world)                      # again: the METADATA comes from the cache, by sha256
        again = base.hits[len(asked):]
    _assert_real_file(entry, wheel)
    quoted = wheel.name.replace("+", "%2B")
    assert f"/files/{quoted}.metadata" in asked
    assert f"/files/{quoted}" not in asked, "locking needs no download when the index gives the sha256"
    assert not any("/files/" in h for h in again), again
    assert list((paths.cache_dir() / "metadata").rglob(wheel.name))


@uv_only
def test_byte_ranges_are_used_when_no_metadata_file_is_offered(world):
    tree, wheel = _served_torch(world, metadata=False)
    with serve_ranges({}, root=tree) as mirror:
        world.torch_source_url = mirror.url + "/simple"
        entry, _out = _lock(world)
    _assert_real_file(entry, wheel)
    assert f"files/{wheel.name}.metadata" not in mirror.requests
    assert mirror.requests.count(f"files/{wheel.name}") >= 2, mirror.requests    # probe, then ranges
    assert mirror.sent < 256 << 10, "the lock read a few KiB of the wheel, not all of it"


@uv_only
def test_a_server_without_ranges_still_works_and_says_it_downloads_the_file(world, capsys):
    tree, wheel = _served_torch(world, metadata=False)
    with serve_dir(tree) as base:
        world.torch_source_url = base + "/simple"
        entry, out = _lock(world, capsys)
    _assert_real_file(entry, wheel)
    assert "downloading the whole file" in out.out + out.err


@uv_only
def test_a_metadata_file_whose_sha256_does_not_match_is_refused(world, capsys):
    tree, wheel = _served_torch(world, metadata=True)
    forged = tree / "files" / f"{wheel.name}.metadata"    # the index still lists the real file's hash
    forged.write_text("Metadata-Version: 2.1\nName: torch\nVersion: 2.4.1+cpu\n"
                      "Requires-Dist: no-such-package-anywhere\n")
    with serve_dir(tree) as base:
        world.torch_source_url = base + "/simple"
        entry, out = _lock(world, capsys)
    _assert_real_file(entry, wheel)
    assert "refused" in out.err
    assert {w.name for w in world.read_lock().targets[0].wheels} == {"torch", "filelock"}


@uv_only
def test_a_login_reaches_neither_the_cache_nor_the_lock(world):
    from torchenv import paths

    tree, wheel = _served_torch(world, metadata=False)
    with serve_ranges({}, root=tree, auth=("builder", "s3cr3t-token")) as mirror:
        world.torch_source_url = mirror.url.replace("://", "://builder:s3cr3t-token@") + "/simple"
        entry, _out = _lock(world)
    _assert_real_file(entry, wheel)
    assert f"files/{wheel.name}" in mirror.requests
    assert mirror.sent < 256 << 10, "the range reads carried the login too"
    assert "s3cr3t" not in (world.project / "torchenv.lock").read_text()
    for path in paths.cache_dir().rglob("*"):
        assert "s3cr3t" not in str(path)
        assert not path.is_file() or b"s3cr3t" not in path.read_bytes(), path


@uv_only
def test_a_local_torch_file_is_read_once_and_the_resolver_never_hashes_it(world, monkeypatch):
    from torchenv.engines.uv import UvEngine
    from torchenv.sources import fetch
    from torchenv.sources.index import local_path

    given: list[str] = []
    real_resolve = UvEngine.resolve

    def recording(self, *, requirements, **kw):
        given.extend(requirements)
        return real_resolve(self, requirements=requirements, **kw)

    hashed: list[str] = []
    real_hash = fetch.sha256_file
    monkeypatch.setattr(fetch, "sha256_file", lambda path: (hashed.append(path.name), real_hash(path))[1])
    monkeypatch.setattr(UvEngine, "resolve", recording)
    world.run_up()
    torch = world.read_lock().targets[0].wheel("torch")
    real = world.root / "torchidx" / "files" / torch.filename
    line = next(r for r in given if r.startswith("torch @ "))
    resolved_from = local_path(line.split(" @ ", 1)[1])
    assert resolved_from is not None and resolved_from.name == torch.filename
    assert resolved_from.resolve() != real.resolve(), "the engine read a metadata-only stub, not the wheel"
    assert torch.sha256 == sha256_of(real) and torch.size == real.stat().st_size
    assert hashed.count(torch.filename) == 1, hashed


@uv_only
def test_dependencies_read_in_ranges_from_other_bytes_than_listed_are_refused(world, monkeypatch):
    import dataclasses

    from torchenv.errors import HashMismatch
    from torchenv.sources.model import TorchSource

    tree, genuine = _served_torch(world, metadata=False)
    planted = make_wheel(world.root / "planted", "torch", "2.4.1+cpu", tag=TORCH_TAG,
                         requires=["filelock>=3", "six"], payload=PAYLOAD)
    lying = world.root / "lying"                 # lists the genuine file's sha256, serves other bytes
    build_index(lying, {"torch": [genuine]})
    (lying / "files" / genuine.name).write_bytes(planted.read_bytes())
    with serve_ranges({}, root=lying) as liar, serve_ranges({}, root=tree) as good:
        def two_sources(request):
            plan = world.plan(request.intent)
            torch = tuple(TorchSource(url=u + "/simple", layout="index", name=n)
                          for u, n in ((liar.url, "liar"), (good.url, "good")))
            return dataclasses.replace(plan, sources=dataclasses.replace(plan.sources, torch=torch))

        world.planner = two_sources
        with pytest.raises(HashMismatch, match="differ from those of the verified file"):
            world.run_up()
    assert not world.env.exists() and not (world.project / "torchenv.lock").exists()


@uv_only
def test_a_server_that_refuses_head_requests_is_read_in_ranges_all_the_same(world, monkeypatch):
    from torchenv.backends import wheelmeta

    monkeypatch.setattr(wheelmeta, "head", lambda url, timeout: None)     # 405/501 for HEAD
    tree, wheel = _served_torch(world, metadata=False)
    with serve_ranges({}, root=tree) as mirror:
        world.torch_source_url = mirror.url + "/simple"
        entry, _out = _lock(world)
    _assert_real_file(entry, wheel)
    assert mirror.sent < 256 << 10


def _engine_events(monkeypatch) -> list[str]:
    """What the uv engine is asked, in order: early unpacks and installs, resolves, and installs (with what
    still unpacks)."""
    from torchenv.engines.uv import UvEngine

    events: list[str] = []
    real_warm, real_resolve, real_install = UvEngine.warm_cache, UvEngine.resolve, UvEngine.install_files
    real_early = UvEngine.install_early

    def warm(self, files, **kw):
        events.append("warm " + " ".join(f.name for f in files) + f" beside {kw.get('beside')}")
        return real_warm(self, files, **kw)

    def early(self, **kw):
        events.append("early " + " ".join(sorted(f.name for f in kw["files"])) + f" into {kw['env_python']}")
        return real_early(self, **kw)

    def resolve(self, **kw):
        events.append("resolve")
        return real_resolve(self, **kw)

    def install(self, **kw):
        result = real_install(self, **kw)
        events.append(f"installed, still unpacking: {len(self._warming)}")
        return result

    monkeypatch.setattr(UvEngine, "warm_cache", warm)
    monkeypatch.setattr(UvEngine, "install_early", early)
    monkeypatch.setattr(UvEngine, "resolve", resolve)
    monkeypatch.setattr(UvEngine, "install_files", install)
    return events


def _filelock_not_here(monkeypatch) -> None:
    """filelock must be downloaded: not in any local place (the test's PyPI side is a loopback server)."""
    import torchenv.sources.locate as locate

    here, candidates = locate.on_this_machine, locate.local_candidates
    monkeypatch.setattr(locate, "on_this_machine", lambda sources, wheel: wheel.name != "filelock" and here(sources, wheel))
    monkeypatch.setattr(locate, "local_candidates",
                        lambda sources, wheel: [] if wheel.name == "filelock" else candidates(sources, wheel))


@uv_only
def test_a_new_env_gets_the_files_on_this_machine_while_the_others_download(world, monkeypatch):
    """A new env and a file to wait for: the files already here (the local torch file) are installed into the new
    env meanwhile, not unpacked into a scratch folder, and the install after the downloads keeps them."""
    events = _engine_events(monkeypatch)
    _filelock_not_here(monkeypatch)
    world.run_up()
    target = world.read_lock().targets[0]
    torch = target.wheel("torch")
    env_python = world.project / ".venv" / "bin" / "python"
    assert events.index("resolve") < events.index(f"early {torch.filename} into {env_python}"), events
    assert not any(e.startswith("warm") for e in events), events
    assert events[-1] == "installed, still unpacking: 0", events
    dists = world.dists()
    assert any(d.startswith("torch-") for d in dists) and any(d.startswith("filelock-") for d in dists), dists


@uv_only
def test_an_env_built_in_place_of_another_gets_torch_unpacked_while_files_download(world, monkeypatch):
    """Where an env stood (here rebuilt with ``--force``), nothing goes into the new one before every file is
    here: the local torch file is unpacked into uv's cache meanwhile, and the install waits for that."""
    world.run_up()
    world.lock.unlink()   # a new lock: torch is located again
    events = _engine_events(monkeypatch)
    _filelock_not_here(monkeypatch)
    world.run_up("--force")
    torch = world.read_lock().targets[0].wheel("torch")
    assert events.index("resolve") < events.index(f"warm {torch.filename} beside downloads"), events
    assert not any(e.startswith("early") for e in events), events
    assert events[-1] == "installed, still unpacking: 0", events


@uv_only
def test_a_failed_download_stops_the_early_install_and_leaves_no_env(world, monkeypatch):
    """The early install writes into the new env; a download that fails ends it before the half-made env is
    cleared away, so nothing is left where no env stood."""
    from torchenv.engines.uv import UvEngine
    from torchenv.sources import getfile

    events = _engine_events(monkeypatch)
    _filelock_not_here(monkeypatch)
    stopped: list[int] = []
    real_stop = UvEngine.stop_warming

    def stop(self):
        stopped.append(len(self._warming))
        real_stop(self)

    def no_download(*_a, **_k):
        raise TorchenvError("the PyPI side is down", hint="try later")

    monkeypatch.setattr(UvEngine, "stop_warming", stop)
    monkeypatch.setattr(getfile, "pypi_file", no_download)
    with pytest.raises(TorchenvError, match="the PyPI side is down"):
        world.run_up()
    assert any(e.startswith("early ") for e in events), events
    assert stopped and stopped[0] == 1, stopped   # the early install was running, and was ended
    assert not (world.project / ".venv").exists()


@uv_only
def test_with_every_file_on_this_machine_uv_unpacks_them_all_in_the_install(world, monkeypatch):
    """Nothing to wait for: no early unpack into a scratch folder (work of its own); the install unpacks every
    file at once, on every core."""
    events = _engine_events(monkeypatch)
    world.run_up()
    assert not any(e.startswith("warm") for e in events) and events[-1] == "installed, still unpacking: 0", events


@uv_only
def test_a_project_with_its_own_requirements_unpacks_torch_while_they_resolve(world, monkeypatch):
    """The resolve of the project's own requirements is a wait too: the local torch file is unpacked during it
    (the 76-package project from a local wheelhouse: its resolve unpacks every wheel it reads)."""
    events = _engine_events(monkeypatch)
    (world.project / "requirements.txt").write_text("six\n")
    world.run_up()
    torch = world.read_lock().targets[0].wheel("torch")
    assert world.read_lock().targets[0].wheel("six") is not None
    assert events.index(f"warm {torch.filename} beside resolve") < events.index("resolve"), events
    assert events[-1] == "installed, still unpacking: 0", events



@uv_only
def test_an_early_install_that_failed_half_way_makes_the_install_put_everything_back(world, monkeypatch):
    """An early install that did not finish cleanly may have left a package's metadata without its files; the
    install after it reinstalls every file instead of keeping what it finds."""
    import sys
    import tempfile

    import torchenv.engines.uv as uv_engine
    from torchenv.engines.uv import UvEngine

    def failing_early(self, *, env_python, files, hashes):
        self._start([sys.executable, "-c", "raise SystemExit(3)"], tempfile.mkdtemp(prefix="torchenv-early-"),
                    into_env=True)
        return True

    ran: list[list[str]] = []
    real_run = uv_engine.run_tool

    def run_tool(cmd, **kw):
        ran.append([str(c) for c in cmd])
        return real_run(cmd, **kw)

    _filelock_not_here(monkeypatch)
    monkeypatch.setattr(UvEngine, "install_early", failing_early)
    monkeypatch.setattr(uv_engine, "run_tool", run_tool)
    world.run_up()
    syncs = [c for c in ran if c[1:3] == ["pip", "sync"]]
    assert syncs and "--reinstall" in syncs[-1], ran
    assert any(d.startswith("torch-") for d in world.dists())


@uv_only
def test_an_early_install_that_finished_leaves_the_install_to_keep_what_it_installed(world, monkeypatch):
    import torchenv.engines.uv as uv_engine

    ran: list[list[str]] = []
    real_run = uv_engine.run_tool

    def run_tool(cmd, **kw):
        ran.append([str(c) for c in cmd])
        return real_run(cmd, **kw)

    events = _engine_events(monkeypatch)
    _filelock_not_here(monkeypatch)
    monkeypatch.setattr(uv_engine, "run_tool", run_tool)
    world.run_up()
    syncs = [c for c in ran if c[1:3] == ["pip", "sync"]]
    assert any(e.startswith("early ") for e in events) and syncs and "--reinstall" not in syncs[-1], (events, ran)


def _cloned_with_torch_cached(world):
    """A locked project without its env (as cloned), torch in torchenv's cache (from another project); its entry."""
    import shutil

    from torchenv.paths import wheel_cache

    world.run_up()
    shutil.rmtree(world.project / ".venv")
    torch = world.read_lock().targets[0].wheel("torch")
    cached = wheel_cache() / torch.sha256[:2] / torch.sha256 / torch.filename
    cached.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(next(world.root.rglob(torch.filename)), cached)
    return torch


@uv_only
def test_a_project_cloned_with_its_lock_gets_the_files_on_disk_into_its_new_env_while_others_download(
        world, monkeypatch):
    """No lock is made (``--frozen``): the files already on this machine (here torch, in torchenv's cache from
    another project) still go into the new env while the others download."""
    from torchenv.sources.index import local_path

    torch = _cloned_with_torch_cached(world)
    assert local_path(torch.url) is None   # the lock names the torch index, not a file here
    events = _engine_events(monkeypatch)
    _filelock_not_here(monkeypatch)
    world.run_up("--frozen")
    early = [e for e in events if e.startswith("early ")]
    assert early and torch.filename in early[0] and "resolve" not in events, events
    assert events[-1] == "installed, still unpacking: 0", events
    assert any(d.startswith("torch-") for d in world.dists())


@uv_only
def test_a_file_the_install_asks_for_by_name_is_left_to_the_install(world, monkeypatch):
    """A file alone in a find-links folder is asked for by name from there (``VenvBackend._listed``); installed early
    by its path, the install would take it for another source and install it a second time."""
    from torchenv.backends.venv import VenvBackend

    _cloned_with_torch_cached(world)
    events = _engine_events(monkeypatch)
    _filelock_not_here(monkeypatch)
    real_listed, asked = VenvBackend._listed, []

    def listed(self, files):   # the early install's question says "all by name"; the install's own, the truth
        asked.append(len(files))
        return {f.name: "folder" for f in files} if len(asked) == 1 else real_listed(self, files)
    monkeypatch.setattr(VenvBackend, "_listed", listed)
    world.run_up("--frozen")
    assert len(asked) == 2 and not any(e.startswith("early ") for e in events), (asked, events)
    assert any(d.startswith("torch-") for d in world.dists())
