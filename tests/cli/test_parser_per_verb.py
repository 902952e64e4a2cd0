"""A run of one verb builds only that verb's parser; help and unknown verbs still see every verb."""
from __future__ import annotations

import subprocess
import sys

from torchenv.commands import COMMANDS, build_parser


def _verbs(parser) -> set[str]:
    sub = next(a for a in parser._actions if a.dest == "command")
    return set(sub.choices)


def test_one_verb_registers_only_itself_and_the_default_registers_all():
    assert _verbs(build_parser("up")) == {"up"}
    assert _verbs(build_parser()) == set(COMMANDS)
    assert _verbs(build_parser("no-such-verb")) == set(COMMANDS)


def test_running_a_verb_imports_no_other_verbs_module(tmp_path):
    code = ("import sys; from torchenv.cli import main; main(['probe', '--json']); "
            "print(sorted(m for m in sys.modules if m.startswith('torchenv.commands.') and m != 'torchenv.commands._options'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "['torchenv.commands.probe']"
    unknown = subprocess.run([sys.executable, "-m", "torchenv", "bogus"], capture_output=True, text=True, timeout=60)
    assert unknown.returncode == 2 and "invalid choice: 'bogus'" in unknown.stderr and "'doctor'" in unknown.stderr
