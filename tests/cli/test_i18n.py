"""Messages in Chinese when the locale says so; English data (--json, files) whatever the locale.

The catalogue checks read the code itself (every ``_()``/``N_()`` id, found with ``ast``) and the
shipped .po/.mo; the end-to-end ones run the real ``python -m torchenv`` with ``LANG=zh_CN.UTF-8``.
"""
from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

from torchenv import i18n

REPO = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("i18n_tool", REPO / "tools" / "i18n.py")
tool = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tool)

ZH = {"LANG": "zh_CN.UTF-8"}
CJK = re.compile(r"[\u4e00-\u9fff]")
GTX_1080 = ("--assume-driver", "575.51.03", "--assume-gpu", "6.1", "--torch", "2.8")


@pytest.fixture
def po() -> dict[str, str]:
    return tool.read_po(tool.po_path("zh_CN"))


def test_every_message_id_in_the_code_has_a_chinese_entry(po):
    missing = {k: where for k, where in tool.code_ids().items() if not po.get(k)}
    assert not missing, f"add these to the zh_CN .po (python tools/i18n.py update): {missing}"


def test_placeholders_agree_between_english_and_chinese(po):
    wrong = {k: v for k, v in po.items() if k and tool.placeholders(k) != tool.placeholders(v)}
    assert not wrong


def test_the_shipped_mo_is_compiled_from_the_po(po):
    assert tool.mo_path("zh_CN").read_bytes() == tool.mo_bytes(po), "run: python tools/i18n.py compile"


@pytest.mark.integration
@pytest.mark.timeout(1200)       # the first test to ask for it waits for ./bootstrap
def test_the_catalogue_is_package_data(installed_torchenv, tmp_path):
    """torchenv as users install it (a built wheel, no source tree beside it) carries the compiled catalogue
    and speaks Chinese with it."""
    shipped = list(installed_torchenv.home.rglob("site-packages/torchenv/locale/zh_CN/LC_MESSAGES/*.mo"))
    assert [p.read_bytes() for p in shipped] == [tool.mo_path("zh_CN").read_bytes()], shipped
    ran = installed_torchenv.run("plan", *GTX_1080, "--cuda", "cu128", cwd=tmp_path, TORCHENV_LANG="zh_CN")
    assert ran.returncode == 2 and "错误：" in ran.stderr and "可以改用" in ran.stderr, ran.stdout + ran.stderr


@pytest.mark.parametrize(("environ", "wanted"), [
    ({"LANG": "zh_CN.UTF-8"}, ("zh_CN",)),
    ({"LC_ALL": "zh_TW.UTF-8", "LANG": "en_US.UTF-8"}, ("zh_TW", "zh_CN")),
    ({"LC_MESSAGES": "zh_CN", "LANG": "C"}, ("zh_CN",)),
    ({"LANG": "zh_CN.UTF-8", "TORCHENV_LANG": "en"}, ()),
    ({"LANG": "en_US.UTF-8", "TORCHENV_LANG": "zh_CN"}, ("zh_CN",)),
    ({"LANG": "fr_FR.UTF-8"}, ()),
    ({}, ()),
])
def test_the_locale_picks_the_catalogue(environ, wanted):
    assert i18n.languages_from_env(environ) == wanted


def test_zh_tw_reads_the_zh_cn_catalogue():
    i18n.activate({"LANG": "zh_TW.UTF-8"})
    try:
        assert i18n._("why") == "原因"
    finally:
        i18n.deactivate()


def test_english_reads_no_catalogue():
    i18n.activate({"LANG": "en_US.UTF-8"})
    assert i18n._("why") == "why" and i18n._catalog is None
    i18n.activate({"LANG": "zh_CN.UTF-8"})
    try:
        assert i18n._catalog is None, "nothing is read before the first message"
        assert i18n._("why") == "原因" and i18n._catalog
    finally:
        i18n.deactivate()


def test_a_reason_with_a_repeated_placeholder_renders_from_its_data():
    from torchenv.reasons import reason

    made = reason("source.tier_index", tier="cu126", version="2.8.0", platform="linux-x86_64", pypi_tier="cu128")
    assert made == ("PyPI's build of torch 2.8.0 on linux-x86_64 is cu128, so the cu126 build comes from the cu126 "
                    "torch index, pinned with its local tag (+cu126)")
    i18n.activate({"LANG": "zh_CN.UTF-8"})
    try:
        assert made.shown().startswith("PyPI 上 torch 2.8.0 在 linux-x86_64 的构建是 cu128")
        assert "+cu126" in made.shown()
    finally:
        i18n.deactivate()


def test_every_reason_id_of_the_catalogue_has_a_chinese_translation(po):
    """Walks the catalogue itself: an id added without a zh_CN entry (or naming other values) fails here."""
    from torchenv.reason_catalogue import CATALOGUE

    assert len(CATALOGUE) > 100
    untranslated = [rid for rid, template in CATALOGUE.items() if not po.get(template)]
    assert not untranslated, f"reason ids without a zh_CN translation: {untranslated}"
    differing = [rid for rid, template in CATALOGUE.items()
                 if tool.placeholders(template) != tool.placeholders(po[template])]
    assert not differing, f"reason ids whose translation names other values: {differing}"


def test_the_numpy_left_out_warning_reads_in_chinese(capsys):
    """The warning ``up`` prints when the PyPI side cannot serve an import need is catalogue data."""
    from torchenv.reasons import SOURCES, reason
    from torchenv.ui import write_plain_warnings

    said = reason("warn.import_need_left_out", SOURCES, packages="numpy", why=reason("build.import_warns"))
    assert said.startswith("numpy could not be resolved from the PyPI side, so it is left out")
    i18n.activate({"LANG": "zh_CN.UTF-8"})
    try:
        write_plain_warnings([said])
    finally:
        i18n.deactivate()
    err = capsys.readouterr().err
    assert "numpy" in err and CJK.search(err)
    assert "could not be resolved" not in err and "left out" not in err and "will warn" not in err


def _why_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip().startswith("•")]


def test_plan_explains_in_chinese_why_cu126_and_not_cu128(sh, tmp_path):
    ran = sh.torchenv("plan", *GTX_1080, cwd=tmp_path, env=ZH)
    assert ran.rc == 0, ran.text
    assert "跳过 cu128：torch 2.8 的 cu128 wheel 带有 sm_70..sm_120" in ran.out
    assert "sm_61（Pascal）：没有 sm_6x 代码，也没有可供 JIT 编译的 PTX" in ran.out
    assert "选择 cu126：带有 sm_60，可在 6.1 上运行" in ran.out
    english = [line for line in _why_lines(ran.out) if not CJK.search(line)]
    assert not english, f"reasons left in English: {english}"


def test_plan_refusal_renders_in_chinese(sh, tmp_path):
    ran = sh.torchenv("plan", *GTX_1080, "--cuda", "cu128", cwd=tmp_path, env=ZH)
    assert ran.rc == 2
    assert "错误：" in ran.err and "原因" in ran.err and "可以改用" in ran.err
    assert "跳过 cu128" in ran.err and "torch 2.8.0 的 cu126 构建适合这台机器（cu128 不行）" in ran.err


def test_json_output_does_not_change_with_the_locale(sh, tmp_path):
    english = sh.torchenv("plan", "--json", *GTX_1080, cwd=tmp_path, env={"LANG": "C.UTF-8"})
    chinese = sh.torchenv("plan", "--json", *GTX_1080, cwd=tmp_path, env=ZH)
    assert json.loads(english.out) == json.loads(chinese.out)
    assert not CJK.search(chinese.out)
    refused = sh.torchenv("doctor", "--json", "--explain", "no kernel image is available", cwd=tmp_path, env=ZH)
    assert not CJK.search(refused.out) and "no kernel image" in refused.out


def test_doctor_explain_answers_in_chinese(sh, tmp_path):
    ran = sh.torchenv("doctor", "--explain", "no kernel image is available", cwd=tmp_path, env=ZH)
    assert "'no kernel image is available'：" in ran.out
    assert "GPU 的计算能力不在构建的架构列表中" in ran.out
    assert "修复：" in ran.out and "torchenv up --cuda auto" in ran.out


def test_doctor_finding_on_an_assumed_pascal_gpu_is_in_chinese(sh, tmp_path):
    ran = sh.torchenv("doctor", "--explain", "torch 2.8.0+cu128: no kernel image is available",
                      "--assume-driver", "575.51.03", "--assume-gpu", "6.1", cwd=tmp_path, env=ZH)
    assert ran.rc == 1, ran.text
    assert "torch 2.8.0+cu128 不支持计算能力为 6.1" in ran.out
    assert "在本机已确认" in ran.out


def test_verify_failure_renders_in_chinese_and_its_report_file_stays_english(sh, tmp_path):
    env = tmp_path / "env"
    (env / "bin").mkdir(parents=True)
    (env / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (env / "bin" / "python").write_text("#!/bin/sh\nexit 3\n")
    (env / "bin" / "python").chmod(0o755)
    ran = sh.torchenv("verify", "--env", str(env), cwd=tmp_path, env=ZH)
    assert ran.rc == 1
    assert "验证失败：import torch：运行这项检查时解释器退出了（exit status 3）" in ran.out
    assert "提示：" in ran.out
    saved = (tmp_path / ".torchenv" / "verify.json").read_text()
    assert "the interpreter died" in saved and not CJK.search(saved)


def test_english_stays_the_default(sh, tmp_path):
    ran = sh.torchenv("plan", *GTX_1080, cwd=tmp_path, env={"LANG": "C.UTF-8"})
    assert "cu128 skipped" in ran.out and not CJK.search(ran.out)


def _binds_underscore(func) -> bool:
    """Does ``func`` itself (not a nested scope) assign ``_``? Then ``_()`` in it is an UnboundLocalError."""
    import ast

    scopes = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp, ast.SetComp,
              ast.DictComp, ast.GeneratorExp)
    stack = list(ast.iter_child_nodes(func))
    while stack:
        node = stack.pop()
        if isinstance(node, scopes):
            continue
        if isinstance(node, ast.Name) and node.id == "_" and isinstance(node.ctx, ast.Store):
            return True
        if isinstance(node, ast.ExceptHandler) and node.name == "_":
            return True
        stack.extend(ast.iter_child_nodes(node))
    return False


def test_no_function_that_can_see_the_translator_rebinds_underscore():
    import ast

    wrong = []
    for path in sorted((REPO / "src" / "torchenv").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if "i18n import" not in path.read_text(encoding="utf-8"):
            continue
        wrong += [f"{path.relative_to(REPO)}:{f.lineno} {f.name}" for f in ast.walk(tree)
                  if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and _binds_underscore(f)]
    assert not wrong, "name the unused value `_sep` (or similar), not `_`"


ENGLISH_PHRASE = re.compile(r"\b[A-Za-z]+ [A-Za-z]+ [A-Za-z]+\b")
SCENARIOS = [
    ("--assume-driver", "575.51.03", "--assume-gpu", "6.1", "--torch", "2.8"),            # GTX 1080: cu126
    ("--assume-driver", "575.51.03", "--assume-gpu", "6.1", "--torch", "2.8", "--cuda", "cu128"),   # refused
    ("--assume-driver", "550.54.14", "--assume-gpu", "8.6", "--torch", "2.4", "--with", "torchvision"),
    ("--assume-driver", "470.82.01", "--assume-gpu", "8.6"),                                 # old driver
    ("--assume-driver", "575.51.03", "--assume-gpu", "8.9", "--cuda", "cpu"),                # cpu asked for
    ("--assume-no-gpu",),
    ("--assume-no-gpu", "--torch", "2.8", "--python", "3.8"),                                # no such Python
    ("--assume-driver", "550.54.14", "--assume-gpu", "8.6", "--torch", "2.5", "--cuda", "cu126"),  # tier unknown
    ("--assume-no-gpu", "--torch", "9.9"),                                                   # release unknown
]


def _untranslated(text: str) -> str | None:
    """The English phrase left in a translated line, quoted error texts and `commands` aside."""
    bare = re.sub(r"'[^']*'|`[^`]*`|\"[^\"]*\"", "", text)
    m = ENGLISH_PHRASE.search(bare)
    return m.group(0) if m else None


@pytest.mark.parametrize("assume", SCENARIOS, ids=lambda a: " ".join(a))
def test_every_plan_reason_and_warning_has_a_chinese_template(capsys, tmp_path, assume):
    from torchenv.cli import main
    from torchenv.commands.plan import reason_text

    main(["plan", "-C", str(tmp_path), "--json", "--assume-os", "linux", "--assume-arch", "x86_64",
          "--assume-python", "3.11", *assume])
    from torchenv.reasons import from_json

    data = json.loads(capsys.readouterr().out)
    lines = [from_json(r) for r in data.get("reasons_data", []) + data.get("warnings_data", [])]
    lines += [from_json(data[key]) for key in ("error_data", "hint_data") if data.get(key)]
    lines += [from_json(a["why_data"]) for a in data.get("alternatives", [])]
    assert lines and all(getattr(line, "id", None) for line in lines), "a reason of --json without its data"
    i18n.activate({"LANG": "zh_CN.UTF-8"})
    try:
        left = {line: _untranslated(reason_text(line)) for line in lines}
    finally:
        i18n.deactivate()
    assert not {k: v for k, v in left.items() if v}


@pytest.mark.parametrize("verb", ["up", "plan", "doctor", "lock", "verify", "init"])
def test_help_of_the_everyday_verbs_reads_in_chinese(verb, capsys, monkeypatch):
    """``--help`` (its flags, groups and argparse's own words) and a usage error in Chinese; English as before."""
    from tests.support.english import english_left

    from torchenv.cli import main

    monkeypatch.setenv("COLUMNS", "200")
    for var in ("TORCHENV_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)

    def run(lang: str, *args: str) -> tuple[str, str]:
        monkeypatch.setenv("LANG", lang)
        try:
            with pytest.raises(SystemExit):
                main([verb, *args])
        finally:
            i18n.deactivate()
        return capsys.readouterr()

    out, _err = run("zh_CN.UTF-8", "--help")
    assert out.startswith(f"用法：torchenv {verb}") and "显示此帮助信息并退出" in out, out
    assert not english_left(out), english_left(out)
    _out, err = run("zh_CN.UTF-8", "--no-such-flag")
    assert "错误：无法识别的参数：--no-such-flag" in err, err
    out, _err = run("C.UTF-8", "--help")
    assert out.startswith(f"usage: torchenv {verb}") and "show this help message and exit" in out
    assert not CJK.search(out)


def test_the_sources_lines_of_a_plan_read_in_chinese(sh, tmp_path):
    """Where each kind of package comes from is data too (``sources.*``): with two torch mirrors in the project's
    file, every "sources:" line reads in Chinese (before, each stayed an English sentence)."""
    (tmp_path / "torchenv.toml").write_text('[mirror]\ntorch = ["https://a.example/whl", "https://b.example/whl"]\n')
    ran = sh.torchenv("plan", *GTX_1080, cwd=tmp_path, env=ZH)
    assert ran.rc == 0, ran.text
    lines = [line.strip() for line in ran.out.splitlines() if "来源：" in line]
    assert lines, ran.out
    assert any(line.startswith("• 来源：torch wheel（cu126）：https://a.example/whl/cu126") for line in lines), lines
    for line in lines:
        assert not re.search(r"torch wheels|packages from|tried in order|PyPI side|local wheel folders|Project-Id",
                             line), line


def test_values_joined_with_nothing_between_stay_as_they_are_in_chinese():
    """``_("")`` is the catalogue's header: a ``Joined`` with an empty separator must not ask for it."""
    from torchenv.reasons import Joined, shown

    i18n.activate(ZH)
    try:
        assert shown(Joined(("a", "b"), "")) == "ab"
        assert shown(Joined(("a", "b"), "; ")) == "a；b"
    finally:
        i18n.deactivate()


def test_a_torchaudio_refusal_reads_in_chinese_and_names_what_works(sh, tmp_path):
    """torch 2.13 on cu129 with torchaudio: no build exists. The refusal, its reason and the alternative read in
    Chinese; before, they were English, and printing the alternative (a companion to drop, no flag) crashed."""
    (tmp_path / "torchenv.toml").write_text('[torch]\nversion = "2.13.0"\ncuda = "cu129"\nwith = ["torchaudio"]\n')
    for env in (ZH, {"LANG": "C.UTF-8"}):
        ran = sh.torchenv("plan", "--assume-driver", "580.95.05", "--assume-gpu", "9.0", cwd=tmp_path, env=env)
        assert ran.rc == 2 and "unexpected" not in ran.text and "意外" not in ran.text, ran.text
    assert "tier cu129 没有 torchaudio" in ran.text or "no torchaudio build for tier cu129" in ran.text
    zh = " ".join(sh.torchenv("plan", "--assume-driver", "580.95.05", "--assume-gpu", "9.0", cwd=tmp_path,
                              env=ZH).text.split())
    assert "tier cu129 没有 torchaudio" in zh and "从 torchenv.toml 的 `with` 中去掉 torchaudio" in zh, zh
