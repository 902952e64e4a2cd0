"""A failed build is explained by its own first errors, with the fix for that kind of failure.

The logs below are the shapes real builds print: a compiler error wrapped in setuptools' and uv's
lines, a ``setup.py`` that imports torch in an isolated build, no C++ compiler, a build module
nobody declared. The first real ``error:`` lines are shown, never a wrapper's last line.
"""
from __future__ import annotations

from torchenv.engines.failures import built_package, error_lines, explain_build

COMPILE_ERROR = """\
  × Failed to build `addone @ file:///src/addone`
  ├─▶ The build backend returned an error
  ╰─▶ Call to `setuptools.build_meta.build_editable` failed (exit status: 1)
      [stderr]
      addone/op.cpp: In function 'at::Tensor add_one(at::Tensor)':
      addone/op.cpp:3:50: error: 'undeclared_name' was not declared in this scope
      error: command '/usr/bin/c++' failed with exit code 1
      hint: This usually indicates a problem with the package or the build environment.
"""

ISOLATED = """\
  × Failed to build `addone @ file:///src/addone`
  ╰─▶ Call to `setuptools.build_meta.get_requires_for_build_editable` failed (exit status: 1)
      [stderr]
      Traceback (most recent call last):
        File "<string>", line 14, in <module>
      ModuleNotFoundError: No module named 'torch'
"""

NO_COMPILER = """\
      building 'addone._C' extension
      error: command 'x86_64-linux-gnu-g++' failed: No such file or directory
"""


def test_a_compile_error_shows_the_compilers_line_and_no_wrapper():
    lines = error_lines(COMPILE_ERROR)
    assert lines[0] == "addone/op.cpp:3:50: error: 'undeclared_name' was not declared in this scope"
    assert not any("Failed to build" in line or "Call to" in line for line in lines)
    failure = explain_build(COMPILE_ERROR, "addone", "/p/.torchenv/build-logs/addone.log")
    assert failure.kind is None, "a compile error is not a missing compiler"
    assert "/p/.torchenv/build-logs/addone.log" in failure.hint
    assert built_package(COMPILE_ERROR) == "addone"


def test_an_isolated_build_that_imports_torch_is_told_to_declare_torch():
    failure = explain_build(ISOLATED, "addone", "log")
    assert failure.kind == "build needs torch"
    assert '"torch" to [build-system] requires' in failure.hint


def test_a_missing_compiler_gets_the_install_command():
    failure = explain_build(NO_COMPILER, "addone", "log")
    assert failure.kind == "C++ compiler missing" and "sudo apt-get install g++" in failure.hint


def test_an_undeclared_build_module_is_named():
    failure = explain_build("ModuleNotFoundError: No module named 'pybind11'\n", "fastop", "log")
    assert failure.kind == "build requirement missing" and "pybind11" in failure.hint
