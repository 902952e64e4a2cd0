"""torchenv.toml and flag errors, init's findings, mirror and installer messages in Chinese.

The errors keep where they point (file:line: key) and the technical tokens as typed; only the
words around them change. ``--json`` stays English.
"""
from __future__ import annotations

import json
import re

from torchenv import i18n

ZH = {"LANG": "zh_CN.UTF-8"}
CJK = re.compile(r"[\u4e00-\u9fff]")


def test_a_bad_torchenv_toml_is_explained_in_chinese_naming_file_line_and_key(sh, tmp_path):
    (tmp_path / "torchenv.toml").write_text('[torch]\nversion = "2.8"\nverison = "2.8"\n')
    ran = sh.torchenv("plan", cwd=tmp_path, env=ZH)
    assert ran.rc == 2, ran.text
    assert f"{tmp_path / 'torchenv.toml'}:3: torch.verison: [torch] 中有未知的键 'verison'" in ran.err
    assert "提示： 你是不是想写 'version'？[torch] 中可用的键：version, cuda" in " ".join(ran.err.split("\n"))


def test_a_toml_syntax_error_and_a_wrong_type_read_in_chinese(sh, tmp_path):
    toml = tmp_path / "torchenv.toml"
    toml.write_text("[torch]\npython = 3.10\n")
    ran = sh.torchenv("plan", cwd=tmp_path, env=ZH)
    assert f"{toml}:2: torch.python: 应为字符串，实际是数字" in ran.err
    assert 'python = "3.11"（不加引号时 TOML 会把 3.10 读成数字 3.1）' in ran.err
    toml.write_text('[torch\ncuda = "cu121"\n')
    ran = sh.torchenv("plan", cwd=tmp_path, env=ZH)
    assert ran.rc == 2 and f"{toml}:1: TOML 格式错误：" in ran.err


def test_a_bad_flag_names_the_flag_in_chinese(sh, tmp_path):
    ran = sh.torchenv("plan", "--cuda", "cuda", cwd=tmp_path, env=ZH)
    assert ran.rc == 2
    assert "<flags>: --cuda: 'cuda' 没有说明是哪个 CUDA 版本" in ran.err
    assert '"auto"' in ran.err and '"cu121"' in ran.err
    ran = sh.torchenv("plan", "--assume-driver", "abc", cwd=tmp_path, env=ZH)
    assert ran.rc == 2 and "--assume-driver abc: 不是 NVIDIA 驱动版本" in ran.err


def test_intent_errors_in_json_do_not_change_with_the_locale(sh, tmp_path):
    (tmp_path / "torchenv.toml").write_text('[torch]\ncuda = "cu12.x"\n')
    english = sh.torchenv("plan", "--json", cwd=tmp_path, env={"LANG": "C.UTF-8"})
    chinese = sh.torchenv("plan", "--json", cwd=tmp_path, env=ZH)
    assert english.rc == chinese.rc == 2
    assert json.loads(english.out) == json.loads(chinese.out) and not CJK.search(chinese.out)


def test_init_says_in_chinese_what_it_found(sh, tmp_path):
    (tmp_path / "requirements.txt").write_text("torch==2.4.1+cu121\nnumpy\n")
    (tmp_path / ".python-version").write_text("3.8.5\n")
    ran = sh.torchenv("init", cwd=tmp_path, env=ZH)
    assert ran.rc == 0, ran.text
    assert "requirements.txt: 文件存在  ->  [env] requirements += [\"requirements.txt\"]" in ran.out
    assert 'torch==2.4.1+cu121  ->  version = "==2.4.1"' in ran.out
    assert 'torch==2.4.1+cu121  ->  cuda = "cu121"（本地标签）' in ran.out
    english = sh.torchenv("init", "--force", "--json", cwd=tmp_path, env=ZH)
    assert not CJK.search(english.out) and "file exists" in english.out


def test_installer_failure_hints_read_in_chinese_and_keep_their_kind():
    from torchenv.engines.failures import classify

    output = "error: Failed to fetch: `https://mirror.example/simple/numpy/`\n  Caused by: dns error"
    assert classify(output).hint.startswith("the index's host name does not resolve")
    i18n.activate(ZH)
    try:
        failure = classify(output)
    finally:
        i18n.deactivate()
    assert failure.kind == "host name not found"
    assert failure.hint.startswith("索引的主机名无法解析") and "`torchenv mirror test`" in failure.hint


def test_an_unknown_mirror_preset_reads_in_chinese(sh, tmp_path):
    (tmp_path / "torchenv.toml").write_text('[mirror]\nuse = "tunaa"\n')
    ran = sh.torchenv("plan", cwd=tmp_path, env=ZH)
    assert ran.rc == 2
    assert "未知的镜像预设 'tunaa'" in ran.err and "已知的预设：" in ran.err and "tuna" in ran.err


def test_every_line_init_writes_about_a_project_reads_in_chinese_and_json_carries_its_data(sh, tmp_path):
    """What init found is data (``init.*`` of the reason catalogue): the README's extras line, which had no
    template to match back and stayed English, reads in Chinese; ``init --json`` carries each sentence's id."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "demo"\nversion = "0.1"\n'
                                             'dependencies = ["torch==2.4.1"]\n'
                                             '[project.optional-dependencies]\nall = ["scipy"]\n')
    (tmp_path / "README.md").write_text('Install:\n\n```\npip install -e ".[all]"\n```\n')
    ran = sh.torchenv("init", cwd=tmp_path, env=ZH)
    assert ran.rc == 0, ran.text
    assert "extras = ['all']：项目自己的可选依赖，随项目一起锁定并安装" in ran.out, ran.out
    assert "optional dependencies" not in ran.out
    data = json.loads(sh.torchenv("init", "--force", "--json", cwd=tmp_path, env=ZH).out)
    ids = {d["id"] for f in data["found"] for d in f.get("data", {}).values()}
    assert "init.extras_taken" in ids and "init.setting_by" in ids, data["found"]


def test_a_real_projects_init_reads_in_chinese(sh, tmp_path):
    """stable-diffusion-webui (tests/intent/corpus/a1111-webui): its installer names the requirement file; that
    line, like every other, reads in Chinese."""
    import shutil
    from pathlib import Path

    corpus = Path(__file__).resolve().parents[1] / "intent" / "corpus" / "a1111-webui"
    project = tmp_path / "a1111-webui"
    shutil.copytree(corpus, project, ignore=shutil.ignore_patterns("expect.toml", "ORIGIN*"))
    ran = sh.torchenv("init", cwd=project, env=ZH)
    assert ran.rc == 0, ran.text
    said = " ".join(ran.out.split())
    assert "modules/launch_utils.py:50 指定了它" in said and "names it" not in said, said
