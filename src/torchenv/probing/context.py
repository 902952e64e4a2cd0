"""What every probe source reads through: a filesystem root, an environment and a command runner.

Why injectable: the probe must be testable against recorded ``nvidia-smi`` outputs and fake
sysfs/proc trees on a machine with no GPU, and every source must share one rule for timeouts
and one list of findings. Sources never touch ``os.environ``, ``/`` or ``subprocess`` directly.
"""
from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..reasons import Reason

#: ``run(argv, timeout_s)`` -> CompletedProcess with text stdout/stderr. It may raise
#: ``FileNotFoundError``/``PermissionError``/``OSError`` or ``subprocess.TimeoutExpired``.
Runner = Callable[[Sequence[str], float], "subprocess.CompletedProcess[str]"]

DEFAULT_TIMEOUT_S = 5.0


def run_command(argv: Sequence[str], timeout_s: float) -> subprocess.CompletedProcess[str]:
    """Run a probe command with a hard timeout, never inheriting stdin (a hung tool must not block us)."""
    return subprocess.run(list(argv), capture_output=True, text=True, timeout=timeout_s,
                          stdin=subprocess.DEVNULL, check=False, errors="replace")


@dataclass
class ProbeContext:
    """The world as one probe sees it. ``real`` is False when tests point ``root`` at a fake tree."""

    root: Path
    environ: Mapping[str, str]
    run: Runner
    system: str                # platform.system(): Linux | Windows | Darwin
    machine: str               # platform.machine(): x86_64, AMD64, aarch64, arm64...
    findings: list[str] = field(default_factory=list)

    @property
    def real(self) -> bool:
        return self.root.is_absolute() and self.root == Path(self.root.anchor)

    # -- filesystem, relative to root -------------------------------------------------------
    def path(self, p: str | os.PathLike[str]) -> Path:
        """Map an absolute machine path (``/sys/module/nvidia/version``) into the probed root."""
        if self.real:
            return Path(p)
        rel = PurePosixPath(str(p).replace("\\", "/")).as_posix().lstrip("/")
        if len(rel) > 1 and rel[1] == ":":      # a Windows drive path inside a fake tree
            rel = rel[0] + rel[2:]
        return self.root / rel

    def read_text(self, p: str | os.PathLike[str]) -> str | None:
        """File content, or None when missing/unreadable (absence is a fact, not an error)."""
        try:
            return self.path(p).read_text(errors="replace")
        except (OSError, ValueError):
            return None

    def exists(self, p: str | os.PathLike[str]) -> bool:
        try:
            return self.path(p).exists()
        except OSError:
            return False

    def home(self) -> str | None:
        return self.environ.get("HOME") or self.environ.get("USERPROFILE")

    # -- executables --------------------------------------------------------------------------
    def which(self, name: str) -> Path | None:
        """First executable called ``name`` on the probed PATH (``.exe`` tried on Windows)."""
        for found in self.which_all(name):
            return found
        return None

    def which_all(self, name: str) -> list[Path]:
        sep = ";" if self.system == "Windows" else ":"
        names = [name, f"{name}.exe", f"{name}.bat"] if self.system == "Windows" else [name]
        out: list[Path] = []
        for entry in self.environ.get("PATH", "").split(sep):
            if not entry:
                continue
            for n in names:
                cand = self.path(entry) / n
                if cand.is_file() and (self.system == "Windows" or os.access(cand, os.X_OK)):
                    out.append(cand)
        return out

    def note(self, finding: str) -> None:
        if finding not in self.findings:
            self.findings.append(finding)


def describe_failure(tool: str, exc: BaseException, timeout_s: float) -> Reason:
    """One line saying why a command gave nothing, in the user's words (for findings)."""
    from ..reasons import MACHINE, reason

    if isinstance(exc, subprocess.TimeoutExpired):
        return reason("probe.tool_timed_out", MACHINE, tool=tool, seconds=f"{timeout_s:g}")
    if isinstance(exc, PermissionError):
        return reason("probe.tool_denied", MACHINE, tool=tool)
    if isinstance(exc, FileNotFoundError):
        return reason("probe.tool_not_started", MACHINE, tool=tool, error=str(exc.strerror or exc))
    return reason("probe.tool_failed", MACHINE, tool=tool, error=str(exc))
