"""Interpreters found on PATH, in pyenv, conda envs and uv's managed dir — without starting most of them."""
from __future__ import annotations

from probe_fakes import Recorded

from torchenv.probing import make_context
from torchenv.probing.pythons import _ASK, probe_pythons


def _system_python(tree):
    tree.exe("/usr/bin/python3.11")
    tree.symlink("/usr/bin/python3", "python3.11")
    tree.write("/usr/include/python3.11/patchlevel.h", '#define PY_VERSION              "3.11.2"\n')


def test_pythons_from_every_source_with_versions_and_no_duplicates(probe, tree):
    _system_python(tree)
    tree.symlink("/bin", "usr/bin")                                        # merged-/usr: same files twice
    tree.exe("/home/user/.pyenv/versions/3.12.4/bin/python3")
    tree.exe("/home/user/.pyenv/versions/3.9.19/bin/python3")
    tree.exe("/home/user/.pyenv/versions/2.7.18/bin/python")               # Python 2: never an env base
    tree.exe("/home/user/.pyenv/shims/python3", "#!/usr/bin/env bash\nexec pyenv exec python3\n")
    tree.exe("/opt/conda/bin/conda")
    tree.exe("/opt/conda/bin/python3")
    tree.write("/opt/conda/conda-meta/python-3.12.7-h5148396_0.json", "{}")
    tree.exe("/opt/conda/envs/py310/bin/python3")
    tree.write("/opt/conda/envs/py310/conda-meta/python-3.10.15-he870216_1.json", "{}")
    tree.exe("/home/user/.local/share/uv/python/cpython-3.13.1-linux-x86_64-gnu/bin/python3")
    tree.exe("/home/user/.local/share/uv/python/cpython-3.13.1+freethreaded-linux-x86_64-gnu/bin/python3")
    run = Recorded()
    m = probe(run=run, env={"PATH": "/home/user/.pyenv/shims:/usr/bin:/bin:/opt/conda/bin"})
    got = [(p.version, p.source) for p in m.pythons]
    assert got == [("3.11.2", "path"), ("3.12.7", "path"), ("3.9.19", "pyenv"), ("3.12.4", "pyenv"),
                   ("3.10.15", "conda"), ("3.13.1t", "uv"), ("3.13.1", "uv")]
    assert run.calls == []                                                 # all from layout, nothing started
    assert m.python_versions() == ["3.9", "3.10", "3.11", "3.12", "3.13", "3.13t"]
    assert [c.kind for c in m.conda] == ["conda"]


def test_an_interpreter_without_layout_hints_is_asked_with_a_timeout(probe, tree):
    tree.exe("/usr/local/bin/python3")                                     # no pythonX.Y name, no headers
    ask = f"python3 -I -S -c {_ASK}"
    run = Recorded({ask: (0, "3.12.3\n")})
    m = probe(run=run)
    assert [(p.version, p.path.endswith("/usr/local/bin/python3")) for p in m.pythons] == [("3.12.3", True)]
    assert run.calls[0][1] <= 5


def test_an_interpreter_that_hangs_is_skipped(probe, tree):
    import subprocess

    tree.exe("/usr/local/bin/python3")
    ask = f"python3 -I -S -c {_ASK}"
    m = probe(run=Recorded({ask: subprocess.TimeoutExpired("python3", 3)}))
    assert m.pythons == []


def test_uv_install_dir_override_and_conda_environments_txt(tree):
    tree.exe("/data/uvpy/cpython-3.11.9-linux-x86_64-gnu/bin/python3")
    tree.exe("/srv/envs/proj/bin/python3")
    tree.write("/srv/envs/proj/conda-meta/python-3.10.14-h955ad1f_1.json", "{}")
    tree.write("/home/user/.conda/environments.txt", "/srv/envs/proj\n")
    ctx = make_context(environ={"PATH": "", "HOME": "/home/user", "UV_PYTHON_INSTALL_DIR": "/data/uvpy"},
                       root=tree.root, run=Recorded(), system="Linux", machine="x86_64")
    got = [(p.version, p.source) for p in probe_pythons(ctx)]
    assert got == [("3.10.14", "conda"), ("3.11.9", "uv")]


def test_free_threaded_interpreters_are_found_by_name_and_marked_t(probe, tree):
    tree.exe("/usr/bin/python3.14t")
    tree.write("/usr/include/python3.14t/patchlevel.h", '#define PY_VERSION              "3.14.0"\n')
    tree.exe("/home/user/.pyenv/versions/3.13.2t/bin/python3")
    tree.exe("/opt/conda/bin/conda")
    tree.exe("/opt/conda/envs/ft/bin/python3")
    tree.write("/opt/conda/envs/ft/conda-meta/python-3.14.1-h4c5309f_100_cp314t.json", "{}")
    run = Recorded()
    m = probe(run=run, env={"PATH": "/usr/bin:/opt/conda/bin"})
    assert [(p.version, p.source) for p in m.pythons] == [("3.14.0t", "path"), ("3.13.2t", "pyenv"),
                                                          ("3.14.1t", "conda")]
    assert run.calls == []
    assert m.python_versions() == ["3.13t", "3.14t"]


def test_an_asked_interpreter_reports_py_gil_disabled_as_t(probe, tree):
    tree.exe("/usr/local/bin/python3")
    assert "Py_GIL_DISABLED" in _ASK
    m = probe(run=Recorded({f"python3 -I -S -c {_ASK}": (0, "3.14.0t\n")}))
    assert [p.version for p in m.pythons] == ["3.14.0t"]
