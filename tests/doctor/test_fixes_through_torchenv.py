"""For an env torchenv made, doctor's fixes are torchenv commands naming torchenv.toml, never a raw
``pip install ... --index-url`` that bypasses the lock (and may point at an index this machine cannot reach)."""
from __future__ import annotations

from tests.doctor._fakes import by_id, make_fake_env, run_doctor

from torchenv import safety

CU130 = "sm_75 sm_80 sm_86 sm_90 sm_100 sm_120"


def _project_env(tmp_path, *args, **kwargs):
    project = tmp_path / "proj"
    project.mkdir()
    (project / "torchenv.toml").write_text('# ours\n[torch]\nversion = "2.13"\n')
    env = make_fake_env(project / ".venv", *args, **kwargs)
    safety.write_owner(env, project, backend="venv")
    return project, env


def _raw(command: str) -> bool:
    return "pip install" in command or "pip uninstall" in command or "--index-url" in command


def test_a_torchenv_env_gets_torchenv_fixes_that_name_the_file(tmp_path, capsys):
    project, env = _project_env(tmp_path, "2.13.0+cu130", cuda="13.0", archs=CU130)
    _, data = run_doctor(capsys, "--env", str(env), "--no-import", "--assume-gpu", "8.6",
                         "--assume-driver", "550.54.14")
    [f] = by_id(data, "driver-too-old")
    assert f["fix"].startswith("torchenv up --torch 2.13.0 --cuda cu126 --save")
    assert str(project / "torchenv.toml") in f["fix"] and 'cuda = "cu126"' in f["fix"]
    assert not any(_raw(c) for c in [f["fix"], *f["alternatives"]])
    assert "bypasses torchenv.lock" in f["detail"]


def test_no_finding_of_a_torchenv_env_suggests_a_raw_install(tmp_path, capsys):
    project, env = _project_env(tmp_path, "2.13.0+cu130", cuda="13.0", archs=CU130)
    _, data = run_doctor(capsys, "--env", str(env), "--no-import", "--assume-no-gpu")
    assert data["findings"]
    for f in data["findings"]:
        assert not any(_raw(c) for c in [f["fix"] or "", *f["alternatives"]]), f


def test_an_env_torchenv_did_not_make_keeps_installer_commands(tmp_path, capsys):
    env = make_fake_env(tmp_path / "e", "2.13.0+cpu")
    _, data = run_doctor(capsys, "--env", str(env), "--no-import", "--assume-gpu", "8.6",
                         "--assume-driver", "550.54.14")
    [f] = by_id(data, "cpu-build")
    assert "torch==2.13.0+cu126" in f["fix"]
