"""``install_requires`` of a ``setup.py`` as real projects compute it, read from the syntax tree alone."""
from __future__ import annotations

import pytest

from torchenv.intent.project_deps import setup_py_requirements

# diffusers 0.42 / transformers: one table of pinned requirements, looked up by name
TABLE = '''import re
from setuptools import setup
_deps = ["Pillow", "huggingface-hub>=1.32.0,<3.0", "regex!=2019.12.17", "safetensors>=0.8.0", "pytest"]
deps = {b: a for a, b in (re.findall(r"^(([^!=<>~]+)(?:[!=<>~].*)?$)", x)[0] for x in _deps)}
install_requires = [deps["huggingface-hub"], deps["regex"], deps["safetensors"], deps["Pillow"], deps["numpy"]]
setup(name="x", install_requires=list(install_requires))
'''
LITERAL = '''from setuptools import setup
deps = {"numpy": "numpy<2", "tqdm": "tqdm>=4"}
setup(name="x", install_requires=[deps["numpy"], "pyyaml"])
'''
FSTRING = '''from setuptools import setup
TORCH = "2.1"
setup(name="x", install_requires=[f"torch>={TORCH}", "numpy"])
'''


@pytest.mark.parametrize("source,wanted", [
    (TABLE, ["huggingface-hub>=1.32.0,<3.0", "regex!=2019.12.17", "safetensors>=0.8.0", "Pillow", "numpy"]),
    (LITERAL, ["numpy<2", "pyyaml"]),
    (FSTRING, ["numpy"]),
])
def test_install_requires_through_names_and_lookup_tables(tmp_path, source, wanted):
    (tmp_path / "setup.py").write_text(source)
    assert setup_py_requirements(tmp_path / "setup.py") == (wanted, [])


NAMED_LIST = '''from setuptools import setup
REQUIRES = ["torch==2.3.1", "numpy"]
setup(name="x", install_requires=list(REQUIRES), python_requires=">=3.9")
'''
TORCH_IN_TABLE = '''import re
from setuptools import setup
_deps = ["torch>=2.3.1", "numpy"]
deps = {b: a for a, b in (re.findall(r"^(([^!=<>~]+)(?:[!=<>~].*)?$)", x)[0] for x in _deps)}
with open("README.md", "r", encoding="utf-8") as fh:
    long_description = fh.read()
setup(name="x", install_requires=[deps["torch"], deps["numpy"]], long_description=long_description)
'''


@pytest.mark.parametrize("source,torch_pin", [(NAMED_LIST, "==2.3.1"), (TORCH_IN_TABLE, ">=2.3.1")])
def test_init_reads_the_torch_pin_up_locks(tmp_path, source, torch_pin):
    """``init`` (evidence) read setup.py with a cruder parser than ``up``: a list behind a name, or a pin
    looked up in a table, gave ``up`` "torch==2.3.1" and ``init`` no torch pin at all."""
    from torchenv.intent.evidence.readers.setup import read_setup_py

    (tmp_path / "setup.py").write_text(source)
    up_reads = setup_py_requirements(tmp_path / "setup.py")[0]
    assert f"torch{torch_pin}" in up_reads
    init_reads = [(r.field, r.value) for r in read_setup_py(source)]
    assert ("version", torch_pin) in init_reads
    assert not {v for f, v in init_reads if f == "version"} - {torch_pin}, "no pin up does not lock"
