"""Turn a diagnosis into commands a user can paste: the right installer for that env, the right index.

Why its own module: every check needs "install exactly these builds into *this* env", and the answer
depends on the env (pip present? uv-made venv without pip? conda?) and on the tier that would work,
which the resolver decides when it is available (a small kb-based search otherwise).
"""
from __future__ import annotations

import shlex
from typing import TYPE_CHECKING, Any

from . import archscan, knowledge

if TYPE_CHECKING:
    from ..machine import Machine
    from .model import EnvFacts

OFFICIAL = "https://download.pytorch.org/whl"


def index_url(tier: str, torch_mirror: str | None = None) -> str:
    base = (torch_mirror or OFFICIAL).rstrip("/")
    return f"{base}/{tier}"


def _q(s: str) -> str:
    return shlex.quote(s)


def _uv() -> str:
    """``uv`` when it is on PATH, else the absolute path of the uv torchenv ships with (a pasteable command)."""
    import shutil

    if shutil.which("uv"):
        return "uv"
    try:
        from uv import find_uv_bin

        return _q(find_uv_bin())
    except (ImportError, FileNotFoundError):
        return "uv"


def pip_install(env: EnvFacts | None, reqs: list[str], index: str | None = None) -> str:
    """``<env>/bin/python -m pip install ...`` when the env has pip, else ``uv pip install -p <env> ...``."""
    tail = " ".join(_q(r) for r in reqs) + (f" --index-url {_q(index)}" if index else "")
    if env is None or env.kind == "text":       # a build named in --explain text, not an env on disk
        return f"pip install {tail}"
    if env.has_pip and env.interpreter:
        return f"{_q(env.interpreter)} -m pip install {tail}"
    return f"{_uv()} pip install -p {_q(env.prefix)} {tail}"


def pip_uninstall(env: EnvFacts | None, names: list[str]) -> str:
    joined = " ".join(_q(n) for n in names)
    if env is None or env.kind == "text":
        return f"pip uninstall -y {joined}"
    if env.has_pip and env.interpreter:
        return f"{_q(env.interpreter)} -m pip uninstall -y {joined}"
    return f"{_uv()} pip uninstall -p {_q(env.prefix)} {joined}"


def _tier_fits(machine: Machine, version: str, tier: str) -> bool:
    if tier == "cpu" or not tier.startswith("cu"):
        return False
    floor = knowledge.driver_floor(tier, machine.os)
    if machine.driver and floor and not knowledge.driver_ok(machine.driver, floor):
        return False
    archs = knowledge.compiled_archs(version, tier, machine.platform_key)
    for gpu in machine.gpus:
        if gpu.cc_tuple and archs and not archscan.runs_on(archs, gpu.cc_tuple):
            return False
    return bool(archs) or not machine.gpus


def _from_resolver(machine: Machine, version: str | None, python: str | None) -> tuple[str, str] | None:
    """(release, tier) the resolver plans for this machine: the env's release first, then any release."""
    try:
        from ..intent.model import Intent, TorchIntent
        from ..resolve.resolver import resolve
    except ImportError:
        return None
    for spec in ([f"=={version}"] if version else []) + [None]:
        try:
            plan = resolve(Intent(torch=TorchIntent(version=spec, cuda="auto", python=python)), machine)
        except Exception:
            continue
        if plan.tier.startswith("cu"):
            return plan.torch_version, plan.tier
    return None


def working_tier(machine: Machine, version: str | None, python: str | None = None) -> tuple[str, str] | None:
    """(torch release, tier) that runs on this machine: the same release if any tier of it fits, else the
    newest release that has one (a Pascal GPU gets 2.14.x cu126, not nothing). Resolver first; a kb
    search over release x tier only when the resolver cannot answer."""
    found = _from_resolver(machine, version.split("+")[0] if version else None, python)
    if found:
        return found
    public = version.split("+")[0] if version else None
    for release in ([public] if public else []) + [r for r in knowledge.releases() if r != public]:
        for tier in knowledge.tiers_for(release, machine.platform_key):
            if _tier_fits(machine, release, tier):
                return release, tier
    return None


def install_build(env: EnvFacts | None, version: str, tier: str, torch_mirror: str | None = None
                  ) -> tuple[str, str]:
    """(pip command, torchenv command) that put torch ``version`` of ``tier`` (and its installed companions)
    into the env. Local tags are explicit: ``torch==2.8.0`` would count as already satisfied by ``+cu128``."""
    reqs = [f"torch=={version}+{tier}"]
    for comp in (env.companions if env else ()):
        paired = knowledge.companion_version(version, comp.name, tier)
        if paired:
            reqs.append(f"{comp.name}=={paired}+{tier}")
    with_ = " ".join(f"--with {c.name}" for c in (env.companions if env else ()))
    te = f"torchenv up --torch {version} --cuda {tier}" + (f" {with_}" if with_ else "")
    return pip_install(env, reqs, index_url(tier, torch_mirror)), te


def describe(values: dict[str, Any]) -> str:
    return ", ".join(f"{k} {v}" for k, v in values.items() if v)
