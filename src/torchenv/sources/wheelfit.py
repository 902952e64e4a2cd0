"""Does this wheel fit this machine? The one answer, from the wheel's file name.

Why one module: locating a torch file, checking a tier's index page, learning releases from
an index and testing a mirror all ask the same question, and each answering it its own way
made them disagree (a build tag shifting every field of a hand-split name, ``py3-none-any``
fitting no platform, a glibc-2.17 host accepting ``manylinux_2_28`` wheels). The name is
read by ``packaging.utils.parse_wheel_filename`` (PEP 427, build tags and compressed tag
sets included) and the target's tags come from ``packaging.tags``.

The glibc is a parameter: the probed one (``Machine.glibc``) where the target is this
machine, ``None`` where it is unknown (an assumed machine, a lock for another platform,
musl). An unknown glibc accepts ``manylinux`` tags up to ``UNKNOWN_GLIBC_MAX`` -- what
torchenv accepted before it read the glibc -- so such plans behave as they did.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import SourceError
from ..i18n import _

if TYPE_CHECKING:
    from packaging.tags import Tag

UNKNOWN_GLIBC_MAX = (2, 28)      # the newest manylinux floor assumed to fit when the glibc is unknown
_LEGACY_MANYLINUX = {"manylinux2014": (2, 17), "manylinux2010": (2, 12), "manylinux1": (2, 5)}
_LEGACY_ARCHES = {"manylinux2014": ("x86_64", "aarch64", "i686", "ppc64le", "s390x", "armv7l"),
                  "manylinux2010": ("x86_64", "i686"), "manylinux1": ("x86_64", "i686")}
_LINUX_TAG = re.compile(r"^(?:manylinux_(?P<major>\d+)_(?P<minor>\d+)|(?P<legacy>manylinux2014|manylinux2010|"
                        r"manylinux1)|linux)_(?P<arch>[a-z0-9_]+)$")
_LINUX_ARCHES = {"x86_64": "linux-x86_64", "aarch64": "linux-aarch64"}
_OTHER_PLATFORMS = {"win_amd64": ("windows-x86_64",), "win_arm64": ("windows-arm64",)}
_MAC_ARCHES = {"arm64": ("macos-arm64",), "x86_64": ("macos-x86_64",), "universal2": ("macos-arm64", "macos-x86_64")}
_CP = re.compile(r"^cp3(\d{1,2})$")


@dataclass(frozen=True)
class WheelName:
    """A wheel file name, read once (PEP 427)."""

    name: str                    # normalised (PEP 503)
    version: str                 # as packaging normalises it, local tag included ("2.4.1+cu121")
    build: str                   # the optional build tag ("" for none)
    tags: frozenset[Tag]
    variant: str = ""            # a wheel-variant label after the platform ("cu128"; PEP 825 draft), "" for none

    @property
    def public(self) -> str:
        return self.version.partition("+")[0]

    @property
    def local(self) -> str | None:
        return self.version.partition("+")[2] or None


def read(filename: str) -> WheelName:
    """``filename`` read as a wheel name; ``SourceError`` naming the file when it is not one.

    A name PEP 427 rejects is read once more without its last part, as a wheel-variant label
    (``torch-2.9.1-cp312-cp312-manylinux_2_28_x86_64-cu128.whl``), which packaging does not know yet.
    """
    from packaging.utils import InvalidWheelFilename, parse_wheel_filename

    try:
        name, version, build, tags = parse_wheel_filename(filename)
        variant = ""
    except InvalidWheelFilename as exc:
        stem, _dash, variant = filename.removesuffix(".whl").rpartition("-")
        try:
            if stem.count("-") < 4:
                raise exc
            name, version, build, tags = parse_wheel_filename(f"{stem}.whl")
        except InvalidWheelFilename:
            raise SourceError(_("not a valid wheel file name: {filename} ({error})").format(
                filename=filename, error=exc),
                hint=_("wheel names look like NAME-VERSION-PYTAG-ABITAG-PLATFORM.whl")) from None
    return WheelName(str(name), str(version), "".join(map(str, build)), frozenset(tags), variant)


def read_or_none(filename: str) -> WheelName | None:
    """``filename`` as a wheel name, or None for anything else (a listing also holds sdists and junk)."""
    if not filename.endswith(".whl"):
        return None
    try:
        return read(filename)
    except SourceError:
        return None


def _glibc_tuple(glibc: str | None) -> tuple[int, int] | None:
    try:
        major, minor = (int(x) for x in (glibc or "").split(".")[:2])
    except ValueError:
        return None
    return major, minor


def manylinux_floor(plat_tag: str) -> str | None:
    """The glibc a ``manylinux`` platform tag needs ("2.28"); None for other tags."""
    m = _LINUX_TAG.match(plat_tag)
    if m is None or not (m.group("major") or m.group("legacy")):
        return None
    if m.group("legacy"):
        major, minor = _LEGACY_MANYLINUX[m.group("legacy")]
        return f"{major}.{minor}"
    return f"{m.group('major')}.{m.group('minor')}"


def platforms_of(plat_tag: str) -> tuple[str, ...]:
    """The torchenv platforms (``linux-x86_64``) a platform tag is built for; () for ``any`` and unknown ones."""
    m = _LINUX_TAG.match(plat_tag)
    if m is not None:
        found = _LINUX_ARCHES.get(m.group("arch"))
        return (found,) if found else ()
    if plat_tag.startswith("macosx_"):
        return _MAC_ARCHES.get(plat_tag.split("_", 3)[-1], ())
    return _OTHER_PLATFORMS.get(plat_tag, ())


def platform_fits(plat_tag: str, platform: str, glibc: str | None = None) -> bool:
    """Can a wheel of platform tag ``plat_tag`` run on ``platform`` with ``glibc``?

    ``glibc=None`` checks the platform only (what an index holds for ``linux-x86_64``, whatever the glibc):
    a yes/no question needs no enumeration, unlike ``target_tags``, which lists an unknown glibc's tags.
    """
    if plat_tag == "any":
        return True
    if platform not in platforms_of(plat_tag):
        return False
    floor, have = _glibc_tuple(manylinux_floor(plat_tag)), _glibc_tuple(glibc)
    return floor is None or have is None or floor <= have


def python_of(tag: Tag) -> str | None:
    """The CPython minor a ``cp3XY`` tag is built for ("3.12", "3.14t" for a free-threaded ABI); None otherwise."""
    m = _CP.match(tag.interpreter)
    if not m:
        return None
    return f"3.{m.group(1)}" + ("t" if tag.abi.endswith("t") else "")


def _manylinux_platforms(arch: str, glibc: str | None) -> list[str]:
    """``manylinux`` platform tags for ``arch`` on ``glibc``, newest floor first (legacy aliases at their floor)."""
    major, top = _glibc_tuple(glibc) or UNKNOWN_GLIBC_MAX
    if major != 2:
        major, top = UNKNOWN_GLIBC_MAX
    legacy = {minor: name for name, (_m, minor) in _LEGACY_MANYLINUX.items() if arch in _LEGACY_ARCHES[name]}
    out: list[str] = []
    for minor in range(top, 4, -1):
        out.append(f"manylinux_2_{minor}_{arch}")
        if minor in legacy:
            out.append(f"{legacy[minor]}_{arch}")
    return out


def target_tags(python: str, platform: str, glibc: str | None = None) -> list[Tag]:
    """Wheel tags an interpreter of ``python`` on ``platform`` (with ``glibc``, None: unknown) accepts, best first."""
    from packaging import tags

    free_threaded = python.endswith("t")          # "3.14t": the cp314t ABI, no abi3 (PEP 703)
    major, minor = (int(x) for x in python.rstrip("t").split(".")[:2])
    abis = [f"cp{major}{minor}t"] if free_threaded else None
    os_name, _sep, arch = platform.partition("-")
    if os_name == "linux":
        arch = "aarch64" if arch in ("arm64", "aarch64") else arch
        plats = [*_manylinux_platforms(arch, glibc), f"linux_{arch}"]
    elif os_name == "windows":
        plats = ["win_arm64"] if arch in ("arm64", "aarch64") else ["win_amd64"]
    elif os_name == "macos":
        mac_arch = "arm64" if arch in ("arm64", "aarch64") else "x86_64"
        plats = list(tags.mac_platforms((14, 0), mac_arch))
    else:
        raise SourceError(f"unknown platform {platform}", hint="platforms look like linux-x86_64")
    found = [*tags.cpython_tags((major, minor), abis=abis, platforms=plats),
             *tags.compatible_tags((major, minor), f"cp{major}{minor}", plats)]
    return [t for t in found if not (free_threaded and t.abi == "abi3")]


def target_glibc(machine: Any, platform: str) -> str | None:
    """The glibc that applies to ``platform``: this machine's where the target is this machine, else unknown."""
    if machine is None or getattr(machine, "platform_key", None) != platform:
        return None
    glibc: str | None = getattr(machine, "glibc", None)
    return glibc


def tag_fits(tag: Tag, *, python: str | None = None, platform: str | None = None, glibc: str | None = None) -> bool:
    """Does one tag fit a target given loosely (either part may be unknown)? For listings checked without a full
    interpreter in mind (a mirror test, an index page): the interpreter is matched, not the whole ABI set."""
    if python:
        cp = "cp" + python.rstrip("t").replace(".", "")
        if tag.interpreter != cp and not tag.interpreter.startswith("py3"):
            return False
    return not platform or platform_fits(tag.platform, platform, glibc)
