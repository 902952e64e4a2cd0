"""`torchenv export` as a user meets it: clear refusals, nothing of theirs overwritten."""
from __future__ import annotations

from torchenv.cli import main


def test_unknown_name_for_a_pylock_is_refused_with_the_name_installers_need(locked, tmp_path, capsys):
    code = main(["export", "pylock", "-C", str(locked.project), "-o", str(tmp_path / "deps.toml")])
    assert code == 2
    err = capsys.readouterr().err
    assert "pylock.toml or pylock.NAME.toml" in err and "Traceback" not in err
    assert not (tmp_path / "deps.toml").exists()


def test_a_users_own_file_is_never_overwritten(locked, capsys):
    mine = locked.project / "pyproject.toml"
    mine.write_text('[project]\nname = "mine"\n')
    assert main(["export", "uv", "-C", str(locked.project), "-o", str(mine)]) == 1
    assert "not written by torchenv" in capsys.readouterr().err
    assert mine.read_text() == '[project]\nname = "mine"\n'


def test_an_earlier_export_is_refreshed_in_place(locked):
    out = locked.project / "pylock.toml"
    assert main(["export", "pylock", "-C", str(locked.project), "-o", str(out)]) == 0
    first = out.read_text()
    assert main(["export", "pylock", "-C", str(locked.project), "-o", str(out)]) == 0
    assert out.read_text() == first                    # same lock, same bytes


def test_several_targets_need_one_named(locked, capsys):
    from dataclasses import replace

    from torchenv.lockfile.io import read_lock, write_lock

    lock = read_lock(locked.lock)
    write_lock(locked.lock, lock.with_target(replace(lock.targets[0], name="linux-x86_64-cpu-b")))
    assert main(["export", "requirements", "-C", str(locked.project)]) == 2
    err = capsys.readouterr().err
    assert "linux-x86_64-cpu, linux-x86_64-cpu-b" in err and "--target" in err
    assert main(["export", "requirements", "-C", str(locked.project), "--target", "linux-x86_64-cpu-b"]) == 0


def test_no_lock_says_how_to_make_one(tmp_path, capsys):
    assert main(["export", "pylock", "-C", str(tmp_path)]) == 2
    assert "torchenv lock" in capsys.readouterr().err
