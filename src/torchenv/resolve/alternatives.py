"""Plans that *would* work, for a refusal: the same search with one constraint relaxed at a time.

Why re-run the search instead of guessing: an alternative is only worth printing if it passes
every other check (driver, every GPU's compiled code, Python wheels), and the search already
knows how to check that.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .machine_view import MachineView
from .search import Candidate, Constraints, search


def _entry(kind: str, c: Candidate, why: str, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": kind, "torch": c.release.version, "tier": c.tier}
    out.update(extra)
    out["why"] = why
    return out


def _python_entry(c: Candidate, cons: Constraints, mv: MachineView) -> dict[str, Any]:
    supported = c.release.pythons(mv.platform)
    pick = max((v for v in supported if v not in c.release.python_experimental), default=supported[-1],
               key=lambda v: tuple(int(x) for x in v.split(".")))
    return _entry("python", c, f"torch {c.release.version} has wheels for Python {supported[0]}-{supported[-1]}",
                  python=pick)


# (does the rule apply, the relaxed request, the alternative a found candidate makes, or None), in the order shown
_Rule = tuple[Callable[[Constraints, MachineView], bool], Callable[[Constraints], Constraints],
              Callable[[Candidate, Constraints, MachineView], "dict[str, Any] | None"]]
_RULES: tuple[_Rule, ...] = (
    (lambda cons, mv: cons.tier != "auto", lambda cons: cons.relax(tier="auto"),
     lambda c, cons, mv: _entry("tier", c, f"torch {c.release.version} built for {c.tier} fits this machine "
                                           f"({cons.tier} does not)")),
    (lambda cons, mv: bool(cons.spec), lambda cons: cons.relax(spec=None),
     lambda c, cons, mv: _entry("torch", c, f"torch {c.release.version} ({c.tier}) is the newest release that "
                                            "fits this machine")),
    (lambda cons, mv: bool(cons.spec) and cons.tier != "auto", lambda cons: cons.relax(spec=None, tier="auto"),
     lambda c, cons, mv: _entry("torch", c, f"torch {c.release.version} with {c.tier} fits this machine")),
    (lambda cons, mv: bool(cons.python), lambda cons: cons.relax(python=None), _python_entry),
    (lambda cons, mv: cons.policy == "strict", lambda cons: cons.relax(policy="compat"),
     lambda c, cons, mv: _entry("policy", c, "the compat policy accepts NVIDIA's minor-version compatibility "
                                             "floors", policy="compat")),
    (lambda cons, mv: mv.mode == "cuda" and bool(mv.driver), lambda cons: cons.relax(check_driver=False),
     lambda c, cons, mv: _entry("driver", c, f"with an NVIDIA driver >= {c.floor}, torch {c.release.version} "
                                             f"{c.tier} would run here", min_driver=c.floor) if c.floor else None),
    (lambda cons, mv: not cons.allow_experimental and cons.tier == "auto",
     lambda cons: cons.relax(allow_experimental=True),
     lambda c, cons, mv: _entry("experimental", c, f"{c.tier} is experimental for torch {c.release.version}")
     if c.status == "experimental" else None),
    (lambda cons, mv: mv.mode in ("cuda", "rocm") and cons.tier != "cpu", lambda cons: cons.relax(tier="cpu"),
     lambda c, cons, mv: _entry("tier", c, "the CPU build installs and runs here, without GPU acceleration")),
)


def alternatives(cons: Constraints, mv: MachineView) -> list[dict[str, Any]]:
    """Requests close to ``cons`` that would succeed on this machine, each once, in the order of ``_RULES``."""
    found: list[dict[str, Any]] = []
    for applies, relaxed, make in _RULES:
        if not applies(cons, mv):
            continue
        c = search(relaxed(cons), mv).found
        alt = make(c, cons, mv) if c else None
        if alt is not None:
            found.append(alt)
    seen: set[tuple[Any, ...]] = set()
    unique = []
    for alt in found:
        key = (alt["kind"], alt["torch"], alt["tier"], alt.get("python"), alt.get("min_driver"))
        if key not in seen:
            seen.add(key)
            unique.append(alt)
    return unique


def as_words(alt: dict[str, Any]) -> str:
    """One alternative as a short phrase, for the refusal message."""
    kind = alt["kind"]
    base = f"torch {alt['torch']} with {alt['tier']}"
    if kind == "python":
        return f"Python {alt['python']} ({base})"
    if kind == "driver":
        return f"NVIDIA driver >= {alt['min_driver']} ({base})"
    if kind == "policy":
        return f"policy = \"compat\" ({base})"
    if kind == "experimental":
        return f"allow_experimental = true ({base})"
    return base


def as_flags(alt: dict[str, Any]) -> str:
    """The command-line words that select an alternative."""
    kind = alt["kind"]
    if kind == "python":
        return f"--python {alt['python']}"
    if kind == "driver":
        return f"upgrade the NVIDIA driver to >= {alt['min_driver']}"
    if kind == "policy":
        return "--policy compat"
    if kind == "experimental":
        return "--experimental"
    if kind == "torch":
        return f"--torch {alt['torch']} --cuda {alt['tier']}"
    return f"--cuda {alt['tier']}" + (f" --torch {alt['torch']}" if alt.get("torch") else "")
