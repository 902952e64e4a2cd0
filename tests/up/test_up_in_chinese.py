"""`torchenv up` in Chinese on a fake-wheel project: the steps and the ready / up-to-date lines.

The lock and the env's state stay English data; the English no-op reads no catalogue.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import pytest
from tests.support.console import unwrapped

from torchenv import i18n

CJK = re.compile(r"[\u4e00-\u9fff]")


def _up(world, monkeypatch, capsys, lang: str, *extra: str) -> tuple[int, str, str]:
    from torchenv.cli import main

    monkeypatch.setenv("LANG", lang)
    for var in ("TORCHENV_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    try:
        verify = [] if "--verify" in extra else ["--no-verify"]     # up verifies unless told not to
        rc = main(["up", "-C", str(world.project), *verify, *(e for e in extra if e != "--verify")])
    finally:
        i18n.deactivate()
    out, err = capsys.readouterr()
    return rc, unwrapped(out), err


@pytest.mark.parametrize("installer", ["uv"], indirect=True)
def test_up_shows_its_steps_in_chinese_and_writes_an_english_lock(world, monkeypatch, capsys):
    rc, out, err = _up(world, monkeypatch, capsys, "zh_CN.UTF-8")
    assert rc == 0, err
    for step in ("正在制定计划（探测 + 解析）", "正在锁定 linux-x86_64-cpu（uv）", "正在创建 ",
                 "，使用 Python 3.11（uv）", "已写入 torchenv.lock（目标 linux-x86_64-cpu）",
                 "就绪：", "（目标 linux-x86_64-cpu，已安装）", "激活："):
        assert step in out, out
    assert not re.search(r"planning|locking|creating|wrote|ready:", out), out
    lock = (world.project / "torchenv.lock").read_text()
    assert not CJK.search(lock)

    rc, out, err = _up(world, monkeypatch, capsys, "zh_CN.UTF-8")
    assert rc == 0 and "与 torchenv.lock 一致，已是最新（目标 linux-x86_64-cpu）" in out, out + err


@pytest.mark.parametrize("installer", ["uv"], indirect=True)
def test_the_english_up_is_unchanged_and_its_noop_reads_no_catalogue(world, monkeypatch, capsys):
    rc, out, _err = _up(world, monkeypatch, capsys, "C.UTF-8")
    assert rc == 0
    assert "planning (probe + resolve)" in out and "ready:" in out and "(target linux-x86_64-cpu, installed)" in out
    assert not CJK.search(out)
    read = []
    monkeypatch.setattr(i18n, "_load", lambda: read.append(1))
    rc, out, _err = _up(world, monkeypatch, capsys, "C.UTF-8")
    assert rc == 0 and "is up to date with torchenv.lock (target linux-x86_64-cpu)" in out
    assert read == []


@pytest.mark.parametrize("installer", ["uv"], indirect=True)
def test_the_noop_up_in_a_fresh_process_speaks_the_locale_on_both_paths(world):
    """The full no-op check, then the stamp fast path it records (answered before the CLI is built); the
    requirement-file note it prints comes back from the stamp as English data and is shown in Chinese too."""
    from torchenv.flows import noop

    (world.project / "requirements.txt").write_text("-e .\n")
    world.run_up()
    env = {k: v for k, v in os.environ.items() if k not in ("TORCHENV_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES")}
    cmd = [sys.executable, "-m", "torchenv", "up", "-C", str(world.project)]
    stamp = world.project / noop.STAMP_DIR / noop.STAMP_FILE
    for path in ("full", "stamp"):
        assert stamp.exists() == (path == "stamp")
        chinese = subprocess.run(cmd, capture_output=True, text=True, env={**env, "LANG": "zh_CN.UTF-8"})
        assert chinese.returncode == 0, chinese.stderr
        assert "与 torchenv.lock 一致，已是最新（目标 linux-x86_64-cpu）" in chinese.stdout, path
        assert "requirements.txt:1：`-e .` 是本项目自身，不是依赖：不会被锁定" in chinese.stderr, (path, chinese.stderr)
        english = subprocess.run(cmd, capture_output=True, text=True, env={**env, "LANG": "C.UTF-8"})
        assert "is up to date with torchenv.lock (target linux-x86_64-cpu)" in english.stdout, path
        assert "requirements.txt:1: `-e .` is this project itself, not a dependency: it is not locked" \
            in english.stderr, path


@pytest.mark.parametrize("installer", ["uv"], indirect=True)
def test_from_a_subdirectory_both_paths_say_where_the_project_is_in_chinese(world):
    """The "found above" line comes from the full path and from the stamp; both say it in the locale's words."""
    from torchenv.flows import noop

    sub = world.project / "src"
    sub.mkdir()
    world.run_up()
    time.sleep(2 * noop.SETTLE_NS / 1e9)          # the install's files are settled: the full check stamps
    env = {k: v for k, v in os.environ.items() if k not in ("TORCHENV_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES")}
    cmd = [sys.executable, "-m", "torchenv", "up"]
    stamp = world.project / noop.STAMP_DIR / noop.STAMP_FILE
    found = f"torchenv: 使用 {world.project / 'torchenv.toml'}（在当前目录的上层找到）"
    for path in ("full", "stamp"):
        assert stamp.exists() == (path == "stamp")
        ran = subprocess.run(cmd, capture_output=True, text=True, cwd=sub, env={**env, "LANG": "zh_CN.UTF-8"})
        assert ran.returncode == 0 and "已是最新" in ran.stdout, ran.stderr
        assert ran.stderr.splitlines()[0] == found, (path, ran.stderr)


def _site(world):
    return next((world.project / ".venv").glob("lib/python*/site-packages"))


@pytest.mark.parametrize("installer", ["uv"], indirect=True)
def test_up_names_a_damaged_env_and_an_interrupted_verify_in_chinese(world, monkeypatch, capsys):
    """The reasons made in backends/state.py (English data in the env's state) read in Chinese where shown."""
    from torchenv.backends import state

    monkeypatch.setenv("COLUMNS", "400")               # one line per step: rich wraps at the terminal width
    world.run_up()
    (_site(world) / "filelock" / "__init__.py").unlink()
    rc, out, err = _up(world, monkeypatch, capsys, "zh_CN.UTF-8")
    assert rc == 0, err
    assert "：site-packages 中缺少 filelock/__init__.py；正在修复（重新安装每个锁定的文件）" in out, out
    assert not re.search(r"missing|repairing", out), out

    state.begin_verify(world.project / ".venv")         # what a verify cut short leaves behind
    rc, out, err = _up(world, monkeypatch, capsys, "zh_CN.UTF-8", "--verify")
    assert "：上次验证被中断了；重新验证" in out, out + err
    assert not re.search(r"last verify|interrupted|verifying again", out), out


@pytest.mark.parametrize("installer", ["uv"], indirect=True)
def test_the_noop_up_names_an_editable_line_in_chinese(world, monkeypatch, capsys):
    (world.project / "requirements.txt").write_text("-e .\n")
    world.run_up()
    rc, out, err = _up(world, monkeypatch, capsys, "zh_CN.UTF-8")
    assert rc == 0 and "已是最新" in out, out + err
    assert "requirements.txt:1：`-e .` 是本项目自身，不是依赖：不会被锁定" in err, err
    rc, _out, err = _up(world, monkeypatch, capsys, "C.UTF-8")
    assert "requirements.txt:1: `-e .` is this project itself, not a dependency: it is not locked" in err, err


@pytest.mark.parametrize("installer", ["uv"], indirect=True)
def test_the_reachable_builds_warning_reads_in_chinese_and_stays_english_data(world, monkeypatch, capsys):
    from torchenv.intent.load import load_project_intent
    from torchenv.reasons import reason
    from torchenv.resolve.reachable import Candidate, _with_fallback, fallback_said
    from torchenv.ui import Ui

    plan = world.plan(load_project_intent(world.project))
    cand = Candidate("==2.4.1", "cpu", "3.11", reason("fallback.pypi_build", version="2.4.1"))
    skipped = [reason("fallback.candidate_failed", flags=f"--torch =={v}", candidate=reason("ask.tier", tier="cpu"),
                      why=reason("fetch.no_source")) for v in ("2.5", "2.6")]
    fallback = _with_fallback(plan, skipped, cand, local=False)
    (warning,) = fallback_said(fallback)
    assert warning.startswith("reachable builds: chose torch 2.4.1 (cpu)")     # the data (and --json) stays English
    i18n.activate({"TORCHENV_LANG": "zh_CN"})
    try:
        Ui().warn(warning)
    finally:
        i18n.deactivate()
    err = unwrapped(capsys.readouterr().err)
    assert "可获取的构建：为 Python 3.11 选择了 torch 2.4.1（cpu），PyPI 自己的 torch 2.4.1 构建，因为从这里可以下载到它；" \
           "跳过了 --torch ==2.5（tier cpu）：" in err and "（另有 1 个）" in err, err
    assert "no source" not in err and "skipped" not in err, err


@pytest.mark.parametrize("installer", ["uv"], indirect=True)
def test_every_step_and_note_of_up_and_lock_reads_in_chinese(world, monkeypatch, capsys):
    """Each path of ``up`` a user meets (create, repair, restore, sync, --force, kept flags, lock) says no
    English sentence in Chinese; the same runs in English keep their words."""
    from tests.support.english import english_left

    from torchenv.cli import main

    monkeypatch.setenv("COLUMNS", "400")               # one line per step: rich wraps at the terminal width
    said = []

    def run(*extra: str) -> str:
        rc, out, err = _up(world, monkeypatch, capsys, "zh_CN.UTF-8", *extra)
        assert rc == 0, err
        said.append(out + "\n" + err)
        return said[-1]

    run("--python", "3.11")                             # created; its flag is remembered in the lock
    assert "沿用了上次 `torchenv up` 的 --python 3.11" in run(), said[-1]
    (_site(world) / "filelock" / "__init__.py").unlink()
    run("--reset-overrides")                            # repaired
    (_site(world) / "extra-1.0.dist-info").mkdir()
    assert "是手动添加的" in run(), said[-1]                   # restored, naming what was added by hand
    (world.project / "requirements.txt").write_text("six\n")
    assert "新的锁文件有以下不同" in run(), said[-1]                # synced to a new lock
    assert "正在重建（--force）" in run("--force"), said[-1]
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    try:
        assert main(["lock", "-C", str(world.project)]) == 0
    finally:
        i18n.deactivate()
    out, err = capsys.readouterr()
    said.append(out + err)
    assert "现有目标：linux-x86_64-cpu" in said[-1], said[-1]
    left = {text: english_left(text) for text in said}
    assert not {k: v for k, v in left.items() if v}


@pytest.mark.parametrize("installer", ["uv"], indirect=True)
def test_an_offline_up_that_cannot_start_says_why_in_chinese(world, monkeypatch, capsys):
    from tests.support.english import english_left

    monkeypatch.setenv("COLUMNS", "400")
    empty = world.root / "empty"
    empty.mkdir()
    for source, said in ((world.root / "nowhere", "没有锁文件，而离线安装无法解析出一个"), (empty, "该文件夹中：")):
        rc, out, err = _up(world, monkeypatch, capsys, "zh_CN.UTF-8", "--offline", "--from", str(source))
        assert rc != 0 and said in err, err
        assert not english_left(out + "\n" + err), err
    rc, _out, err = _up(world, monkeypatch, capsys, "C.UTF-8", "--offline", "--from", str(empty))
    assert "no lock file, and an offline install cannot resolve one; the folder lacks:" in err, err


def test_a_source_failing_while_files_are_found_or_fetched_is_told_in_chinese(capsys, monkeypatch):
    """sources/locate.py, getfile.py and deadhosts.py warn as a mirror dies mid-run; each warning is catalogue data."""
    from tests.support.english import english_left

    from torchenv.reasons import SOURCES, reason
    from torchenv.sources.deadhosts import SourceMemory
    from torchenv.ui import Ui

    monkeypatch.setenv("COLUMNS", "400")
    i18n.activate({"TORCHENV_LANG": "zh_CN"})
    try:
        SourceMemory(Ui()).failed("https://download.pytorch.org/whl/cpu", "host name not found (DNS)",
                                  unreachable=True)        # the warning the dead-host memory prints itself
        for w in [reason("fetch.url_failed", SOURCES, url="https://mirror.example/whl/cpu", name="torch",
                         version="2.4.1+cpu"),
                  reason("fetch.url_failed_file", SOURCES, url="https://files.example/torch-2.4.1.whl",
                         file="torch-2.4.1.whl", why="connection refused")]:
            Ui().warn(w)
    finally:
        i18n.deactivate()
    err = capsys.readouterr().err
    assert "download.pytorch.org 出错（找不到主机名（DNS））；本次运行不再访问它" in err, err
    assert not english_left(err), err
