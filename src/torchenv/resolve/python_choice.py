"""Choose the Python of the environment: one the release has wheels for, preferably already on the machine.

Why: an interpreter already installed means no download and the ``venv`` backend works; an
experimental Python (RELEASE.md's words) is taken only when it is the one the machine has.
"""
from __future__ import annotations

from dataclasses import dataclass

from .. import kb
from ..machine import Machine
from ..reasons import CALLER, MACHINE, PROJECT, TORCHENV, Reason, reason


@dataclass(frozen=True)
class PythonChoice:
    version: str
    path: str | None            # interpreter on this machine (None: unknown path or must be installed)
    reason: Reason
    warning: Reason | None = None
    present: bool = True        # the machine has this Python (an assumed machine may not know its path)


def _minor(version: str) -> str:
    """``"3.14.0"`` -> ``"3.14"``; a free-threaded ``"3.14.0t"`` -> ``"3.14t"`` (a different ABI: cp314t)."""
    base = ".".join(version.rstrip("t").split(".")[:2])
    return base + "t" if version.endswith("t") else base


def interpreter(machine: Machine, minor: str) -> str | None:
    """Path of the newest-patch interpreter of ``minor`` ("3.11", "3.14t") on the machine; "" when assumed
    without a path."""
    found = [p for p in machine.pythons if _minor(p.version) == minor]
    if not found:
        return None
    return max(found, key=lambda p: kb.vtuple(p.version)).path or ""


def within(versions: list[str], requires: tuple[str, str] | None) -> list[str]:
    """The Pythons of ``versions`` that the project's ``requires-python`` allows (all, when it states none)."""
    if requires is None:
        return versions
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        spec = SpecifierSet(requires[0])
    except InvalidSpecifier:
        return versions
    return [v for v in versions if spec.contains(v.rstrip("t") + ".0", prereleases=True)]


def _asked_for(machine: Machine, wanted: str, wanted_by: Reason, requires: tuple[str, str] | None) -> PythonChoice:
    """The Python the project or user named: taken as is, with a warning when it must be installed or falls
    outside requires-python."""
    path = interpreter(machine, wanted)
    where = (reason("python.not_here", MACHINE) if path is None else
             reason("python.found_at", MACHINE, path=path) if path else reason("python.assumed", MACHINE))
    warning = None if path is not None else reason("warn.python_missing", MACHINE, python=wanted)
    if requires and not within([wanted], requires):
        warning = reason("warn.python_outside", PROJECT, python=wanted, spec=requires[0], file=requires[1])
    return PythonChoice(wanted, path or None, reason("python.set", wanted_by.decided_by, python=wanted,
                                                     who=wanted_by, where=where),
                        warning, present=path is not None)


def _newest_stable(versions: list[str], rel: kb.Release) -> str:
    """The newest of ``versions`` that is not experimental for ``rel`` (the newest at all when every one is)."""
    stable = [v for v in versions if v not in rel.python_experimental]
    return (stable or versions)[-1]


def _on_machine(rel: kb.Release, machine: Machine, present: list[str], bound: Reason | str) -> PythonChoice:
    """The newest stable Python of this machine that the release has wheels for (an experimental one if only)."""
    pick = _newest_stable(present, rel)
    others = [v for v in present if v != pick]
    return PythonChoice(pick, interpreter(machine, pick) or None,
                        reason("python.newest_here_others" if others else "python.newest_here", MACHINE,
                               python=pick, version=rel.version, others=", ".join(others), bound=bound))


def _to_install(rel: kb.Release, machine: Machine, supported: list[str], bound: Reason | str) -> PythonChoice:
    """None of this machine's Pythons fits: the newest stable one the release supports, to be installed."""
    pick = _newest_stable(supported, rel)
    have = ", ".join(machine.python_versions()) or reason("words.none_found")
    return PythonChoice(pick, None,
                        reason("python.install", TORCHENV, python=pick, version=rel.version, first=supported[0],
                               last=supported[-1], have=have, bound=bound),
                        reason("warn.python_install", MACHINE, python=pick), present=False)


def choose_python(rel: kb.Release, machine: Machine, wanted: str | None,
                  prefer: str | None = None, platform: str | None = None, *,
                  wanted_by: Reason | None = None, requires: tuple[str, str] | None = None) -> PythonChoice:
    """``wanted_by`` names who asked for ``wanted``; ``requires`` is the project's (requires-python, file): the
    Python chosen here stays inside it, since installing the project fails outside it.

    In order: the Python asked for, the caller's preference when torch supports it, the newest supported one on
    the machine, else the newest supported one (to be installed)."""
    if wanted:
        return _asked_for(machine, wanted, wanted_by or reason("who.project_bare", PROJECT), requires)
    bound = reason("python.bound", PROJECT, spec=requires[0], file=requires[1]) if requires else ""
    supported = within(list(rel.pythons(platform)), requires) or list(rel.pythons(platform))
    if prefer and prefer in supported:
        path = interpreter(machine, prefer)
        return PythonChoice(prefer, path or None, reason("python.preferred", CALLER, python=prefer,
                                                         version=rel.version, bound=bound), present=path is not None)
    present = [v for v in machine.python_versions() if v in supported]
    if present:
        return _on_machine(rel, machine, present, bound)
    return _to_install(rel, machine, supported, bound)
