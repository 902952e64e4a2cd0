import argparse
import glob
import hashlib
import json
import os
import platform
import re
import signal
import site
import subprocess
import sys

# Define the required versions
TORCH_VERSION = "2.9.1"
PYTHON_VERSION = "3.13"
LIBSTDCXX_VERSION_LINUX = "12.1.0"

# Environment
script_dir = os.getcwd()
conda_env_path = os.path.join(script_dir, "installer_files", "env")
state_file = '.installer_state.json'


def is_x86_64():
    return platform.machine() == "x86_64"


def get_gpu_choice():
    """Get GPU choice from state file or ask user"""
    choice = get_user_choice(
        "What is your GPU?",
        {
            'A': 'NVIDIA',
            'B': 'AMD - Linux only, ROCm 7.2',
            'C': 'Apple M Series',
            'D': 'Intel Arc (beta)',
            'N': 'CPU mode'
        },
    )

    # Convert choice to GPU name
    gpu_choice = {"A": "NVIDIA_CUDA128", "B": "AMD", "C": "APPLE", "D": "INTEL", "N": "NONE"}[choice]
    return gpu_choice


def get_pytorch_install_command(gpu_choice):
    """Get PyTorch installation command based on GPU choice"""
    base_cmd = f"python -m pip install torch=={TORCH_VERSION} "
    pypi_fallback = " --extra-index-url https://pypi.org/simple/"

    if gpu_choice == "NVIDIA_CUDA128":
        return base_cmd + "--index-url https://download.pytorch.org/whl/cu128" + pypi_fallback
    elif gpu_choice == "AMD":
        py_tag = f"cp{PYTHON_VERSION.replace('.', '')}"
        return f"python -m pip install https://repo.radeon.com/rocm/manylinux/rocm-rel-7.2/torch-{TORCH_VERSION}%2Brocm7.2.0.lw.git7e1940d4-{py_tag}-{py_tag}-linux_x86_64.whl"
    elif gpu_choice in ["APPLE", "NONE"]:
        return base_cmd + "--index-url https://download.pytorch.org/whl/cpu" + pypi_fallback
    elif gpu_choice == "INTEL":
        return base_cmd + "--index-url https://download.pytorch.org/whl/xpu"
    else:
        return base_cmd


def get_requirements_file(gpu_choice):
    """Get requirements file path based on GPU choice"""
    requirements_base = os.path.join("requirements", "full")

    if gpu_choice == "NVIDIA_CUDA128":
        file_name = "requirements.txt"
    elif gpu_choice == "AMD":
        file_name = "requirements_amd.txt"
    elif gpu_choice == "APPLE":
        file_name = f"requirements_apple_{'intel' if is_x86_64() else 'silicon'}.txt"
    elif gpu_choice in ["INTEL", "NONE"]:
        file_name = "requirements_cpu_only.txt"
    else:
        raise ValueError(f"Unknown GPU choice: {gpu_choice}")

    return os.path.join(requirements_base, file_name)
