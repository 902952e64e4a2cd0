"""Which compiled GPU code runs on which compute capability, with a sentence saying why.

Why its own module: this rule (compat.md §2d [V]) is the check uv and light-the-torch skip
(uv #14742), and a wrong answer means "no kernel image is available" at run time:
  * SASS built for sm_XY runs on the same major X with minor >= Y, never across majors;
  * PTX for compute_XY is JIT-compiled by the driver on any CC >= X.Y.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..reasons import Reason, reason
from .model import ArchSet


def cc_tuple(cc: str) -> tuple[int, int]:
    major, _, minor = cc.partition(".")
    return int(major), int(minor or 0)


def sm_label(cc: str) -> str:
    return "sm_" + cc.replace(".", "")


@dataclass(frozen=True)
class ArchMatch:
    """How a GPU of capability ``cc`` runs a build: via SASS ``code`` or via PTX JIT."""

    cc: str
    kind: str          # sass | ptx
    code: str          # "8.0" (the compiled capability used)

    @property
    def label(self) -> str:
        return sm_label(self.code) if self.kind == "sass" else "compute_" + self.code.replace(".", "")

    def explain(self) -> Reason:
        have, got = cc_tuple(self.cc), cc_tuple(self.code)
        if self.kind == "sass":
            if have == got:
                return reason("arch.exact", label=self.label, cc=self.cc)
            return reason("arch.same_major", label=self.label, cc=self.cc, got=got[1], have=have[1])
        return reason("arch.ptx", label=self.label, cc=self.cc)


def match(cc: str, archs: ArchSet) -> ArchMatch | None:
    """The best way ``archs`` runs on a GPU of capability ``cc``: newest usable SASS, else PTX, else None."""
    major, minor = cc_tuple(cc)
    sass = [cc_tuple(s) for s in archs.sm]
    usable = [s for s in sass if s[0] == major and s[1] <= minor]
    if usable:
        best = max(usable)
        return ArchMatch(cc=cc, kind="sass", code=f"{best[0]}.{best[1]}")
    if archs.ptx and cc_tuple(archs.ptx) <= (major, minor):
        return ArchMatch(cc=cc, kind="ptx", code=archs.ptx)
    return None


def describe(archs: ArchSet) -> Reason:
    """``"sm_70..sm_120 without PTX"`` -- short enough for one reason line."""
    if not archs.sm:
        return reason("arch.no_code")
    labels = [sm_label(s) for s in archs.sm]
    span = labels[0] if len(labels) == 1 else f"{labels[0]}..{labels[-1]}"
    if len(labels) <= 3:
        span = ", ".join(labels)
    if archs.ptx:
        return reason("arch.span_ptx", span=span, ptx=archs.ptx.replace(".", ""))
    return reason("arch.span", span=span)


def why_not(cc: str, archs: ArchSet) -> Reason:
    """Why a GPU of capability ``cc`` finds no kernel in ``archs`` (assumes ``match`` returned None)."""
    major, minor = cc_tuple(cc)
    same_major = [s for s in archs.sm if cc_tuple(s)[0] == major]
    if same_major:
        return reason("arch.newer_minor", major=major, labels=", ".join(sm_label(s) for s in same_major), cc=cc)
    if archs.ptx and cc_tuple(archs.ptx) > (major, minor):
        return reason("arch.ptx_too_new", major=major, ptx=archs.ptx.replace(".", ""), need=archs.ptx)
    return reason("arch.no_major", major=major)
