"""Driving a user's conda/mamba/micromamba: arguments, overrides, JSON parsing (fake executables)."""
from __future__ import annotations

import json
import os
import stat
import sys
import textwrap
from pathlib import Path

import pytest
from tests.conda.helpers import cpu_machine, gpu_machine

from torchenv.backends.conda import select_engine
from torchenv.conda.virtual import virtual_packages
from torchenv.engines.conda_bin import CondaBinary
from torchenv.engines.rattler import RattlerEngine
from torchenv.errors import BackendError
from torchenv.machine import CondaExe, Machine

CF = "https://conda.anaconda.org/conda-forge"
MIRROR = "https://mirror.example.cn/anaconda/cloud/conda-forge"
SHA = "ab" * 32
# conda style: hashes and URLs only in FETCH; one package (libfoo) already cached -> LINK only
CONDA_SOLVE = {"success": True, "dry_run": True, "actions": {
    "FETCH": [{"name": "pytorch", "version": "2.5.1", "build": "cuda126_generic_py312_h0_200", "build_number": 200,
               "subdir": "linux-64", "url": f"{MIRROR}/linux-64/pytorch-2.5.1-cuda126_generic_py312_h0_200.conda",
               "md5": "cd" * 16, "sha256": SHA, "size": 10, "depends": ["__cuda", "libfoo >=1.0"],
               "timestamp": 1700000000, "channel": "conda-forge"}],
    "LINK": [{"name": "pytorch", "version": "2.5.1", "build_string": "cuda126_generic_py312_h0_200",
              "build_number": 200, "channel": "conda-forge", "base_url": CF, "platform": "linux-64",
              "dist_name": "pytorch-2.5.1-cuda126_generic_py312_h0_200"},
             {"name": "libfoo", "version": "1.0", "build_string": "h0_0", "build_number": 0,
              "channel": "conda-forge", "base_url": CF, "platform": "linux-64", "dist_name": "libfoo-1.0-h0_0"}]}}

FAKE = textwrap.dedent('''\
    #!{python}
    import json, os, sys
    from pathlib import Path
    log = Path(os.environ["FAKE_CONDA_LOG"])
    env = {{k: v for k, v in os.environ.items() if k.startswith("CONDA_")}}
    entry = {{"argv": sys.argv[1:], "env": env}}
    if "--file" in sys.argv:
        entry["explicit"] = Path(sys.argv[sys.argv.index("--file") + 1]).read_text()
        prefix = Path(sys.argv[sys.argv.index("--prefix") + 1])
        (prefix / "conda-meta").mkdir(parents=True, exist_ok=True)
    with log.open("a") as f:
        f.write(json.dumps(entry) + "\\n")
    if sys.argv[1] == "info":
        print(json.dumps({{"pkgs_dirs": [os.environ["FAKE_PKGS"]]}}))
    elif os.environ.get("FAKE_CONDA_FAIL"):
        print(json.dumps({{"exception_name": "PackagesNotFoundError", "error": "PackagesNotFoundError: The following packages are not available from current channels:\\n  - cuda-nvcc=99"}}))
        sys.exit(1)
    elif "--dry-run" in sys.argv:
        print(os.environ["FAKE_SOLVE"])
    else:
        print(json.dumps({{"success": True}}))
''')


@pytest.fixture
def fake_conda(tmp_path, monkeypatch):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    exe = bindir / "conda"
    exe.write_text(FAKE.format(python=sys.executable))
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    pkgs = tmp_path / "pkgs"
    rec = pkgs / "libfoo-1.0-h0_0" / "info"
    rec.mkdir(parents=True)
    (rec / "repodata_record.json").write_text(json.dumps({
        "name": "libfoo", "version": "1.0", "build": "h0_0", "build_number": 0, "subdir": "linux-64",
        "url": f"{CF}/linux-64/libfoo-1.0-h0_0.conda", "md5": "ef" * 16, "sha256": "12" * 32}))
    monkeypatch.setenv("FAKE_CONDA_LOG", str(tmp_path / "log.jsonl"))
    monkeypatch.setenv("FAKE_PKGS", str(pkgs))
    monkeypatch.setenv("FAKE_SOLVE", json.dumps(CONDA_SOLVE))
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("CONDA_OVERRIDE_CUDA", "11.0")     # the host's; must not leak into the target's solve
    return exe


def _log(tmp_path: Path) -> list[dict]:
    return [json.loads(line) for line in (tmp_path / "log.jsonl").read_text().splitlines()]


def test_solve_runs_a_dry_run_create_with_the_targets_virtual_packages(fake_conda, tmp_path):
    engine = CondaBinary(path=str(fake_conda), kind="conda")
    recs = engine.solve(channels=[CF], specs=["python 3.12.*", "pytorch ==2.5.1 cuda*"], platform="linux-64",
                        virtual_packages=virtual_packages(gpu_machine("12.9")), mirrors={CF: (MIRROR,)})
    solve = _log(tmp_path)[0]
    argv = solve["argv"]
    assert argv[:4] == ["create", "--dry-run", "--json", "--yes"]
    assert "--override-channels" in argv and argv[argv.index("--channel") + 1] == CF
    assert argv[-2:] == ["python 3.12.*", "pytorch ==2.5.1 cuda*"]
    assert solve["env"]["CONDA_SUBDIR"] == "linux-64"
    assert solve["env"]["CONDA_OVERRIDE_CUDA"] == "12.9" and solve["env"]["CONDA_OVERRIDE_GLIBC"] == "2.36"
    by = {r.name: r for r in recs}
    # the mirror URL conda reported is locked as the canonical one
    assert by["pytorch"].url == f"{CF}/linux-64/pytorch-2.5.1-cuda126_generic_py312_h0_200.conda"
    assert by["pytorch"].channel == CF and by["pytorch"].timestamp == 1700000000000
    # a cached package's hashes come from conda's package cache
    assert by["libfoo"].sha256 == "12" * 32 and by["libfoo"].md5 == "ef" * 16


def test_gpu_less_target_hides_the_hosts_driver(fake_conda, tmp_path):
    CondaBinary(path=str(fake_conda), kind="conda").solve(
        channels=[CF], specs=["pytorch"], platform="linux-64", virtual_packages=virtual_packages(cpu_machine()),
        mirrors={})
    assert _log(tmp_path)[0]["env"]["CONDA_OVERRIDE_CUDA"] == ""


def test_install_hands_conda_an_explicit_file(fake_conda, tmp_path):
    from torchenv.conda.records import CondaRecord

    rec = CondaRecord(name="libfoo", version="1.0", build="h0_0", build_number=0, subdir="linux-64",
                      url=f"{CF}/linux-64/libfoo-1.0-h0_0.conda", channel=CF, sha256="12" * 32, md5="ef" * 16)
    env = tmp_path / "env"
    (env / "conda-meta").mkdir(parents=True)
    (env / "conda-meta" / "history").touch()          # what CondaBackend.create() leaves
    engine = CondaBinary(path=str(fake_conda), kind="micromamba")
    engine.install(records=[rec], prefix=env, mirrors={})
    call = _log(tmp_path)[0]
    assert call["argv"][:4] == ["create", "--yes", "--json", "--prefix"]
    assert call["explicit"].splitlines()[-2:] == ["@EXPLICIT", f"{CF}/linux-64/libfoo-1.0-h0_0.conda#{'ef' * 16}"]
    # an env that already holds packages is updated in place from the explicit list, not re-created
    (env / "conda-meta" / "libfoo-1.0-h0_0.json").write_text("{}")
    engine.install(records=[rec], prefix=env, mirrors={})
    assert _log(tmp_path)[1]["argv"][0] == "install"


def test_a_failed_solve_names_the_spec(fake_conda, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_CONDA_FAIL", "1")
    with pytest.raises(BackendError) as err:
        CondaBinary(path=str(fake_conda), kind="conda").solve(
            channels=[CF], specs=["python 3.12.*", "cuda-nvcc 99.*"], platform="linux-64",
            virtual_packages=[], mirrors={})
    assert "PackagesNotFoundError" in err.value.message and "cuda-nvcc=99" in err.value.message
    assert "`cuda-nvcc 99.*`" in err.value.hint


def test_engine_choice_prefers_the_users_conda_else_rattler(fake_conda, monkeypatch):
    monkeypatch.delenv("TORCHENV_CONDA_ENGINE", raising=False)
    with_conda = Machine(os="linux", arch="x86_64", conda=[CondaExe("conda", str(fake_conda), "24.1.0")])
    assert isinstance(select_engine(with_conda), CondaBinary)
    assert isinstance(select_engine(cpu_machine()), RattlerEngine)
    gone = Machine(os="linux", arch="x86_64", conda=[CondaExe("conda", "/nonexistent/conda")])
    assert isinstance(select_engine(gone), RattlerEngine)     # a saved probe from another host
    monkeypatch.setenv("TORCHENV_CONDA_ENGINE", "rattler")
    assert isinstance(select_engine(with_conda), RattlerEngine)


def test_install_into_a_prefix_up_has_claimed_keeps_its_marker(fake_conda, tmp_path):
    """`up` marks the prefix (`.torchenv/`) before installing: `create` would wipe or refuse it, so `install`."""
    from torchenv.conda.records import CondaRecord

    rec = CondaRecord(name="libfoo", version="1.0", build="h0_0", build_number=0, subdir="linux-64",
                      url=f"{CF}/linux-64/libfoo-1.0-h0_0.conda", channel=CF, sha256="12" * 32, md5="ef" * 16)
    env = tmp_path / "env"
    (env / "conda-meta").mkdir(parents=True)
    (env / "conda-meta" / "history").touch()
    (env / ".torchenv").mkdir()
    engine = CondaBinary(path=str(fake_conda), kind="micromamba")
    engine.install(records=[rec], prefix=env, mirrors={})
    assert _log(tmp_path)[0]["argv"][:2] == ["install", "--yes"]
    assert (env / ".torchenv").is_dir() and (env / "conda-meta" / "history").is_file()
    engine.install(records=[rec], prefix=env, mirrors={}, reinstall=True)
    assert "--force-reinstall" in _log(tmp_path)[1]["argv"]
