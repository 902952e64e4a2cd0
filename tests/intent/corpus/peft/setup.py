from setuptools import find_packages, setup

VERSION = "0.18.2.dev0"

extras = {}
extras["quality"] = ["black", "hf-doc-builder", "ruff~=0.12.8"]

setup(
    name="peft",
    version=VERSION,
    package_dir={"": "src"},
    packages=find_packages("src"),
    python_requires=">=3.10.0",
    install_requires=[
        "numpy>=1.17",
        "packaging>=20.0",
        "psutil",
        "pyyaml",
        "torch>=1.13.0",
        "transformers",
        "tqdm",
        "accelerate>=0.21.0",
        "safetensors",
        "huggingface_hub>=0.25.0",
    ],
    extras_require=extras,
)
