#!/usr/bin/env python3
from distutils.version import LooseVersion
import os
from setuptools import find_packages
from setuptools import setup


requirements = {
    "install": [
        "setuptools>=38.5.1",
        "configargparse>=1.2.1",
        "scipy>=1.4.1",
        # DNN related packages are installed by Makefile
        # 'torch==1.0.1'
        "librosa>=0.8.0",
        "PyYAML>=5.1.2",
        "soundfile>=0.10.2",
        "torch_complex",
        "pytorch_wpe",
    ],
    "setup": ["numpy", "pytest-runner"],
    "test": ["pytest>=3.3.0", "flake8>=3.7.8", "black"],
}
try:
    # NOTE(kamo): These packages are not listed if installing from the PyPI server
    import torch

    if LooseVersion(torch.__version__) >= LooseVersion("1.6.0"):
        requirements["install"].append("torchaudio==0.6.0")
    del torch
except ImportError:
    pass

install_requires = requirements["install"]
setup_requires = requirements["setup"]
tests_require = requirements["test"]

setup(
    name="espnet",
    version="0.9.2",
    packages=find_packages(include=["espnet*"]),
    install_requires=install_requires,
    setup_requires=setup_requires,
    tests_require=tests_require,
    python_requires=">=3.6.0",
)
