"""One exception family, each carrying a message written for the user.

Why: every failure a user can hit must say what is wrong, where (file, line, key,
source URL) and what to try instead. Commands catch ``TorchenvError`` at the top
and print ``message`` + ``hint``; nothing else needs to format errors.
"""
from __future__ import annotations

from typing import Any


def _redacted(text: str, redact: Any) -> str:
    redacted: str = redact(text)
    return text if redacted == text else redacted


class TorchenvError(Exception):
    """Base error. ``exit_code`` is what the CLI returns (2 for refusals/bad input)."""

    exit_code = 1

    def __init__(self, message: str, *, hint: str | None = None, **details: Any) -> None:
        from .redaction import redact_text  # a message may quote a URL or an engine's output

        # a text with nothing to redact is kept as it came (a ``reasons.Reason`` keeps its data for rendering)
        message, hint = _redacted(message, redact_text), _redacted(hint, redact_text) if hint else hint
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.details = {k: redact_text(v) if isinstance(v, str) else v for k, v in details.items()}

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"error": self.message}
        if self.hint:
            out["hint"] = self.hint
        out.update({k: v for k, v in self.details.items() if v is not None})
        return out

    def __str__(self) -> str:
        return self.message if not self.hint else f"{self.message}\n  hint: {self.hint}"


class IntentError(TorchenvError):
    """torchenv.toml (or a flag) is malformed: names file, line and key."""

    exit_code = 2

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None,
                 key: str | None = None, hint: str | None = None) -> None:
        where = file or "<flags>"
        if line is not None:
            where += f":{line}"
        if key:
            where += f": {key}" if ("." in key or key.startswith("-")) else f": [{key}]"
        super().__init__(f"{where}: {message}", hint=hint, file=file, line=line, key=key)
        self.file, self.line, self.key = file, line, key


class MachineFileError(TorchenvError):
    """A saved probe (--machine FILE) or an --assume-* value is invalid."""

    exit_code = 2


class PlanRefused(TorchenvError):
    """The intent cannot be met on this machine. Carries alternatives that would work."""

    exit_code = 2

    def __init__(self, message: str, *, reasons: list[str] | None = None,
                 alternatives: list[dict[str, Any]] | None = None, hint: str | None = None,
                 fits: dict[str, Any] | None = None) -> None:
        super().__init__(message, hint=hint)
        self.reasons = reasons or []
        self.alternatives = alternatives or []
        # the build that fits this machine when what refused is fetching it (tier, torch, python, unfetchable):
        # tools read "what fits" apart from "what can be fetched"
        self.fits = fits

    def to_json(self) -> dict[str, Any]:
        from .reasons import to_json

        alternatives = [{**a, "why_data": to_json(a["why"])} if "why" in a else a for a in self.alternatives]
        out: dict[str, Any] = {"error": self.message, "reasons": self.reasons, "alternatives": alternatives,
                               "error_data": to_json(self.message), "reasons_data": [to_json(r) for r in self.reasons]}
        if self.hint:
            out["hint"] = self.hint
            out["hint_data"] = to_json(self.hint)
        if self.fits is not None:
            out["fits"] = self.fits
        return out


class SourceError(TorchenvError):
    """An index/mirror could not be reached, lacked a file, or served wrong bytes."""

    def __init__(self, message: str, *, url: str | None = None, hint: str | None = None) -> None:
        super().__init__(message, hint=hint, url=url)
        self.url = self.details["url"]


class HashMismatch(SourceError):
    """Bytes on disk or from a source do not match the sha256 the lock/plan names."""


class LockError(TorchenvError):
    """torchenv.lock is malformed, from a newer torchenv, edited by hand, or lacks a target."""

    exit_code = 2


class EnvError(TorchenvError):
    """The environment path holds something torchenv must not touch, or is broken."""


class BackendError(TorchenvError):
    """An engine (uv, pip, rattler, conda) failed; message carries its output tail."""


class BuildFailed(BackendError):
    """A package (a dependency built from source, or the project itself) did not build.

    Why its own type: ``up`` saves ``output`` (the whole build log) under the project's ``.torchenv/`` and
    names it, and the message shows the build's first real errors, not the installer's last line.
    """

    def __init__(self, message: str, *, package: str, output: str, what: str, hint: str | None = None,
                 log: str | None = None) -> None:
        super().__init__(message, hint=hint, package=package, log=log)
        self.package, self.output, self.what, self.log = package, output, what, log


class ConcurrentRun(TorchenvError):
    """Another torchenv process holds the project lock."""


class KernelError(TorchenvError):
    """A Jupyter kernelspec torchenv may not write or remove (another tool's, or an unreadable one)."""

    exit_code = 2


class ClusterError(TorchenvError):
    """Slurm is missing, a partition is unknown, a job stayed pending, or a node type's probe/install/verify failed."""

    exit_code = 2


class PulledInFamily(SourceError):
    """A torch-family package the resolve pulled in through a PyPI dependency (``torchvision`` through
    ``lm-eval``) that the plan's torch source cannot serve; ``up`` plans again with it required."""

    def __init__(self, message: str, *, name: str, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.name = name
