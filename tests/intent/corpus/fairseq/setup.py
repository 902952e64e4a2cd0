#!/usr/bin/env python3
import os
import subprocess
import sys
from setuptools import setup, find_packages, Extension

if sys.version_info < (3, 6):
    sys.exit("Sorry, Python >= 3.6 is required for fairseq.")

try:
    # torch is not available when generating docs
    from torch.utils import cpp_extension
except ImportError:
    pass


def do_setup(package_data):
    setup(
        name="fairseq",
        version=version,
        setup_requires=[
            "cython",
            "numpy",
            "setuptools>=18.0",
        ],
        install_requires=[
            "cffi",
            "cython",
            "dataclasses",
            "editdistance",
            "hydra-core",
            "numpy",
            "regex",
            "sacrebleu>=1.4.12",
            "torch",
            "tqdm",
        ],
        dependency_links=dependency_links,
        packages=find_packages(exclude=["examples", "examples.*", "scripts", "scripts.*", "tests", "tests.*"]),
        package_data=package_data,
        ext_modules=extensions,
        entry_points={
            "console_scripts": [
                "fairseq-train = fairseq_cli.train:cli_main",
            ],
        },
        zip_safe=False,
    )
