"""NVIDIA: driver, the CUDA version it supports, and every GPU with its compute capability.

Sources, most trusted first (virtualenv ``discovery/`` style, one module each):
``nvml.py`` (libnvidia-ml through pynvml), ``smi.py`` (``nvidia-smi --query-gpu`` CSV),
``kernel.py`` (``/sys/module/nvidia/version``, ``/proc/driver/nvidia/version``) and ``pci.py``
(an NVIDIA display device with no driver). ``detect.py`` combines them; ``visible.py`` applies
``CUDA_VISIBLE_DEVICES``; ``driver_cuda.py`` maps a driver to the CUDA it supports.
Nothing heavy is imported here so ``--assume-driver`` can use the table cheaply.
"""
