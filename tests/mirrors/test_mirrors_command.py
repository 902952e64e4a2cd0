"""`torchenv mirror list|test|use` against loopback mirrors."""
from __future__ import annotations

import json
import time

import pytest
from tests.support import build_index, closed_port_url, make_wheel, serve_dir

from torchenv.cli import main
from torchenv.intent.model import Intent

TAG = "cp311-cp311-linux_x86_64"


def run_json(capsys, *argv) -> tuple[int, dict]:
    rc = main(list(argv))
    out = capsys.readouterr().out
    return rc, json.loads(out)


@pytest.fixture()
def mirrors(tmp_path):
    """Two torch mirrors: 'complete' (slow, has +cu121) and 'partial' (fast, only +cpu); two PyPI mirrors."""
    for name, versions in (("complete", ["2.4.1+cu121"]), ("partial", ["2.4.1+cpu"])):
        d = tmp_path / name / "whl" / "cu121"
        for v in versions:
            make_wheel(d, "torch", v, tag=TAG)
        make_wheel(tmp_path / "pypiwheels", "numpy", "1.26.4", tag=TAG)
        build_index(tmp_path / name, {"numpy": list((tmp_path / "pypiwheels").glob("*.whl"))})
    return tmp_path


def candidates_file(path, entries: dict[str, str], torch: dict[str, str] | None = None):
    lines = []
    for name, url in entries.items():
        lines += [f"[pypi.{name}]", f'url = "{url}"', ""]
    for name, base in (torch or {}).items():
        lines += [f"[torch.{name}]", f'base = "{base}"', 'layout = "flat"', ""]
    path.write_text("\n".join(lines))
    return str(path)


def test_test_ranks_fast_above_slow_and_dead_last(tmp_path, mirrors, capsys):
    dead = closed_port_url()
    with serve_dir(mirrors / "complete", delay=0.4) as slow, serve_dir(mirrors / "partial") as fast:
        f = candidates_file(tmp_path / "c.toml", {"slow": slow + "/simple", "fast": fast + "/simple",
                                                   "dead": dead + "/simple"})
        start = time.monotonic()
        rc, data = run_json(capsys, "mirror", "test", "--json", "--candidates-file", f, "--kind", "pypi")
    assert time.monotonic() - start < 5
    assert rc == 0
    assert data["ranking"]["pypi"] == ["fast", "slow", "dead"]
    assert data["best"] == {"pypi": "fast", "torch": None, "conda": None}
    row = {r["name"]: r for r in data["results"]}
    assert set(row["fast"]) >= {"name", "kind", "url", "ok", "latency_ms", "throughput_kibps", "error",
                                "files_needed", "files_missing", "verified"}
    assert row["slow"]["latency_ms"] >= 400 > row["fast"]["latency_ms"]
    assert row["dead"]["ok"] is False and row["dead"]["error"] == "connection refused"
    assert data["tier"] == "cpu" and data["needs"] == []


def test_test_checks_the_exact_files_of_the_plan(tmp_path, mirrors, capsys):
    with serve_dir(mirrors / "complete", delay=0.2) as complete, serve_dir(mirrors / "partial") as partial:
        f = candidates_file(tmp_path / "c.toml", {}, {"complete": complete + "/whl", "partial": partial + "/whl"})
        rc, data = run_json(capsys, "mirror", "test", "--json", "--candidates-file", f, "--torch", "2.4.1",
                            "--cuda", "12.1", "--python", "3.11", "--platform", "linux-x86_64")
    assert data["tier"] == "cu121" and data["needs"] == ["torch==2.4.1+cu121"]
    assert data["ranking"]["torch"] == ["complete", "partial"]   # the fast one lacks the +cu121 wheel
    row = {r["name"]: r for r in data["results"]}
    assert row["partial"]["files_missing"] == ["torch==2.4.1+cu121"]
    assert row["complete"]["files_missing"] == []


def test_use_auto_remembers_choice_used_by_select_sources(tmp_path, mirrors, capsys):
    from torchenv.sources.select import select_sources

    with serve_dir(mirrors / "complete", delay=0.3) as slow, serve_dir(mirrors / "partial") as fast:
        f = candidates_file(tmp_path / "c.toml", {"slow": slow + "/simple", "fast": fast + "/simple"},
                            {"slow": slow + "/whl", "fast": fast + "/whl"})
        rc, data = run_json(capsys, "mirror", "use", "auto", "--json", "--candidates-file", f, "--cuda", "cu121")
    assert rc == 0 and data["use"] == "auto" and data["best"]["torch"] == "fast"
    s = select_sources(Intent(), tier="cu121", platform="linux-x86_64")
    assert [t.name for t in s.torch] == ["fast", "slow", "official"]
    assert s.pypi.index_url == fast + "/simple"


def test_use_keeps_comments_and_other_keys(capsys):
    from torchenv import paths

    cfg = paths.config_dir() / "config.toml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text('# my torchenv settings\n[mirror]\n# campus network: tuna is fastest\nuse = "tuna"\n'
                   'fallback = ["ustc"]  # keep\n\n[other]\nx = 1\n')
    rc, data = run_json(capsys, "mirror", "use", "aliyun", "--json")
    assert rc == 0
    text = cfg.read_text()
    assert '# campus network: tuna is fastest' in text and '# keep' in text and "[other]" in text
    assert 'use = "aliyun"' in text and 'fallback = ["ustc"]' in text
    rc, listing = run_json(capsys, "mirror", "list", "--json")
    assert listing["active"]["pypi"]["name"] == "aliyun" and "user config" in listing["active"]["pypi"]["layer"]
    assert listing["active"]["torch"]["fallback"] == ["ustc"]


def test_use_unknown_name_changes_nothing(capsys):
    from torchenv import paths

    assert main(["mirror", "use", "tsinghua"]) == 2
    assert "unknown mirror preset" in capsys.readouterr().err
    assert not (paths.config_dir() / "config.toml").exists()


def test_list_shows_every_required_preset(capsys):
    rc, data = run_json(capsys, "mirror", "list", "--json")
    names = {e["name"] for kind in data["presets"].values() for e in kind}
    assert {"official", "tuna", "bfsu", "ustc", "sjtu", "nju", "aliyun", "tencent", "huawei"} <= names
    torch = {e["name"]: e for e in data["presets"]["torch"]}
    assert torch["aliyun"]["layout"] == "flat" and "tuna" not in torch
    assert all("verified" in e and e["source"] for kind in data["presets"].values() for e in kind)
