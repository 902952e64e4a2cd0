"""A real broken env (torch 2.13.0+cpu + PyPI torchvision 0.29.1): doctor finds it, and its fixes, run as printed, work.

Fix design (see the report): the finding's ``fix`` installs the exact pair from the torch tier's index
(``torchvision==0.28.0+cpu --index-url <torch base>/cpu``); ``alternatives`` offer removing torchvision.
download.pytorch.org is out of reach here, so the test runs (1) the removal as printed and (2) the pair
install as printed with ``--torch-mirror`` pointing at a local index holding a stand-in 0.28.0+cpu wheel.
"""
from __future__ import annotations

import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.doctor._fakes import by_id, run_doctor, tv_wheel
from tests.support import make_wheel
from tests.support.assets import uv


def _py(env: Path, code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(env / "bin" / "python"), "-c", code], capture_output=True, text=True, timeout=120)


def _sh(cmd: str) -> None:
    cp = subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=300)
    assert cp.returncode == 0, f"{cmd}\n{cp.stdout}\n{cp.stderr}"


def test_real_mismatch_is_found_explained_and_fixed(real_mismatch_env, tmp_path, capsys, uv_on_path):
    env = real_mismatch_env
    pool = ThreadPoolExecutor(1)     # a plain import of the env runs while doctor reads the same env
    imported = pool.submit(_py, env, "import torchvision")
    rc, data = run_doctor(capsys, "--env", str(env), "--assume-no-gpu")
    assert "operator torchvision::nms does not exist" in imported.result().stderr
    assert rc == 1
    [f] = by_id(data, "companion-mismatch")
    assert "torchvision==0.28.0+cpu" in f["fix"] and "https://download.pytorch.org/whl/cpu" in f["fix"]
    assert "torch>=2.14.0" in f["detail"] and "cu130 build" in f["detail"]
    assert "operator torchvision::nms does not exist" in f["detail"]          # the import check's evidence
    assert data["runtime"]["imports"]["torchvision"] != "ok"

    _, data = run_doctor(capsys, "--env", str(env), "--assume-no-gpu", "--explain",
                         "RuntimeError: operator torchvision::nms does not exist")
    [e] = by_id(data, "torchvision-nms")
    assert e["severity"] == "error" and e["fix"] == f["fix"]

    # 1) the removal, exactly as printed
    [remove] = [a for a in f["alternatives"] if "uninstall" in a]
    _sh(remove)
    imported = pool.submit(_py, env, "import torch; print(torch.ones(2).sum().item())")
    rc, data = run_doctor(capsys, "--env", str(env), "--assume-no-gpu")
    assert imported.result().stdout.strip() == "2.0"
    assert rc == 0 and data["ok"] and not by_id(data, "companion-mismatch")

    # 2) break it again, then the pair install as printed, from a local stand-in of the cpu index
    _sh(f"{uv()} pip install -q -p {env} --no-deps --offline {tv_wheel()}")
    wheel = make_wheel(tmp_path / "wheels", "torchvision", "0.28.0+cpu", requires=["torch==2.13.0", "numpy", "pillow"])
    page = tmp_path / "mirror" / "cpu" / "torchvision"
    page.mkdir(parents=True)
    (page / "index.html").write_text(f'<a href="{wheel.as_uri()}">{wheel.name}</a>\n')
    rc, data = run_doctor(capsys, "--env", str(env), "--assume-no-gpu", "--no-import",
                          "--torch-mirror", (tmp_path / "mirror").as_uri())
    [f] = by_id(data, "companion-mismatch")
    assert f["fix"].endswith(f"--index-url {(tmp_path / 'mirror').as_uri()}/cpu")
    _sh(f["fix"])
    imported = pool.submit(_py, env, "import torchvision; print(torchvision.__version__)")
    rc, data = run_doctor(capsys, "--env", str(env), "--assume-no-gpu")
    pool.shutdown()
    assert imported.result().stdout.strip() == "0.28.0+cpu"
    assert rc == 0 and data["ok"], data["findings"]
    assert shutil.which("uv")
