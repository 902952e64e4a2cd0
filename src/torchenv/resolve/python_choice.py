"""Choose the Python of the environment: one the release has wheels for, preferably already on the machine.

Why: an interpreter already installed means no download and the ``venv`` backend works; an
experimental Python (RELEASE.md's words) is taken only when it is the one the machine has.
"""
from __future__ import annotations

from dataclasses import dataclass

from .. import kb
from ..machine import Machine


@dataclass(frozen=True)
class PythonChoice:
    version: str
    path: str | None            # interpreter on this machine (None: unknown path or must be installed)
    reason: str
    warning: str | None = None
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


def _asked_for(machine: Machine, wanted: str, wanted_by: str, requires: tuple[str, str] | None) -> PythonChoice:
    """The Python the project or user named: taken as is, with a warning when it must be installed or falls
    outside requires-python."""
    path = interpreter(machine, wanted)
    where = ("not on this machine: it will be installed" if path is None else
             f"found at {path}" if path else "on the (assumed) machine")
    warning = None if path is not None else f"Python {wanted} is not on this machine; `up` has to install it"
    if requires and not within([wanted], requires):
        warning = (f"Python {wanted} is outside the project's requires-python {requires[0]} ({requires[1]}): "
                   "installing the project will fail")
    return PythonChoice(wanted, path or None, f"Python {wanted}: set by {wanted_by}; {where}", warning,
                        present=path is not None)


def _newest_stable(versions: list[str], rel: kb.Release) -> str:
    """The newest of ``versions`` that is not experimental for ``rel`` (the newest at all when every one is)."""
    stable = [v for v in versions if v not in rel.python_experimental]
    return (stable or versions)[-1]


def _on_machine(rel: kb.Release, machine: Machine, present: list[str], bound: str) -> PythonChoice:
    pick = _newest_stable(present, rel)
    others = f" (also on this machine: {', '.join(v for v in present if v != pick)})" if len(present) > 1 else ""
    return PythonChoice(pick, interpreter(machine, pick) or None,
                        f"Python {pick}: the newest Python on this machine that torch {rel.version} has "
                        f"wheels for{others}{bound}")


def _to_install(rel: kb.Release, machine: Machine, supported: list[str], bound: str) -> PythonChoice:
    pick = _newest_stable(supported, rel)
    have = ", ".join(machine.python_versions()) or "none found"
    return PythonChoice(pick, None,
                        f"Python {pick}: the newest Python torch {rel.version} supports "
                        f"({supported[0]}-{supported[-1]}); none of this machine's Pythons ({have}) fits, "
                        f"so it must be installed{bound}",
                        f"Python {pick} is not on this machine; `up` has to install it (conda backend, or "
                        f"`uv python install {pick}`)", present=False)


def choose_python(rel: kb.Release, machine: Machine, wanted: str | None,
                  prefer: str | None = None, platform: str | None = None, *,
                  wanted_by: str = "the project", requires: tuple[str, str] | None = None) -> PythonChoice:
    """``wanted_by`` names who asked for ``wanted``; ``requires`` is the project's (requires-python, file): the
    Python chosen here stays inside it, since installing the project fails outside it.

    In order: the Python asked for, the caller's preference when torch supports it, the newest supported one on
    the machine, else the newest supported one (to be installed)."""
    if wanted:
        return _asked_for(machine, wanted, wanted_by, requires)
    bound = f"; kept within the project's requires-python {requires[0]} ({requires[1]})" if requires else ""
    supported = within(list(rel.pythons(platform)), requires) or list(rel.pythons(platform))
    if prefer and prefer in supported:
        path = interpreter(machine, prefer)
        return PythonChoice(prefer, path or None, f"Python {prefer}: preferred by the caller and supported by "
                            f"torch {rel.version}{bound}", present=path is not None)
    present = [v for v in machine.python_versions() if v in supported]
    if present:
        return _on_machine(rel, machine, present, bound)
    return _to_install(rel, machine, supported, bound)
