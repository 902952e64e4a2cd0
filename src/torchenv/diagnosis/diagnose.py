"""One doctor run: read the env, run the checks, optionally confirm by importing in the env's interpreter.

Why a single entry point: the CLI, ``--explain`` and ``--report`` (and ``torchenv verify`` if it wants a
diagnosis after a failed check) all need the same Diagnosis, built the same way.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..i18n import _
from .model import Context, Diagnosis, EnvFacts, Finding

if TYPE_CHECKING:
    from ..machine import Machine


def _import_check(env: EnvFacts, findings: list[Finding], ctx: Context) -> tuple[list[Finding], dict[str, Any]]:
    """Import torch in the env's own interpreter: errors gain what it saw, and a crash, hang or failure no static
    check explains becomes a finding of its own."""
    from . import explain
    from . import runtime as rt

    runtime = rt.probe_env(env.interpreter or "", [c.name for c in env.companions], ctx.environ)
    line = explain.evidence(runtime)
    findings = [_with_evidence(f, runtime) if f.severity == "error" else f for f in findings]
    findings += explain.runtime_findings(rt.messages(runtime), findings)
    if runtime.get("crashed") is not None or runtime.get("timeout"):
        findings.append(Finding("error", _("import torch crashed or hung in this env"), line,
                                _("torchenv up   # recreate the env; a crash on import means broken binaries"),
                                "import-crash"))
    elif (runtime.get("torch_error") or runtime.get("error")) and not any(
            f.id.startswith("runtime-") for f in findings):
        findings.append(_import_fails(runtime, line))
    return findings, runtime


_SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


def diagnose(machine: Machine, prefix: Path | None, ctx: Context, *, import_check: bool = True) -> Diagnosis:
    from . import checks_build, checks_system, envscan
    from .through_torchenv import route

    env = envscan.read_env(prefix) if prefix is not None else None
    findings: list[Finding] = []
    if env is not None:
        findings += checks_build.run_all(machine, env, ctx)
    findings += checks_system.run_all(machine, env, ctx)
    findings += [_probe_note(note) for note in machine.findings]
    findings += _gone_kernels(ctx)
    runtime = None
    if import_check and env is not None and env.torch_version and env.interpreter:
        findings, runtime = _import_check(env, findings, ctx)
    findings = route(findings, env)
    findings.sort(key=lambda f: _SEVERITY_ORDER.get(f.severity, 3))
    return Diagnosis(machine=machine, env=env, findings=findings, runtime=runtime)


def _probe_note(note: str) -> Finding:
    """A probe finding as a doctor finding; shown in the user's language (the probe keeps it English)."""
    from ..reasons import shown

    said = shown(note)
    return Finding("info", _("probe: {note}").format(note=said), said, None, "probe-note")


def _with_evidence(f: Finding, runtime: dict[str, Any]) -> Finding:
    """Append what the import check saw: about the companion for a companion finding, else about torch."""
    import dataclasses

    from .explain import evidence

    package = f.title.split(" ", 1)[0] if f.id == "companion-mismatch" else None
    return dataclasses.replace(f, detail=f"{f.detail} [import check: {evidence(runtime, package)}]")


def _import_fails(runtime: dict[str, Any], line: str) -> Finding:
    """torch is installed (its dist-info says so) but the env's interpreter cannot import it.

    Why an error even when no catalogue entry explains it: an env whose torch does not import is
    broken whatever the reason, and ``doctor`` gates CI on errors.
    """
    return Finding("error", _("import torch fails in this env"),
                   _("{error}; the installed files are damaged or incomplete").format(
                       error=line if runtime.get("torch_error") else runtime["error"]),
                   _("torchenv up   # repairs an env torchenv made (`torchenv up --force` rebuilds it)"),
                   "import-fails")


def _gone_kernels(ctx: Context) -> list[Finding]:
    """torchenv's Jupyter kernelspecs whose env is gone: Jupyter lists them, and starting one fails."""
    from ..jupyter.kernelspec import ours

    return [Finding("warning", _("Jupyter kernel {name} ({display}) points at an environment that is gone").format(
                        name=k.name, display=k.display_name),
                    _("{folder}: {env} no longer exists, so the kernel cannot start").format(folder=k.folder, env=k.env),
                    f"torchenv kernel remove {k.name}", "kernel-env-gone",
                    (_("torchenv up -C {project}   # builds the env again; the kernel then works").format(
                        project=k.project),))
            for k in ours(ctx.environ) if k.env_gone]
