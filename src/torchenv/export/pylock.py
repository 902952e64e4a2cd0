"""PEP 751 ``pylock.toml`` from one lock target: what ``uv pip install -r pylock.toml`` reads.

Why PEP 751: it is the lock format installers share; a pylock needs no resolver (every file is
named with its hash), so a teammate's uv installs the same bytes ``torchenv up`` installed. The
result is checked with ``packaging.pylock`` before it is written.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import tomltext
from .base import environment_marker, local_file, relative_to_output

if TYPE_CHECKING:
    from ..lockfile.model import LockedWheel
    from .base import ExportRequest


def _wheel_entry(request: ExportRequest, wheel: LockedWheel) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": wheel.filename, "url": wheel.url}
    found = local_file(request, wheel)
    if found is not None:                      # installers read the file; url stays for provenance
        entry["path"] = relative_to_output(request, found)
    if wheel.size:
        entry["size"] = wheel.size
    entry["hashes"] = {"sha256": wheel.sha256}
    return entry


def pylock_document(request: ExportRequest) -> dict[str, Any]:
    target = request.target
    return {
        "lock-version": "1.0",
        "environments": [environment_marker(target)],
        "requires-python": f"=={target.python}.*",
        "created-by": "torchenv",
        "packages": [{"name": w.name, "version": w.version, "index": w.index.rstrip("/"),
                      "wheels": [_wheel_entry(request, w)]} for w in target.wheels],
        "tool": {"torchenv": {"target": target.name, "tier": target.tier, "torch": target.torch}},
    }


def _text(request: ExportRequest, doc: dict[str, Any]) -> str:
    top = {k: v for k, v in doc.items() if k not in ("packages", "tool")}
    lines = [request.header("pylock").rstrip("\n"), *tomltext.pairs(top), ""]
    for pkg in doc["packages"]:
        lines += ["[[packages]]", *tomltext.pairs({k: v for k, v in pkg.items() if k != "wheels"}),
                  f"wheels = {tomltext.multiline_list(pkg['wheels'])}", ""]
    lines += ["[tool.torchenv]", *tomltext.pairs(doc["tool"]["torchenv"])]
    return "\n".join(lines) + "\n"


def validate(text: str, where: str) -> None:
    """Parse what we wrote back with ``packaging.pylock``; a failure is a bug here, reported plainly."""
    from packaging.pylock import Pylock, PylockValidationError

    from ..errors import LockError
    from ..fileio import tomllib_module

    try:
        Pylock.from_dict(tomllib_module().loads(text))
    except PylockValidationError as exc:
        raise LockError(f"{where}: the pylock.toml torchenv generated is not valid PEP 751: {exc}",
                        hint="report this; meanwhile use `torchenv export requirements`") from None


def render(request: ExportRequest) -> str:
    from ..errors import LockError

    if request.target.backend == "conda" and not request.target.wheels:
        raise LockError(f"{request.lock_path}: target {request.target.name} is a conda env with no wheels; "
                        "pylock.toml holds Python wheels only", hint="use `torchenv export conda-env` or `explicit`")
    text = _text(request, pylock_document(request))
    validate(text, str(request.lock_path))
    return text
