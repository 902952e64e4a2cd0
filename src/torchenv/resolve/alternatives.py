"""Plans that *would* work, for a refusal: the same search with one constraint relaxed at a time.

Why re-run the search instead of guessing: an alternative is only worth printing if it passes
every other check (driver, every GPU's compiled code, Python wheels), and the search already
knows how to check that.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..reasons import MACHINE, Reason, reason
from .machine_view import MachineView
from .search import Candidate, Constraints, search


def _entry(kind: str, c: Candidate, why: Reason, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": kind, "torch": c.release.version, "tier": c.tier}
    out.update(extra)
    out["why"] = why
    return out


def _python_entry(c: Candidate, cons: Constraints, mv: MachineView) -> dict[str, Any]:
    supported = c.release.pythons(mv.platform)
    pick = max((v for v in supported if v not in c.release.python_experimental), default=supported[-1],
               key=lambda v: tuple(int(x) for x in v.split(".")))
    return _entry("python", c, reason("alt.python", version=c.release.version, first=supported[0],
                                      last=supported[-1]), python=pick)


# (does the rule apply, the relaxed request, the alternative a found candidate makes, or None), in the order shown
_Rule = tuple[Callable[[Constraints, MachineView], bool], Callable[[Constraints], Constraints],
              Callable[[Candidate, Constraints, MachineView], "dict[str, Any] | None"]]
_RULES: tuple[_Rule, ...] = (
    (lambda cons, mv: cons.tier != "auto", lambda cons: cons.relax(tier="auto"),
     lambda c, cons, mv: _entry("tier", c, reason("alt.tier", MACHINE, version=c.release.version, tier=c.tier,
                                                  asked=cons.tier))),
    (lambda cons, mv: bool(cons.spec), lambda cons: cons.relax(spec=None),
     lambda c, cons, mv: _entry("torch", c, reason("alt.newest", MACHINE, version=c.release.version,
                                                   tier=c.tier))),
    (lambda cons, mv: bool(cons.spec) and cons.tier != "auto", lambda cons: cons.relax(spec=None, tier="auto"),
     lambda c, cons, mv: _entry("torch", c, reason("alt.torch_tier", MACHINE, version=c.release.version,
                                                   tier=c.tier))),
    (lambda cons, mv: bool(cons.python), lambda cons: cons.relax(python=None), _python_entry),
    (lambda cons, mv: cons.policy == "strict", lambda cons: cons.relax(policy="compat"),
     lambda c, cons, mv: _entry("policy", c, reason("alt.policy"), policy="compat")),
    (lambda cons, mv: mv.mode == "cuda" and bool(mv.driver), lambda cons: cons.relax(check_driver=False),
     lambda c, cons, mv: _entry("driver", c, reason("alt.driver", MACHINE, floor=c.floor, version=c.release.version,
                                                    tier=c.tier), min_driver=c.floor) if c.floor else None),
    (lambda cons, mv: not cons.allow_experimental and cons.tier == "auto",
     lambda cons: cons.relax(allow_experimental=True),
     lambda c, cons, mv: _entry("experimental", c, reason("alt.experimental", tier=c.tier,
                                                          version=c.release.version))
     if c.status == "experimental" else None),
    (lambda cons, mv: mv.mode in ("cuda", "rocm") and cons.tier != "cpu", lambda cons: cons.relax(tier="cpu"),
     lambda c, cons, mv: _entry("tier", c, reason("alt.cpu", MACHINE))),
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


# how each kind of alternative is said: the catalogue's sentence and the alternative's field it names
_WORDS = {"python": ("words.alt_python", "python"), "driver": ("words.alt_driver", "min_driver"),
          "policy": ("words.alt_policy", ""), "experimental": ("words.alt_experimental", "")}


def as_words(alt: dict[str, Any]) -> Reason:
    """One alternative as a short phrase, for the refusal message."""
    base = reason("words.alt_base", torch=alt["torch"], tier=alt["tier"])
    said = _WORDS.get(alt["kind"])
    if said is None:
        return base
    return reason(said[0], alternative=base, value=alt.get(said[1], ""))


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
    if kind == "companions":         # no flag drops a companion: the project's file says it
        return reason("alt.drop_companion", name=alt["drop"])
    return f"--cuda {alt['tier']}" + (f" --torch {alt['torch']}" if alt.get("torch") else "")
