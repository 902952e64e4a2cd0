"""Normalising the words users write for a torch version, a CUDA tier and a Python version.

Why one module: ``torchenv.toml``, the ``--torch/--cuda/--python`` flags, ``torchenv init``
(reading requirement pins) and the resolver must agree on what "2.4", "12.1" or "cu121"
means, so they all call these functions. Everything here is cheap: common forms are checked
with regular expressions, and ``packaging`` is imported only for unusual version specs
(or when a caller asks for a ``SpecifierSet``), because the no-op ``up`` path parses the
intent and must stay fast.

Functions raise ``InvalidValue`` (a ``ValueError``) carrying a reason and a hint; the
caller knows *where* the value came from (file line or flag) and wraps it into an
``IntentError``.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..i18n import _

if TYPE_CHECKING:
    from packaging.specifiers import SpecifierSet

COMPANIONS = ("torchaudio", "torchvision")
PYTHON_MIN, PYTHON_MAX = (3, 8), (3, 15)

TORCH_SPEC_FORMS = ('"2.4" (any 2.4.x), "2.4.1" (exactly), ">=2.3,<2.5", "~=2.4.0", "==2.4.*"')
TIER_FORMS = '"auto", "cpu", "12.1" or "cu121" (CUDA 12.1), "rocm6.2"'


class InvalidValue(ValueError):
    """A value that cannot be normalised. ``reason`` says what is wrong, ``hint`` what to write."""

    def __init__(self, reason: str, hint: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.hint = hint


# --- torch version --------------------------------------------------------------------------

_BARE = re.compile(r"v?(\d+(?:\.\d+)*)(\.\*)?")
_CLAUSE = re.compile(r"(==|!=|>=|<=|>|<|~=)\s*(\d+(?:\.\d+)*)(\.\*)?")


def normalise_torch_spec(text: str) -> str:
    """``"2.4"`` -> ``"==2.4.*"``, ``"2.4.1"`` -> ``"==2.4.1"``, ``">= 2.3, <2.5"`` -> ``">=2.3,<2.5"``.

    Why a bare minor means "any patch": users write the torch *minor* they develop against;
    the resolver then picks the newest patch that has a wheel for the chosen tier. A bare
    major ("2") likewise means ``==2.*``. Clause order is kept (only spaces are removed),
    so the stored string stays recognisable in messages. Local tags (``+cu121``) are
    refused: the tier belongs in ``cuda``, where it is checked against the machine.
    """
    raw = text.strip()
    if not raw:
        raise InvalidValue(_("the torch version is empty"),
                           _("remove the key to let torchenv choose, or write one of {forms}").format(
                               forms=TORCH_SPEC_FORMS))
    if "+" in raw:
        public, _plus, local = raw.partition("+")
        tier_hint = ""
        try:
            tier_hint = f' and cuda = "{normalise_tier(local)}"'
        except InvalidValue:
            pass
        raise InvalidValue(_("torch version {raw} has a local tag (+{local})").format(raw=repr(raw), local=local),
                           _("write {setting}: the CUDA tier is set by `cuda`").format(
                               setting=f'version = "{public.lstrip("=")}"{tier_hint}'))
    bare = _BARE.fullmatch(raw)
    if bare:
        release, star = bare.groups()
        if star or release.count(".") < 2:
            return f"=={release}.*"
        return f"=={release}"
    clauses = [c.strip() for c in raw.split(",")]
    out = []
    for clause in clauses:
        m = _CLAUSE.fullmatch(clause)
        if not m or not _cheap_clause_ok(*m.groups()):
            return _normalise_with_packaging(raw, clauses)
        out.append("".join(g for g in m.groups() if g))
    return ",".join(out)


def _cheap_clause_ok(op: str, release: str, star: str | None) -> bool:
    """The regex fast path accepts only what PEP 440 accepts; everything else goes to packaging."""
    if star and op not in ("==", "!="):
        return False
    return not (op == "~=" and "." not in release)


def _normalise_with_packaging(raw: str, clauses: list[str]) -> str:
    from packaging.specifiers import InvalidSpecifier, Specifier

    if len(clauses) == 1 and clauses[0][:1].isdigit():
        clauses = ["==" + clauses[0]]           # a bare pre/post/dev release: "2.5.0rc1"
    out = []
    for clause in clauses:
        try:
            spec = Specifier(clause)
        except InvalidSpecifier:
            raise InvalidValue(_("{raw} is not a valid version or PEP 440 version specifier").format(raw=repr(raw))
                               + (_(" (bad part: {part})").format(part=repr(clause)) if len(clauses) > 1 else ""),
                               _("write one of {forms}").format(forms=TORCH_SPEC_FORMS)) from None
        if "+" in spec.version:
            raise InvalidValue(_("torch version {raw} has a local tag").format(raw=repr(raw)),
                               _("drop the +tag: the CUDA tier is set by `cuda`"))
        out.append(str(spec))
    return ",".join(out)


def torch_spec(spec: str | None) -> SpecifierSet:
    """The stored ``TorchIntent.version`` as a ``SpecifierSet`` (empty set = any version).

    The resolver filters candidate releases with it (``version in spec`` or
    ``spec.filter(...)``). Pre-releases are excluded explicitly (``prereleases=False``)
    unless the spec itself names one, so "2.4" never picks "2.4.0rc1": newer ``packaging``
    lets ``in`` match pre-releases when left to its default. Accepts unnormalised text too.
    """
    from packaging.specifiers import SpecifierSet

    if spec is None or not spec.strip():
        return SpecifierSet(prereleases=False)
    normal = normalise_torch_spec(spec)
    names_pre = any(re.search(r"\d(a|b|rc|c|alpha|beta|pre|preview|dev)\d*", clause, re.IGNORECASE)
                    for clause in normal.split(","))
    return SpecifierSet(normal, prereleases=names_pre)


# --- CUDA / ROCm tier --------------------------------------------------------------------------

_TIER_NUM = re.compile(r"(\d{2})\.(\d)")
_TIER_CU = re.compile(r"cu(\d{2})(\d)")
_TIER_ROCM = re.compile(r"rocm(\d+)\.(\d+)(?:\.(\d+))?")
_TIER_NEAR = re.compile(r"(?:cu|cuda)[\s_-]*(\d{2})\.?(\d)(?:\.\d+)?")


def normalise_tier(text: str) -> str:
    """``"auto"``, ``"cpu"``, ``"12.1"``/``"cu121"``/``"CU121"`` -> ``"cu121"``, ``"rocm6.2"``.

    Why: PyTorch names its wheel indexes ``cu121``, ``rocm6.2``, ``cpu``, while users think
    "CUDA 12.1"; both spellings land on the index name so the resolver, the lock and the
    source selection compare one form. Idempotent: normalising a normalised tier returns it
    unchanged. Whether a tier exists for a torch release is the knowledge base's business,
    not this function's. Near misses (``cu12.1``, ``cuda12.1``) are refused with the
    spelling to use, rather than guessed, so a typo cannot silently pick another build.
    """
    raw = text.strip()
    low = raw.lower()
    if low in ("auto", "cpu"):
        return low
    m = _TIER_NUM.fullmatch(low) or _TIER_CU.fullmatch(low)
    if m and 10 <= int(m.group(1)) <= 19:
        return f"cu{m.group(1)}{m.group(2)}"
    m = _TIER_ROCM.fullmatch(low)
    if m:
        return "rocm" + ".".join(str(int(g)) for g in m.groups() if g is not None)
    near = _TIER_NEAR.fullmatch(low)
    if near:
        cu = f"cu{near.group(1)}{near.group(2)}"
        raise InvalidValue(_("{raw} is not a tier name").format(raw=repr(raw)),
                           _("write {value}").format(value=f'"{cu}" (or "{near.group(1)}.{near.group(2)}")'))
    if low in ("cuda", "gpu", "nvidia"):
        raise InvalidValue(_("{raw} does not say which CUDA version").format(raw=repr(raw)),
                           _('write "auto" (pick the best tier for this machine\'s driver) or a tier such as "cu121"'))
    if low in ("mps", "metal"):
        raise InvalidValue(_("{raw} is not a wheel tier").format(raw=repr(raw)),
                           _('write "cpu" on macOS: the default wheels include MPS'))
    if low.startswith("rocm"):
        raise InvalidValue(_("{raw} is not a ROCm tier name").format(raw=repr(raw)),
                           _('write it as "rocm<major>.<minor>", e.g. "rocm6.2"'))
    raise InvalidValue(_("{raw} is not a CUDA tier").format(raw=repr(raw)),
                       _("write one of {forms}").format(forms=TIER_FORMS))


# --- Python version --------------------------------------------------------------------------

_PY = re.compile(r"(\d+)\.(\d+)(t?)")
FREE_THREADED_MIN = (3, 13)      # the first CPython with a free-threaded build (PEP 703; torch cp313t wheels)


def normalise_python(text: str) -> str:
    """``"3.11"`` stays ``"3.11"``, free-threaded ``"3.14t"`` stays ``"3.14t"``; refuses ``"3"``, ``"python3.11"``, ``"3.11.4"`` with the form to use.

    Why only X.Y: torch wheels are built per CPython minor, and the patch release is the
    interpreter finder's choice; a wider form would hide which wheels are eligible.
    """
    raw = text.strip()
    low = raw.lower()
    m = _PY.fullmatch(low)
    if m:
        ver = (int(m.group(1)), int(m.group(2)))
        if not PYTHON_MIN <= ver <= PYTHON_MAX:
            raise InvalidValue(_("Python {python} is outside the supported range {first}..{last}").format(
                python=raw, first=f"{PYTHON_MIN[0]}.{PYTHON_MIN[1]}", last=f"{PYTHON_MAX[0]}.{PYTHON_MAX[1]}"),
                _('write a version such as "3.11"'))
        if m.group(3) and ver < FREE_THREADED_MIN:
            raise InvalidValue(_("Python {python} does not exist: free-threaded CPython starts with 3.13").format(
                python=raw), _('write "3.13t" or "3.14t", or drop the "t" for the regular build'))
        return f"{ver[0]}.{ver[1]}{m.group(3)}"
    stripped = re.sub(r"^(?:python|cpython|py|cp)[\s-]*", "", low)
    near = re.fullmatch(r"(\d+)\.(\d+)(?:\.\w+)*", stripped) or re.fullmatch(r"(3)(\d{1,2})", stripped)
    if near:
        return _refuse_python(raw, _("write {value}").format(value=f'"{int(near.group(1))}.{int(near.group(2))}"'))
    return _refuse_python(raw, _('write major and minor, e.g. "3.11"'))


def _refuse_python(raw: str, hint: str) -> str:
    raise InvalidValue(_("{raw} is not a Python version of the form X.Y").format(raw=repr(raw)), hint)


def normalise_companion(text: str) -> str:
    """``"TorchVision"`` -> ``"torchvision"``; only the torch-family companions torchenv pins."""
    name = text.strip().lower().replace("_", "-")
    if name in COMPANIONS:
        return name
    import difflib

    near = difflib.get_close_matches(name, COMPANIONS, n=1)
    hint = _("did you mean {name}? ").format(name=repr(near[0])) if near else ""
    raise InvalidValue(_("{raw} is not a companion torchenv can pin").format(raw=repr(text)),
                       hint + _("valid names: {names} (other packages go in your requirements)").format(
                           names=", ".join(COMPANIONS)))
