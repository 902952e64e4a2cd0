"""The few knowledge-base facts doctor needs, asked of ``torchenv.kb`` first.

Why an adapter: ``torchenv.kb`` is the owner of these facts (recipes TOML with sources). Doctor must
still work while kb is being written or when a query is missing, so each function falls back to a
small table transcribed from /work/shared/reference/compat.md (section named at each table), or
to reading ``recipes/releases.toml`` directly. Delete a fallback once kb answers the same question.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable


def _kb(name: str) -> Callable[..., Any] | None:
    try:
        from .. import kb  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - kb missing or broken: use the fallback
        return None
    return getattr(kb, name, None)


def _ask(name: str, *args: Any, **kwargs: Any) -> Any:
    fn = _kb(name)
    if fn is None:
        return None
    try:
        return fn(*args, **kwargs)
    except Exception:  # noqa: BLE001 - a kb gap is not doctor's failure
        return None


def _vt(v: str) -> tuple[int, ...]:
    out = []
    for part in v.split("+")[0].split("."):
        digits = "".join(c for c in part if c.isdigit())
        out.append(int(digits or 0))
    return tuple(out)


def minor_of(version: str) -> str:
    return ".".join(version.split("+")[0].split(".")[:2])


# -- driver floors (compat.md §3c: NVIDIA minor-version compatibility) ----------------------------
_FLOORS = {"10": ("440.33", "441.22"), "11": ("450.80.02", "452.39"),
           "12": ("525.60.13", "527.41"), "13": ("580.65.06", "580.00")}


def driver_floor(tier: str, os_name: str = "linux") -> str | None:
    """Lowest driver that runs a ``cuXYZ`` build (None for cpu/rocm or unknown tiers)."""
    got = _ask("driver_floor", tier, os=os_name)
    if isinstance(got, str):
        return got
    if not tier.startswith("cu") or len(tier) < 4:
        return None
    major = tier[2:-1]
    row = _FLOORS.get(major)
    return None if row is None else row[1 if os_name == "windows" else 0]


def driver_ok(driver: str, floor: str) -> bool:
    return _vt(driver) >= _vt(floor)


def tier_cuda(tier: str) -> str | None:
    """``cu128`` -> ``12.8``."""
    if not tier.startswith("cu") or not tier[2:].isdigit():
        return None
    return f"{tier[2:-1]}.{tier[-1]}"


# -- compiled archs per release x tier (compat.md §2a/§2b, Linux x86_64) ----------------------------
def _archs_fallback(version: str, tier: str) -> tuple[str, ...]:
    v = _vt(minor_of(version))

    def sm(*ccs: int) -> tuple[str, ...]:
        return tuple(f"sm_{c}" for c in ccs)

    if tier == "cu102":
        return sm(37, 50, 60, 70)
    if tier in ("cu111", "cu113", "cu115", "cu116", "cu117"):
        return sm(37, 50, 60, 70, 75, 80, 86)
    if tier == "cu118":
        return sm(37, 50, 60, 70, 75, 80, 86, 90)
    if tier in ("cu121", "cu124", "cu126"):
        return sm(50, 60, 70, 75, 80, 86, 90)
    if tier == "cu128":
        if v < (2, 8):
            return sm(75, 80, 86, 90, 100, 120) + ("compute_120",)
        return sm(70, 75, 80, 86, 90, 100, 120) if v < (2, 11) else sm(75, 80, 86, 90, 100, 120)
    if tier == "cu129":
        return (sm(70, 75, 80, 86, 90, 100, 120) if v < (2, 11) else sm(75, 80, 86, 90, 100, 120)) + ("compute_120",)
    if tier in ("cu130", "cu132"):
        return sm(75, 80, 86, 90, 100, 120)
    return ()


def compiled_archs(version: str, tier: str, platform: str = "linux-x86_64") -> tuple[str, ...]:
    got = _ask("compiled_archs", minor_of(version), tier, platform=platform)
    if got:
        return tuple(got)
    return _archs_fallback(version, tier) if platform == "linux-x86_64" else ()


# -- GPUs by compute capability (compat.md §4) ---------------------------------------------------
_FAMILY = {5: "Maxwell", 6: "Pascal", 7: "Volta", 8: "Ampere", 9: "Hopper", 10: "Blackwell",
           11: "Blackwell (Thor)", 12: "Blackwell"}
_EXAMPLES = {
    "5.0": "GTX 750/750 Ti", "5.2": "GTX 9xx, Tesla M40/M60", "5.3": "Jetson Nano",
    "6.0": "Tesla P100", "6.1": "GTX 10xx (1080 Ti/1080/1070/1060/1050), TITAN Xp, Tesla P40/P4",
    "7.0": "V100, TITAN V", "7.2": "Jetson Xavier", "7.5": "T4, RTX 20xx, GTX 16xx",
    "8.0": "A100, A30", "8.6": "RTX 30xx, A40, A10, RTX A6000", "8.7": "Jetson Orin",
    "8.9": "RTX 40xx, L4, L40S", "9.0": "H100, H200, GH200", "10.0": "B200, GB200",
    "10.3": "B300, GB300", "11.0": "Jetson Thor", "12.0": "RTX 50xx, RTX PRO Blackwell", "12.1": "GB10",
}


def gpu_label(cc: str) -> str:
    """``6.1`` -> ``sm_61, Pascal: GTX 10xx (...)`` so the user recognises their card."""
    got = _ask("gpu_label", cc)
    if isinstance(got, str):
        return got
    major, _, minor = cc.partition(".")
    family = {("7", "5"): "Turing", ("8", "9"): "Ada Lovelace"}.get((major, minor)) or \
        _FAMILY.get(int(major) if major.isdigit() else -1, "unknown family")
    examples = _EXAMPLES.get(cc)
    return f"sm_{major}{minor or 0}, {family}" + (f": {examples}" if examples else "")


# -- releases, tiers and companion pins (recipes/releases.toml, compat.md §1a/§1b) ----------------
@lru_cache(maxsize=1)
def _series() -> tuple[dict[str, Any], ...]:
    from importlib import resources

    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]

    try:
        text = (resources.files("torchenv.recipes") / "releases.toml").read_text()
        return tuple(tomllib.loads(text).get("series", ()))
    except (OSError, ValueError, ModuleNotFoundError):
        return ()


def _entry(version: str) -> tuple[dict[str, Any], int] | None:
    public = version.split("+")[0]
    for s in _series():
        if public in s.get("patches", ()):
            return s, list(s["patches"]).index(public)
    return None


def companion_version(torch_version: str, name: str) -> str | None:
    """The exact companion release paired with a torch release (``2.13.0`` -> torchvision ``0.28.0``)."""
    got = _ask("companion_version", torch_version.split("+")[0], name)
    if isinstance(got, str):
        return got
    hit = _entry(torch_version)
    if hit is None:
        return None
    s, i = hit
    values = s.get(name) or ()
    val = values[i] if i < len(values) else None
    if val == "stable-abi":
        return "2.11.1"
    return val


def torch_for_companion(name: str, version: str) -> str | None:
    """Which torch a torchvision/torchaudio release was built for (reverse of the pin table)."""
    public = version.split("+")[0]
    for s in _series():
        for i, v in enumerate(s.get(name) or ()):
            if v == public:
                return s["patches"][i]
    return None


def tiers_for(torch_version: str, platform: str = "linux-x86_64") -> tuple[str, ...]:
    """Tiers with wheels for that release on that platform, newest CUDA first."""
    got = _ask("tiers", torch_version.split("+")[0], platform)
    if got:
        return tuple(got)
    hit = _entry(torch_version)
    return tuple(hit[0].get("platforms", {}).get(platform, ())) if hit else ()


def releases() -> list[str]:
    """Every known torch release, newest first."""
    return sorted({p for s in _series() for p in s.get("patches", ())}, key=_vt, reverse=True)


def latest_torch() -> str | None:
    known = releases()
    return known[0] if known else None


def pypi_default(torch_version: str, platform: str = "linux-x86_64") -> str | None:
    """The tier `pip install torch==X` gets from PyPI on that platform (compat.md §6c)."""
    got = _ask("pypi_default", torch_version.split("+")[0], platform)
    if isinstance(got, str):
        return got
    hit = _entry(torch_version)
    return hit[0].get("pypi_default", {}).get(platform) if hit else None
