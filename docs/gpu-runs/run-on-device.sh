#!/bin/sh
# Prepared GPU check for a machine with an NVIDIA GPU (checked on the H200 class) and no network.
# On a machine with network, first:   python3 -m pip wheel --no-deps -w .whl . && python3 -m pip download --no-deps \
#     --only-binary=:all: --python-version 3.12 --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
#     --platform manylinux2014_x86_64 -d .whl tomlkit platformdirs filelock  (rich, packaging, pynvml are on the image;
#     uv and py-rattler are not needed for probe/plan/verify/doctor; install torchenv with --no-deps)
# Then on the GPU machine, in a checkout with that .whl/ folder:  sh docs/gpu-runs/run-on-device.sh  (about 300 s)
# What it proves on real hardware: the probe through NVML (driver, CC 9.0, memory), the resolver's plan for an H200 with
# its real driver, and verify (matmul, backward, AMP, cuDNN conv, arch check, --deep training) on the image's own
# torch env (/opt/torch/.venv, torch 2.11.0+cu130), plus doctor's reading of that env.
set -u
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
te() { python3 -m torchenv "$@"; }
out=${OUT:-/tmp/out}; mkdir -p "$out"
{
  echo "== nvidia-smi"; nvidia-smi --query-gpu=index,name,compute_cap,memory.total,driver_version --format=csv
  echo "== torchenv probe"; te probe
  te probe --json > "$out/probe.json"
  echo "== torchenv plan (torch 2.11, this machine)"; te plan --torch 2.11 --python 3.12
  echo "== torchenv verify --deep on the image's torch env"; te verify --env "$(dirname "$(dirname "$(command -v python3)")")" --deep
  te verify --env "$(dirname "$(dirname "$(command -v python3)")")" --json > "$out/verify.json"
  echo "== torchenv doctor"; te doctor --env "$(dirname "$(dirname "$(command -v python3)")")"
} 2>&1 | tee "$out/gpu-run.log"
