"""Scenario 6: after ``up``, ``pip install`` inside the env uses the PyPI-side mirror (env-local
``pip.conf``) and no torch index, and the user's own pip config files are left byte-identical."""
from __future__ import annotations

import configparser
import subprocess

from tests.support import serve_dir

from .conftest import TIER, assert_ok, pypi_tree, torch_mirror_tree


def test_env_pip_conf_points_at_pypi_mirror_without_torch_index_and_user_files_untouched(e2e, e2e_wheels):
    torch_mirror_tree(e2e.root / "A", [e2e_wheels.torch, e2e_wheels.vision])
    pypi_tree(e2e.root / "B", e2e_wheels)
    with serve_dir(e2e.root / "A") as a, serve_dir(e2e.root / "B") as b:
        # a typical Chinese setup: PyPI mirror as index-url, the torch index as an extra index
        user_conf = e2e.home / ".config" / "pip" / "pip.conf"
        user_conf.parent.mkdir(parents=True)
        user_conf.write_text(f"[global]\nindex-url = {b}/simple\n"
                             f"extra-index-url = https://download.pytorch.org/whl/{TIER}\ntimeout = 60\n")
        legacy_conf = e2e.home / ".pip" / "pip.conf"
        legacy_conf.parent.mkdir(parents=True)
        legacy_conf.write_text(f"[install]\nextra-index-url = https://mirror.sjtu.edu.cn/pytorch-wheels/{TIER}\n"
                               "trusted-host = 127.0.0.1\n")
        before = {p: p.read_bytes() for p in (user_conf, legacy_conf)}
        e2e.use_user_pip_config = True
        e2e.installer = "pip"          # an env with pip in it, to ask pip what it would use
        e2e.write_toml(f'torch = "{a}"\n')
        assert_ok(e2e.up())

        conf = e2e.env / "pip.conf"
        assert conf.is_file()
        parser = configparser.RawConfigParser()
        parser.read(conf)
        assert parser.get("global", "index-url") == f"{b}/simple"
        text = conf.read_text()
        assert "download.pytorch.org" not in text and a not in text, text
        assert {p: p.read_bytes() for p in before} == before, "the user's pip config must be untouched"

        # what pip inside the env actually uses, with the user's files in effect
        env = {k: v for k, v in e2e.environ().items() if k != "PIP_CONFIG_FILE"}
        out = subprocess.run([str(e2e.env / "bin" / "python"), "-m", "pip", "config", "list"], env=env,
                             capture_output=True, text=True, timeout=60).stdout
        effective = {line.split("=", 1)[0]: line.split("=", 1)[1].strip("'")
                     for line in out.splitlines() if "=" in line}
        assert effective.get("global.index-url") == f"{b}/simple", out
        for section in ("global", "install"):
            extra = effective.get(f"{section}.extra-index-url", "")
            assert "download.pytorch.org" not in extra and "pytorch-wheels" not in extra, (
                f"pip inside the env still resolves against a torch index from the user's pip config:\n{out}")
