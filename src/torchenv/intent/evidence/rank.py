"""The one ranking: each field of the intent is decided from the records the same way.

Rules, in order: records meant for another machine (``target``) never decide; the strongest
kind wins (``model.STRENGTH``); among equals the first one read wins. A record that says the
same, or an exact version inside a range that wins or loses to it, agrees; any other value is
set aside with the record that beat it named. For ``cuda`` several different tiers at the top
strength are the project's candidates: the machine picks among them (``cuda = "auto"``), since
taking the first would plan a GPU project for a CPU.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .model import ANY, Decision, Record, kind_words, said

if TYPE_CHECKING:
    from collections.abc import Iterable


def _applies(r: Record, targets: frozenset[str]) -> bool:
    """A record for this target (or any) that still counts (strength 0: ignored, with its ``why``)."""
    return (r.target in targets or r.target == ANY) and r.strength > 0


def _tier_candidates(field: str, usable: list[Record], top: int,
                     away: list[tuple[Record, str]]) -> Decision | None:
    """For ``cuda``: several tiers at the top strength are candidates the machine picks from (``auto``)."""
    if field != "cuda":
        return None
    tiers = list(dict.fromkeys(r.value for r in usable if r.strength == top))
    if len(tiers) < 2:
        return None
    aside = [(r, said("init.tier_candidate", tiers=", ".join(tiers)))
             for r in usable if r.strength == top] + away
    return Decision(field, "auto", None, set_aside=tuple(aside), candidates=tuple(tiers))


def _agrees(field: str, best: Record, r: Record) -> bool:
    return r.value == best.value or (field == "version" and _fits(best.value, r.value))


def _why_beaten(best: Record, r: Record, top: int) -> str:
    if r.strength == top:
        return said("init.conflicts", where=best.where, value=best.value)
    return said("init.stronger", where=best.where, kind=kind_words(best.kind), other=kind_words(r.kind))


def _usable(records: Iterable[Record], field: str,
            targets: frozenset[str]) -> tuple[list[Record], list[tuple[Record, str]]]:
    """The field's records that may decide, and the others with why they may not."""
    mine = [r for r in records if r.field == field]
    usable = [r for r in mine if _applies(r, targets)]
    away = [(r, r.why if r.strength == 0 else said("init.meant_for", target=r.target)) for r in mine
            if r not in usable]
    return usable, away


def decide(records: Iterable[Record], field: str, targets: frozenset[str] = frozenset({ANY})) -> Decision:
    usable, away = _usable(records, field, targets)
    if not usable:
        return Decision(field, None, None, set_aside=tuple(away))
    top = max(r.strength for r in usable)
    best = next(r for r in usable if r.strength == top)
    candidates = _tier_candidates(field, usable, top, away)
    if candidates is not None:
        return candidates
    others = [r for r in usable if r is not best]
    agree = [r for r in others if _agrees(field, best, r)]
    aside = away + [(r, _why_beaten(best, r, top)) for r in others if not _agrees(field, best, r)]
    return Decision(field, best.value, best, tuple(agree), tuple(aside))


def _fits(a: str, b: str) -> bool:
    """Does one spec's exact version satisfy the other (``==2.6.0`` and ``>=2.5.1`` agree)?"""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    for exact, rng in ((a, b), (b, a)):
        if exact.startswith("==") and "," not in exact and "*" not in exact:
            try:
                return exact[2:] in SpecifierSet(rng)
            except InvalidSpecifier:
                return False
    return False


def _range_floor(ranges: list[Record], outside: list[tuple[Record, Record]]) -> tuple[str, Record] | None:
    """With no exact Python that fits: the floor of the strongest bounded range (or of any range, when an exact
    Python was set aside for falling outside one)."""
    bounded = [r for r in ranges if re.search(r"<=?\s*3\.", r.value)]      # "<4.0" (Poetry's ^3.8) bounds nothing
    if not (outside or bounded):
        return None
    rng = max(bounded or ranges, key=lambda r: r.strength)
    floor = _floor(rng.value)
    return (floor, rng) if floor else None


def _python_records(records: Iterable[Record], targets: frozenset[str]
                    ) -> tuple[list[Record], list[Record], list[tuple[Record, Record]]]:
    """(exact Pythons inside every range, the ranges, (exact Python, the range it falls outside) pairs)."""
    mine = [r for r in records if r.field == "python" and (r.target in targets or r.target == ANY)]
    exact = [r for r in mine if r.value[:1].isdigit()]
    ranges = [r for r in mine if not r.value[:1].isdigit()]
    outside = [(r, rng) for r in exact for rng in ranges if not _python_in(r.value, rng.value)]
    out_set = {id(r) for r, _ in outside}
    return [r for r in exact if id(r) not in out_set], ranges, outside


def decide_python(records: Iterable[Record], targets: frozenset[str] = frozenset({ANY})) -> Decision:
    """Python: an exact "X.Y" decides (the strongest, first read); ranges (``requires-python``) only bound it.

    An exact Python outside a range the project states is set aside, and the range's floor is taken
    in its place: ``requires-python = ">=3.10"`` beats a ``.python-version`` of 3.8. A range with an
    upper bound (``>=3.10,<3.13``) and no exact Python gives its floor, the Python the project is
    surely tested on; a floor alone (``>=3.10``) writes nothing, and the resolver keeps the chosen
    Python inside ``requires-python``.
    """
    fits, ranges, outside = _python_records(records, targets)
    aside = tuple((r, said("init.outside", where=rng.where, spec=rng.value)) for r, rng in outside)
    if fits:
        decided = decide(fits, "python", targets)
        inside = tuple(r for r in ranges if decided.value and _python_in(decided.value, r.value))
        return Decision("python", decided.value, decided.by, decided.agree + inside, decided.set_aside + aside)
    floor = _range_floor(ranges, outside)
    if floor:
        return Decision("python", floor[0], floor[1], set_aside=aside)
    return Decision("python", None, None, set_aside=aside)


def _python_in(version: str, spec: str) -> bool:
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        return SpecifierSet(spec).contains(version + ".0", prereleases=True) or version in SpecifierSet(spec)
    except InvalidSpecifier:
        return True


def _floor(spec: str) -> str | None:
    """``>=3.10,<3.13`` -> "3.10" (the lowest X.Y the range allows)."""
    m = re.search(r">=\s*(3\.\d+)", spec) or re.search(r"~=\s*(3\.\d+)", spec) or re.search(r">\s*(3\.\d+)", spec)
    if not m:
        return None
    if spec.lstrip().startswith(">") and not spec.lstrip().startswith(">="):
        major, minor = m.group(1).split(".")
        return f"{major}.{int(minor) + 1}"
    return m.group(1)
