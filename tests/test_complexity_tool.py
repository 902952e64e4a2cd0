"""tools/complexity.py, the cyclomatic-complexity bar `./bootstrap lint` holds src/torchenv to."""
from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

TOOL = Path(__file__).resolve().parents[1] / "tools" / "complexity.py"


def _tool():
    spec = importlib.util.spec_from_file_location("complexity_tool", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module       # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def _branchy(name: str, n: int) -> str:
    """A function of complexity ``n`` built from boolean operators only (ruff's C901 would score it 2)."""
    ops = " and ".join(f"x{i}" for i in range(n - 1))
    return f"def {name}({', '.join(f'x{i}' for i in range(n - 1))}):\n    if {ops}:\n        return 1\n"


def test_boolean_operators_count_and_closures_are_scored_on_their_own(tmp_path):
    tool = _tool()
    (tmp_path / "m.py").write_text(
        "def outer(a, b, c):\n"
        "    if a and b or c:\n"          # if: +1, `and`: +1, `or`: +1
        "        return 1\n"
        "    def inner(x):\n"
        "        return x if x else 0\n"
        "    return inner\n"
        "class K:\n"
        "    def meth(self, a):\n"
        "        for _ in a:\n"
        "            pass\n")
    scores = {s.name: s for s in tool.function_scores(tmp_path)}
    assert scores["outer"].complexity == 4
    assert scores["outer.inner"].complexity == 2
    assert scores["K.meth"].complexity == 2
    assert "K" not in scores                       # a class's score is its methods' sum: not counted twice
    assert str(scores["outer"]) == "src/torchenv/m.py:1 outer 4"


def test_the_bar_counts_functions_over_the_soft_limit_and_refuses_any_over_the_hard_one(tmp_path):
    tool = _tool()
    for i in range(tool.MAX_OVER_SOFT):
        (tmp_path / f"ok{i}.py").write_text(_branchy(f"f{i}", tool.SOFT_LIMIT + 1))
    verdict = tool.judge(tool.function_scores(tmp_path), {})
    assert len(verdict.over_soft) == tool.MAX_OVER_SOFT and not verdict.failed

    (tmp_path / "one_more.py").write_text(_branchy("g", tool.SOFT_LIMIT + 1))
    assert tool.judge(tool.function_scores(tmp_path), {}).failed

    for extra in tmp_path.glob("ok*.py"):
        extra.unlink()
    (tmp_path / "big.py").write_text(_branchy("h", tool.HARD_LIMIT + 1))
    verdict = tool.judge(tool.function_scores(tmp_path), {})
    assert [s.name for s in verdict.over_hard] == ["h"] and verdict.failed


def test_a_held_function_may_not_grow_and_a_held_entry_goes_stale_once_split(tmp_path):
    tool = _tool()
    big = tmp_path / "big.py"
    big.write_text(_branchy("h", tool.HARD_LIMIT + 3))
    at_ceiling = {("big.py", "h"): tool.HARD_LIMIT + 3}
    assert not tool.judge(tool.function_scores(tmp_path), at_ceiling).failed
    assert tool.judge(tool.function_scores(tmp_path), {("big.py", "h"): tool.HARD_LIMIT + 2}).failed   # grew

    big.write_text(_branchy("h", tool.HARD_LIMIT))       # split far enough: the entry must go
    verdict = tool.judge(tool.function_scores(tmp_path), at_ceiling)
    assert verdict.stale == [("big.py", "h")] and verdict.failed


def test_src_torchenv_meets_the_bar():
    out = subprocess.run([sys.executable, str(TOOL)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
