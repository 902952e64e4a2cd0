"""Builders for Machine / Intent objects used by the resolver tests (real GPU names, drivers, Pythons)."""
from __future__ import annotations

from torchenv.intent.model import EnvIntent, Intent, TorchIntent
from torchenv.machine import Gpu, Machine, NvidiaInfo, PythonInstall, RocmInfo

GTX1080TI = ("NVIDIA GeForce GTX 1080 Ti", "6.1")
K80 = ("Tesla K80", "3.7")
V100 = ("Tesla V100-SXM2-16GB", "7.0")
T4 = ("Tesla T4", "7.5")
A100 = ("NVIDIA A100-SXM4-80GB", "8.0")
RTX3090 = ("NVIDIA GeForce RTX 3090", "8.6")
RTX3080 = ("NVIDIA GeForce RTX 3080", "8.6")
RTX4090 = ("NVIDIA GeForce RTX 4090", "8.9")
RTX5090 = ("NVIDIA GeForce RTX 5090", "12.0")
L4 = ("NVIDIA L4", "8.9")
H100 = ("NVIDIA H100 80GB HBM3", "9.0")
GH200 = ("NVIDIA GH200 480GB", "9.0")
B200 = ("NVIDIA B200", "10.0")
B300 = ("NVIDIA B300", "10.3")
GB10 = ("NVIDIA GB10", "12.1")
ORIN = ("Orin (nvgpu)", "8.7")


def machine(os: str = "linux", arch: str = "x86_64", driver: str | None = None, gpus=(), pythons=("3.11.7",),
            rocm: tuple[str, ...] | None = None, glibc: str | None = None, wsl: bool = False,
            nvidia_hidden: bool = False) -> Machine:
    nvidia = None
    if driver or gpus:
        nvidia = NvidiaInfo(driver=driver, cuda_driver_version=None,
                            gpus=[] if nvidia_hidden else [Gpu(name=n, compute_capability=cc, index=i)
                                                           for i, (n, cc) in enumerate(gpus)],
                            hidden_by_cuda_visible_devices=len(gpus) if nvidia_hidden else 0)
    pys = [PythonInstall(version=v, path=f"/usr/bin/python{'.'.join(v.split('.')[:2])}", source="path")
           for v in pythons]
    return Machine(os=os, arch=arch, glibc=glibc, wsl=wsl, nvidia=nvidia,
                   rocm=RocmInfo(version="6.2", gfx=list(rocm)) if rocm else None, pythons=pys,
                   cuda_visible_devices="" if nvidia_hidden else None)


def intent(version: str | None = None, cuda: str = "auto", python: str | None = None, with_=(),
           policy: str = "compat", experimental: bool = False, backend: str = "venv") -> Intent:
    return Intent(torch=TorchIntent(version=version, cuda=cuda, python=python, with_=tuple(with_), policy=policy,
                                    allow_experimental=experimental),
                  env=EnvIntent(backend=backend))
