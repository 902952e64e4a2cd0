"""The verify report: what was checked, what passed, and the facts the env reported.

Why its own module: ``verify`` prints it, ``up`` writes it after installing, ``doctor``
reads the saved ``.torchenv/verify.json``; all share this one shape and renderer.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .checks_script import TEXT_FIELDS, Text

if TYPE_CHECKING:
    from ..ui import Ui

REPORT_FILE = "verify.json"

# severity of a check: "error" fails the report when ok is False; "warning" and "info" are
# shown but never fail it; "skipped" marks a check not run because an earlier layer failed.
SEVERITIES = ("error", "warning", "info", "skipped")


@dataclass(frozen=True)
class Check:
    """One check's outcome. ``name``, ``detail`` and ``hint`` are ``Text`` (a template and its values, shown
    in the user's language by ``shown``) when the check script or the runner made them; plain English
    when read from a report saved before they were data."""
    name: str
    ok: bool
    detail: str
    severity: str = "info"
    hint: str | None = None
    duration_s: float | None = None

    @property
    def skipped(self) -> bool:
        return self.severity == "skipped"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "ok": self.ok, "detail": self.detail,
                               "severity": self.severity}
        if self.hint:
            out["hint"] = self.hint
        if self.duration_s is not None:
            out["duration_s"] = self.duration_s
        texts = {k: v.data() for k in TEXT_FIELDS if isinstance(v := getattr(self, k), Text)}
        if texts:
            out["texts"] = texts
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Check:
        sev = data.get("severity") or ("info" if data.get("ok") else "error")
        found = data.get("texts")
        texts: dict[str, Any] = found if isinstance(found, dict) else {}
        hint = data.get("hint")

        def text(key: str, plain: Any) -> Any:   # data that no longer renders as the text (edited): the text
            try:
                made = Text.from_data(texts.get(key))
            except (KeyError, IndexError, ValueError, TypeError):
                return plain
            return made if isinstance(made, Text) and str(made) == plain else plain
        return cls(name=text("name", str(data.get("name", "?"))), ok=bool(data.get("ok")),
                   detail=text("detail", str(data.get("detail", ""))), severity=sev if sev in SEVERITIES else "error",
                   hint=text("hint", hint) if hint else hint, duration_s=data.get("duration_s"))


@dataclass(frozen=True)
class VerifyReport:
    ok: bool
    checks: list[Check]
    python: str = ""                                   # the env interpreter that ran the checks
    facts: dict[str, Any] = field(default_factory=dict)  # torch/cuda/cudnn versions, devices, arch list
    expected: dict[str, str] = field(default_factory=dict)
    expects_gpu: bool = False
    deep: bool = False
    duration_s: float = 0.0

    @classmethod
    def from_checks(cls, checks: list[Check], **kw: Any) -> VerifyReport:
        """ok = at least one check ran and none failed (skips only follow a failure)."""
        ok = bool(checks) and all(c.ok for c in checks if not c.skipped) \
            and not all(c.skipped for c in checks)
        return cls(ok=ok, checks=list(checks), **kw)

    @property
    def failures(self) -> list[Check]:
        return [c for c in self.checks if not c.ok and not c.skipped]

    def check(self, name: str) -> Check | None:
        return next((c for c in self.checks if c.name == name), None)

    def verdict(self) -> Text:
        """One line a user reads first."""
        torch = self.facts.get("torch")
        if self.ok:
            devices = [c.name.split(" ", 1)[1] for c in self.checks if c.name.startswith("matmul ")]
            said = dict(what=f"torch {torch}" if torch else Text("the environment"),
                        devices=", ".join(devices) or "cpu", seconds=f"{self.duration_s:.1f}")
            if self.deep:
                return Text("verified: {what} works on {devices} (matmul, backward, autocast, conv, trained a small "
                            "CNN) in {seconds} s", **said)
            return Text("verified: {what} works on {devices} (matmul, backward, autocast, conv) in {seconds} s", **said)
        first = self.failures[0] if self.failures else None
        if first is None:
            return Text("verify failed: no check ran")
        return Text("verify failed: {check}: {detail}", check=first.name, detail=first.detail)

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "checks": [c.to_json() for c in self.checks], "python": self.python,
                "facts": self.facts, "expected": self.expected, "expects_gpu": self.expects_gpu,
                "deep": self.deep, "duration_s": round(self.duration_s, 3), "verdict": self.verdict()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> VerifyReport:
        return cls(ok=bool(data.get("ok")), checks=[Check.from_json(c) for c in data.get("checks", [])],
                   python=data.get("python", ""), facts=data.get("facts") or {},
                   expected=data.get("expected") or {}, expects_gpu=bool(data.get("expects_gpu")),
                   deep=bool(data.get("deep")), duration_s=float(data.get("duration_s") or 0.0))


def report_path(project_dir: Path | str) -> Path:
    from ..paths import STATE_DIR

    return Path(project_dir) / STATE_DIR / REPORT_FILE


def write_report(project_dir: Path | str, report: VerifyReport) -> Path:
    """Write ``<project>/.torchenv/verify.json`` atomically (temp file + ``os.replace``)."""
    from ..fileio import write_atomic

    return write_atomic(report_path(project_dir), json.dumps(report.to_json(), indent=2, sort_keys=True) + "\n")


def read_report(project_dir: Path | str) -> VerifyReport | None:
    """The last saved report, or None when there is none or it is unreadable."""
    try:
        return VerifyReport.from_json(json.loads(report_path(project_dir).read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError, AttributeError):
        return None


_MARKS = {"error": "[red]✗[/]", "warning": "[yellow]![/]", "info": "[green]✓[/]", "skipped": "[dim]–[/]"}


def render_report(ui: Ui, report: VerifyReport) -> None:
    """A table (check, ✓/✗, detail), hints under failures, then the one-line verdict."""
    from rich.markup import escape
    from rich.table import Table

    from ..i18n import _

    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    table.add_column(_("check"), no_wrap=True)
    table.add_column(_("ok"), justify="center")
    table.add_column(_("detail"), overflow="fold")
    for c in report.checks:
        key = "skipped" if c.skipped else "error" if not c.ok else c.severity if c.severity != "error" else "info"
        mark = _MARKS[key]
        detail = escape(shown(c.detail))
        if c.hint and not c.ok and not c.skipped:
            detail += f"\n[dim]{escape(_('hint:'))} {escape(shown(c.hint))}[/]"
        table.add_row(escape(shown(c.name)), mark, f"[dim]{detail}[/]" if c.skipped else detail)
    ui.console.print(table)
    style = "bold green" if report.ok else "bold red"
    ui.console.print(f"[{style}]{escape(shown(report.verdict()))}[/]")


def shown(text: str) -> str:
    """A check's name, detail or hint as the user reads it, in the active language: a ``Text`` from its
    template, translated, then filled in (a value that is a ``Text`` too); plain text from the catalogue
    when it has the whole line, else as it is."""
    from ..i18n import _

    if isinstance(text, Text):
        return _(text.msg).format(**{k: shown(v) if isinstance(v, Text) else v for k, v in text.values.items()})
    return _(text) if text else text
