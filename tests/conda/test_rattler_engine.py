"""The embedded engine (py-rattler in a worker process) against real packages in local channels."""
from __future__ import annotations

import dataclasses
import json
import re
import sys
import time
from pathlib import Path

import pytest
from tests.conda.helpers import cpu_machine, gpu_machine
from tests.support import closed_port_url, serve_dir

from torchenv.conda.channels import channel_url
from torchenv.conda.virtual import virtual_packages
from torchenv.engines.rattler import RattlerEngine
from torchenv.errors import BackendError, HashMismatch, SourceError, TorchenvError

SPECS = ["python 3.12.*", "pytorch ==2.5.1 cuda*", "cuda-version 12.6.*", "cuda-nvcc 12.6.*"]


def _engine(tmp_path: Path) -> RattlerEngine:
    return RattlerEngine(cache_dir=tmp_path / "cache")


def _solve(engine, channel, specs, machine, mirrors=None):
    return engine.solve(channels=[channel_url(str(channel))], specs=specs, platform="linux-64",
                        virtual_packages=virtual_packages(machine), mirrors=mirrors or {})


def test_r575_driver_gets_the_cuda_build_and_matching_nvcc(channel, tmp_path):
    recs = {r.name: r for r in _solve(_engine(tmp_path), channel, ["python 3.12.*", "pytorch", "cuda-nvcc 12.6.*"],
                                      gpu_machine("12.9"))}
    assert recs["pytorch"].build == "cuda126_generic_py312_h0_200"
    assert recs["cuda-version"].version == "12.6"
    assert recs["cuda-nvcc"].version == "12.6.85"
    for rec in recs.values():   # lockable: canonical channel URL, sha256 and md5 for every package
        assert rec.url.startswith(channel.as_uri() + "/") and len(rec.sha256) == 64 and len(rec.md5) == 32


def test_no_gpu_gets_the_cpu_build(channel, tmp_path):
    recs = {r.name: r for r in _solve(_engine(tmp_path), channel, ["python 3.12.*", "pytorch"], cpu_machine())}
    assert recs["pytorch"].build.startswith("cpu_")
    assert "cuda-version" not in recs


def test_prefix_is_a_conda_env_with_placeholders_rewritten(channel, tmp_path):
    engine = _engine(tmp_path)
    recs = _solve(engine, channel, SPECS, gpu_machine())
    prefix = tmp_path / "env"
    t0 = time.perf_counter()
    engine.install(records=recs, prefix=prefix, mirrors={})
    print(f"install of {len(recs)} packages: {time.perf_counter() - t0:.2f}s")
    metas = {json.loads(p.read_text())["name"] for p in (prefix / "conda-meta").glob("*.json")}
    assert metas == {r.name for r in recs}
    assert (prefix / "conda-meta" / "history").exists()
    assert (prefix / "etc" / "libfoo.conf").read_text() == f"prefix={prefix}\n"
    assert "release 12.6" in (prefix / "bin" / "nvcc").read_text()
    # readable by others, as conda writes them (rattler alone writes 0600)
    assert all(p.stat().st_mode & 0o044 for p in (prefix / "conda-meta").glob("*.json"))


def _meta(prefix: Path) -> dict[str, dict]:
    keep = ("name", "version", "build", "build_number", "url", "sha256", "md5", "depends", "constrains",
            "subdir", "timestamp", "files")
    out = {}
    for p in (prefix / "conda-meta").glob("*.json"):
        data = json.loads(p.read_text())
        out[p.name] = {k: data.get(k) for k in keep}
    return out


def test_records_rebuilt_from_the_lock_install_the_same_env_without_a_solve(channel, tmp_path):
    from torchenv.conda.records import records_from_lock

    engine = _engine(tmp_path)
    recs = _solve(engine, channel, SPECS, gpu_machine())
    engine.install(records=recs, prefix=tmp_path / "a", mirrors={})
    locked = tuple(r.to_locked() for r in recs)
    again = RattlerEngine(cache_dir=tmp_path / "other-cache")
    again.solve = None  # any solve would raise TypeError
    again.install(records=records_from_lock(locked), prefix=tmp_path / "b", mirrors={})
    assert _meta(tmp_path / "a") == _meta(tmp_path / "b")


def test_a_package_that_differs_from_the_lock_is_refused(channel, tmp_path):
    engine = _engine(tmp_path)
    recs = _solve(engine, channel, SPECS, gpu_machine())
    bad = [dataclasses.replace(r, sha256="0" * 64) if r.name == "libfoo" else r for r in recs]
    with pytest.raises(HashMismatch, match="libfoo-1.0-h0_0.conda"):
        engine.install(records=bad, prefix=tmp_path / "env", mirrors={})
    assert not (tmp_path / "env" / "etc" / "libfoo.conf").exists()


def test_unsatisfiable_spec_names_it_and_suggests_a_fix(channel, tmp_path):
    with pytest.raises(BackendError) as err:
        _solve(_engine(tmp_path), channel, ["python 3.12.*", "cuda-nvcc 99.*"], gpu_machine())
    assert "`cuda-nvcc 99.*`" in err.value.message
    assert "loosen its version" in err.value.hint


def test_gpu_only_spec_on_a_gpu_less_target_says_to_assume_a_driver(channel, tmp_path):
    with pytest.raises(BackendError) as err:
        _solve(_engine(tmp_path), channel, ["pytorch-gpu"], cpu_machine())
    assert "__cuda" in err.value.message and "--assume-driver" in err.value.hint


def test_unreachable_channel_fails_fast_with_its_url(tmp_path):
    url = closed_port_url() + "/conda-forge"
    t0 = time.perf_counter()
    with pytest.raises(SourceError) as err:
        RattlerEngine(cache_dir=tmp_path).solve(channels=[url], specs=["pytorch"], platform="linux-64",
                                                virtual_packages=[], mirrors={})
    assert time.perf_counter() - t0 < 10
    assert url in err.value.message and err.value.url == url


def test_mirror_serves_repodata_and_packages_while_the_lock_keeps_canonical_urls(channel, tmp_path):
    canonical = "https://conda.anaconda.org/fake-forge"     # unreachable here: only the mirror answers
    engine = _engine(tmp_path)
    with serve_dir(channel) as mirror:
        recs = engine.solve(channels=[canonical], specs=["python 3.12.*", "pytorch"], platform="linux-64",
                            virtual_packages=virtual_packages(gpu_machine()), mirrors={canonical: (mirror,)})
        engine.install(records=recs, prefix=tmp_path / "env", mirrors={canonical: (mirror,)})
        hits = list(mirror.hits)
    assert all(r.url.startswith(canonical + "/") and r.channel == canonical for r in recs)
    assert "/linux-64/repodata.json" in hits
    assert any(h.endswith("pytorch-2.5.1-cuda126_generic_py312_h0_200.conda") for h in hits)
    assert (tmp_path / "env" / "lib" / "torch_cuda.txt").exists()


def _fake_worker(tmp_path: Path, body: str) -> str:
    script = tmp_path / "fake-python"
    script.write_text(f"#!{sys.executable}\nimport json, os, signal, sys\n{body}\n")
    script.chmod(0o755)
    return str(script)


def test_a_crash_at_worker_exit_after_the_result_is_written_is_not_a_failure(tmp_path, monkeypatch):
    import torchenv.engines.rattler as engine_mod

    monkeypatch.setattr(engine_mod.sys, "executable", _fake_worker(tmp_path, (
        'open(sys.argv[4], "w").write(json.dumps({"result": []}))\n'
        "os.kill(os.getpid(), signal.SIGSEGV)")))
    assert RattlerEngine(cache_dir=tmp_path).solve(channels=["x"], specs=["pytorch"], platform="linux-64",
                                                   virtual_packages=[], mirrors={}) == []


def test_a_worker_that_dies_early_is_reported_in_words(tmp_path, monkeypatch):
    import torchenv.engines.rattler as engine_mod

    monkeypatch.setattr(engine_mod.sys, "executable", _fake_worker(tmp_path, (
        'sys.stderr.write("thread panicked at rattler\\n")\nos.kill(os.getpid(), signal.SIGSEGV)')))
    with pytest.raises(BackendError, match=r"died during solve \(exit -11\)") as err:
        RattlerEngine(cache_dir=tmp_path).solve(channels=["x"], specs=["pytorch"], platform="linux-64",
                                                virtual_packages=[], mirrors={})
    assert "thread panicked" in err.value.hint


def test_reinstall_relinks_files_changed_by_hand(channel, tmp_path):
    """``up`` repairing a prefix: a plain install trusts conda-meta; ``reinstall=True`` re-links every file."""
    engine = _engine(tmp_path)
    recs = _solve(engine, channel, ["python 3.12.*", "pytorch"], cpu_machine())
    prefix = tmp_path / "env"
    engine.install(records=recs, prefix=prefix, mirrors={})
    conf = prefix / "etc" / "libfoo.conf"
    conf.write_text("edited by hand\n")
    engine.install(records=recs, prefix=prefix, mirrors={})
    assert conf.read_text() == "edited by hand\n"
    engine.install(records=recs, prefix=prefix, mirrors={}, reinstall=True)
    assert conf.read_text() == f"prefix={prefix}\n"


def _refused_in_chinese(call) -> TorchenvError:
    from torchenv import i18n

    i18n.activate({"TORCHENV_LANG": "zh_CN"})
    try:
        with pytest.raises(TorchenvError) as err:
            call()
    finally:
        i18n.deactivate()
    return err.value


def test_what_torchenv_says_about_a_failed_conda_solve_or_install_is_in_chinese(channel, tmp_path):
    """The worker process writes its messages in the language of the torchenv that started it; the solver's
    own text (after the first line, or after the last colon) is quoted as rattler wrote it."""
    from tests.support.english import english_left

    engine = _engine(tmp_path)
    bad = [dataclasses.replace(r, sha256="0" * 64) if r.name == "libfoo" else r
           for r in _solve(engine, channel, SPECS, gpu_machine())]
    url = closed_port_url() + "/conda-forge"
    calls = {
        "unsatisfiable": lambda: _solve(engine, channel, ["python 3.12.*", "cuda-nvcc 99.*"], gpu_machine()),
        "needs a driver": lambda: _solve(engine, channel, ["pytorch-gpu"], cpu_machine()),
        "unreachable": lambda: RattlerEngine(cache_dir=tmp_path / "c2").solve(
            channels=[url], specs=["pytorch"], platform="linux-64", virtual_packages=[], mirrors={}),
        "hash mismatch": lambda: engine.install(records=bad, prefix=tmp_path / "env", mirrors={}),
    }
    for case, call in calls.items():
        exc = _refused_in_chinese(call)
        ours = exc.message.splitlines()[0].rpartition("：")[0] or exc.message.splitlines()[0]
        assert re.search(r"[\u4e00-\u9fff]", ours) and re.search(r"[\u4e00-\u9fff]", exc.hint or ""), (case, exc)
        assert not english_left(ours + "\n" + (exc.hint or "")), (case, exc.message, exc.hint)
