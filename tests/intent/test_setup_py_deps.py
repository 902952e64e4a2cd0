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
