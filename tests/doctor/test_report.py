"""``doctor --report``: a Markdown report with no secrets and no home paths (unless asked)."""
from __future__ import annotations

from pathlib import Path

from tests.doctor._fakes import make_fake_env

from torchenv.cli import main


def _report(tmp_path, monkeypatch, *extra: str) -> tuple[str, Path]:
    home = tmp_path / "home" / "alice"
    env = make_fake_env(home / "proj" / ".venv", "2.13.0+cpu")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("USER", "alice")
    monkeypatch.setenv("HF_TOKEN", "abc123")
    monkeypatch.setenv("PIP_INDEX_URL", "https://bob:hunter2@pypi.example.com/simple")
    out = tmp_path / "out" / "report.md"
    rc = main(["doctor", "--env", str(env), "--no-import", "--assume-gpu", "8.6", "--assume-driver", "550.54.14",
               "--report", str(out), *extra])
    assert rc == 1
    return out.read_text(), home


def test_report_has_findings_and_no_secrets(tmp_path, monkeypatch, capsys):
    text, home = _report(tmp_path, monkeypatch)
    assert text.startswith("# torchenv doctor report")
    assert "## Machine" in text and "## Findings" in text and "CPU-only torch" in text
    assert "abc123" not in text and "hunter2" not in text and "bob" not in text
    assert "HF_TOKEN" in text and "<redacted" in text
    assert str(home) not in text and "alice" not in text
    assert "~/proj/.venv" in text
    assert not [p for p in (tmp_path / "out").iterdir() if p.name != "report.md"]   # no temp file left


def test_include_paths_keeps_home_but_never_secrets(tmp_path, monkeypatch, capsys):
    text, home = _report(tmp_path, monkeypatch, "--include-paths")
    assert str(home) in text
    assert "abc123" not in text and "hunter2" not in text
