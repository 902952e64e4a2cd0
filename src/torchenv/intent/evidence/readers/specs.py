"""The small grammar every reader shares: a torch requirement, an index URL's tier, Poetry and conda specs.

Why one place: ``torch==2.4.1+cu121`` means the same in a requirements file, a README command
and a lock, so it is split into (version spec, tier) once.
"""
from __future__ import annotations

import re

from ... import versions
from ..model import ANY, Record, said

TORCH_FAMILY = ("torch", "torchvision", "torchaudio")
COMPANIONS = ("torchvision", "torchaudio")
CONDA_NAMES = {"pytorch": "torch", "pytorch-gpu": "torch", "pytorch-cpu": "torch", "torchvision": "torchvision",
               "torchaudio": "torchaudio"}
CONDA_CUDA = ("cudatoolkit", "pytorch-cuda", "cuda-toolkit", "cuda-version", "cuda")
_TIER_SEGMENT = re.compile(r"cpu|cu\d{3}|rocm\d+\.\d+(?:\.\d+)?", re.IGNORECASE)


def tier_from_url(url: str) -> str | None:
    """``https://download.pytorch.org/whl/cu121`` (or a mirror of it) -> ``"cu121"``; else None."""
    for segment in reversed([s for s in url.split("?")[0].split("/") if s]):
        if _TIER_SEGMENT.fullmatch(segment):
            return versions.normalise_tier(segment)
    return None


def tier_or_none(text: str) -> str | None:
    try:
        return versions.normalise_tier(text) if text else None
    except versions.InvalidValue:
        return None


def is_exact(spec: str) -> bool:
    return spec.startswith("==") and "," not in spec and "*" not in spec


def split_requirement(text: str) -> tuple[str, str | None, str | None, str | None] | None:
    """``torch==2.4.1+cu121; sys_platform=='linux'`` -> ("torch", "==2.4.1", "cu121", marker); None: not one."""
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        req = Requirement(text)
    except InvalidRequirement:
        return None
    name = req.name.lower().replace("_", "-")
    marker = str(req.marker) if req.marker else None
    if req.url:
        return (name, *_spec_from_url(req.url), marker)
    tier, clauses = None, []
    for spec in req.specifier:
        version = spec.version
        if "+" in version:
            version, _, local = version.partition("+")
            tier = tier or tier_or_none(local)
        clauses.append(f"{spec.operator}{version}")
    return name, normal_spec(",".join(clauses)), tier, marker


def normal_spec(text: str) -> str | None:
    if not text:
        return None
    try:
        return versions.normalise_torch_spec(text)
    except versions.InvalidValue:
        return None


def _spec_from_url(url: str) -> tuple[str | None, str | None]:
    from urllib.parse import unquote

    filename = unquote(url.split("?")[0].rsplit("/", 1)[-1])
    m = re.match(r"torch-([^-]+)-", filename)
    tier = tier_from_url(url)
    if not m:
        return None, tier
    public, _, local = m.group(1).partition("+")
    return f"=={public}", tier_or_none(local) or tier


def requirement_records(text: str, file: str, line: int | None, kind: str, seen: str | None = None,
                        target: str = ANY) -> list[Record]:
    """The records of one requirement: torch's version and tier, or a companion. ``kind`` is what an exact
    pin counts as here (a range is always "range"; a local tag in a "pin" file is a "tag")."""
    parts = split_requirement(text)
    if parts is None or parts[0] not in TORCH_FAMILY:
        return []
    name, spec, tier, marker = parts
    seen = seen or text
    target = marker_target(marker) or target
    if name != "torch":
        return [Record(file, line, "with", name, kind if kind != "pin" else "pin", seen, target)]
    out = []
    if spec:
        out.append(Record(file, line, "version", spec, kind if is_exact(spec) else "range", seen, target))
    if tier:
        out.append(Record(file, line, "cuda", tier, "tag" if kind == "pin" else kind, seen, target))
    return out


def marker_target(marker: str | None) -> str | None:
    """The OS a marker limits a requirement to (``sys_platform == "darwin"`` -> "macos"), when it says one."""
    if not marker:
        return None
    m = re.search(r"(?:sys_platform|platform_system)\s*==\s*['\"](\w+)['\"]", marker)
    if not m:
        return None
    return {"linux": "linux", "darwin": "macos", "win32": "windows", "windows": "windows"}.get(m.group(1).lower())


def poetry_to_pep440(text: str) -> tuple[str | None, str | None]:
    """Poetry constraint -> (PEP 440 spec, tier of a local tag): ``^2.0.0+cu118`` -> (">=2.0.0,<3.0.0", "cu118"),
    ``~2.1`` -> ">=2.1,<2.2", ``2.0.1+cu118`` -> "==2.0.1", ``*`` -> None."""
    text = text.strip()
    tier = None
    m = re.search(r"\+([A-Za-z0-9.]+)", text)
    if m:
        tier = tier_or_none(m.group(1))
        text = text[:m.start()] + text[m.end():]
    if text in ("", "*"):
        return None, tier
    m = re.fullmatch(r"([\^~])\s*(\d+(?:\.\d+)*)", text)
    if not m:
        if re.fullmatch(r"\d+(?:\.\d+)*(?:\.\*)?", text):
            return f"=={text}", tier
        return text, tier
    op, release = m.groups()
    parts = [int(p) for p in release.split(".")]
    if op == "^":                                    # bump the first non-zero component
        idx = next((i for i, p in enumerate(parts) if p != 0), len(parts) - 1)
    else:                                            # ~: bump the minor (the major if only one)
        idx = min(1, len(parts) - 1)
    upper = parts[:idx + 1]
    upper[-1] += 1
    upper += [0] * (len(parts) - len(upper))
    return f">={release},<{'.'.join(str(p) for p in upper)}", tier


def conda_spec(rest: str) -> str:
    """conda ``=1.11.0=py3.8_cuda11.3_0`` -> ``==1.11.0``, ``=1.11`` -> ``==1.11.*``, ``>=1.8`` kept, ``>=1.8,<2``
    kept (a range is intent too)."""
    rest = rest.strip().replace(" ", "")
    if not rest:
        return ""
    if rest.startswith("=="):
        return "==" + rest[2:].split("=", 1)[0]
    if rest[0] in "<>!~":
        return rest.split("=py", 1)[0]
    version = rest.lstrip("=").split("=", 1)[0].rstrip("*").rstrip(".")
    return f"=={version}" if version.count(".") >= 2 else f"=={version}.*"


def conda_records(spec: str, file: str, line: int | None, kind: str, target: str = ANY) -> list[Record] | None:
    """Records of one conda match spec (``pytorch>=1.13``, ``python=3.9``, ``pytorch-cuda=12.1``, ``cpuonly``);
    None when the spec is no concern of torchenv's."""
    m = re.match(r"\s*(?:[\w.-]+::)?([A-Za-z0-9_.-]+)\s*(.*)", spec)
    if not m:
        return None
    name, rest = m.group(1).lower(), m.group(2).strip().strip("\"'")
    version = conda_spec(rest)
    if name == "python":
        return python_records(version, file, line, kind, spec, target)
    if name in CONDA_CUDA:
        release = re.match(r"[=<>~!]*\s*(\d+(?:\.\d+)?)", rest)
        tier = tier_or_none(release.group(1)) if release else None
        return [Record(file, line, "cuda", tier, kind, spec, target)] if tier else []
    if name == "cpuonly":
        return [Record(file, line, "cuda", "cpu", kind, spec, target)]
    if name in CONDA_NAMES:
        out = requirement_records(CONDA_NAMES[name] + version, file, line, kind, spec, target)
        if name == "pytorch-cpu":
            out.append(Record(file, line, "cuda", "cpu", kind, spec, target))
        return out
    return [] if name in ("pip", "python_abi", "pytorch-mutex") else None


def python_records(spec: str, file: str, line: int | None, kind: str, seen: str, target: str = ANY) -> list[Record]:
    """``==3.9.*``/``3.9``/``==3.9.7`` -> an exact "3.9"; ``>=3.8`` -> a range record (it bounds the choice)."""
    spec = spec.strip()
    m = re.fullmatch(r"(?:==|=)?\s*(3\.\d+)(?:\.\d+)?(?:\.\*)?", spec)
    if m:
        try:
            return [Record(file, line, "python", versions.normalise_python(m.group(1)), kind, seen, target)]
        except versions.InvalidValue:
            return []
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        SpecifierSet(spec)
    except InvalidSpecifier:
        return []
    return [Record(file, line, "python", spec, "range", seen, target)] if spec else []


def extra_records(group: str, deps: list[str], file: str, target: str) -> list[Record]:
    """An optional extra's records. Its companions count only when the extra installs torch too (the torch
    route); an extra naming only ``torchaudio`` serves one model's feature, not the stack."""
    out = [r for dep in deps for r in requirement_records(dep, file, None, "pin", target=target)]
    names = {parts[0] for d in deps if (parts := split_requirement(d))}
    if "torch" in names:
        return out
    return [Record(r.file, r.line, r.field, r.value, "ignored", r.seen, r.target,
                   why=said("init.extra_no_torch", group=repr(group))) for r in out]
