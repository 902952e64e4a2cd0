"""Plans that *would* work, for a refusal: the same search with one constraint relaxed at a time.

Why re-run the search instead of guessing: an alternative is only worth printing if it passes
every other check (driver, every GPU's compiled code, Python wheels), and the search already
knows how to check that.
"""
from __future__ import annotations

from typing import Any

from .machine_view import MachineView
from .search import Candidate, Constraints, search


def _entry(kind: str, c: Candidate, why: str, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": kind, "torch": c.release.version, "tier": c.tier}
    out.update(extra)
    out["why"] = why
    return out


def alternatives(cons: Constraints, mv: MachineView) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []

    def attempt(relaxed: Constraints) -> Candidate | None:
        return search(relaxed, mv).found

    if cons.tier != "auto":
        c = attempt(cons.relax(tier="auto"))
        if c:
            found.append(_entry("tier", c, f"torch {c.release.version} built for {c.tier} fits this machine "
                                           f"({cons.tier} does not)"))
    if cons.spec:
        c = attempt(cons.relax(spec=None))
        if c:
            found.append(_entry("torch", c, f"torch {c.release.version} ({c.tier}) is the newest release that "
                                            "fits this machine"))
        if cons.tier != "auto":
            c = attempt(cons.relax(spec=None, tier="auto"))
            if c:
                found.append(_entry("torch", c, f"torch {c.release.version} with {c.tier} fits this machine"))
    if cons.python:
        c = attempt(cons.relax(python=None))
        if c:
            supported = c.release.pythons(mv.platform)
            pick = max((v for v in supported if v not in c.release.python_experimental), default=supported[-1],
                       key=lambda v: tuple(int(x) for x in v.split(".")))
            found.append(_entry("python", c, f"torch {c.release.version} has wheels for Python "
                                             f"{supported[0]}-{supported[-1]}", python=pick))
    if cons.policy == "strict":
        c = attempt(cons.relax(policy="compat"))
        if c:
            found.append(_entry("policy", c, "the compat policy accepts NVIDIA's minor-version compatibility "
                                             "floors", policy="compat"))
    if mv.mode == "cuda" and mv.driver:
        c = attempt(cons.relax(check_driver=False))
        if c and c.floor:
            found.append(_entry("driver", c, f"with an NVIDIA driver >= {c.floor}, torch {c.release.version} "
                                             f"{c.tier} would run here", min_driver=c.floor))
    if not cons.allow_experimental and cons.tier == "auto":
        c = attempt(cons.relax(allow_experimental=True))
        if c and c.status == "experimental":
            found.append(_entry("experimental", c, f"{c.tier} is experimental for torch {c.release.version}"))
    if mv.mode in ("cuda", "rocm") and cons.tier != "cpu":
        c = attempt(cons.relax(tier="cpu"))
        if c:
            found.append(_entry("tier", c, "the CPU build installs and runs here, without GPU acceleration"))
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
