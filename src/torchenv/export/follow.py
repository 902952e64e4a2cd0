"""The way in: a project with no torchenv.toml but a ``pylock.toml`` or ``uv.lock`` that pins torch.

Why: such a project has already said which torch it runs (``torch==2.4.1+cu121`` from the cu121
index); ``torchenv up`` should build that, not a default, and say which file it followed. Only the
torch pin, its tier (local tag or index URL), its companions and the Python are taken over; the
lock files themselves are read, never changed.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..i18n import _
from ..reasons import PROJECT, reason

if TYPE_CHECKING:
    from ..intent.model import Intent

COMPANIONS = ("torchvision", "torchaudio")
_PY_EXACT = re.compile(r"^\s*(?:==|~=|>=)\s*(\d+\.\d+)(?:\.\*)?\s*(?:,.*)?$")


@dataclass(frozen=True)
class Followed:
    file: str                     # "pylock.toml"
    torch: str                    # "2.4.1+cu121"
    tier: str | None              # "cu121"; None: not stated (the resolver picks)
    python: str | None
    with_: tuple[str, ...] = ()

    def sentence(self) -> str:
        tier = _(", tier {tier}").format(tier=self.tier) if self.tier else ""
        py = _(", Python {python}").format(python=self.python) if self.python else ""
        return _("following {file} (no torchenv.toml): torch {torch}{tier}{python}").format(
            file=self.file, torch=self.torch, tier=tier, python=py)


def _tier(version: str, index: str | None) -> str | None:
    from ..intent.evidence.readers.specs import tier_from_url
    from ..intent.versions import normalise_tier

    local = version.partition("+")[2]
    if local:
        return normalise_tier(local)
    return tier_from_url(index) if index else None


def _python(requires: str | None, filenames: list[str]) -> str | None:
    match = _PY_EXACT.match(requires or "")
    if match:
        return match.group(1)
    tags = {m.group(1) for f in filenames for m in [re.search(r"-cp3(\d+)-", f)] if m}
    return f"3.{tags.pop()}" if len(tags) == 1 else None


def _one(path: Path, packages: list[dict[str, Any]], name: str) -> dict[str, Any] | None:
    """The lock's entry for ``name`` on this machine. A multi-platform lock holds several (``2.7.0`` from PyPI
    for macOS, ``2.7.0+cu128`` for Linux): the one whose ``resolution-markers`` hold here is taken; only
    entries of different public versions that no marker tells apart are refused."""
    from ..errors import LockError

    found = [p for p in packages if p.get("name") == name]
    if len(found) <= 1:
        return found[0] if found else None
    here = [p for p in found if _holds_here(p.get("resolution-markers"))]
    if len(here) == 1:
        return here[0]
    versions = sorted({str(p.get("version")) for p in here or found})
    if len({v.partition("+")[0] for v in versions}) == 1:      # one release, builds per platform: the GPU one
        import sys  # off macOS, PyPI's (untagged) one on it

        tagged = sorted(here or found, key=lambda p: ("+" in str(p.get("version"))) == (sys.platform == "darwin"))
        return tagged[0]
    raise LockError(f"{path}: pins {name} at several versions ({', '.join(versions)}); torchenv follows one",
                    hint="write a torchenv.toml for this project (`torchenv init`) to choose")


def _holds_here(markers: Any) -> bool:
    """Does any of an entry's resolution markers hold on this machine (no markers: it serves every one)?"""
    from packaging.markers import InvalidMarker, Marker

    items = [m for m in markers if isinstance(m, str)] if isinstance(markers, list) else []
    if not items:
        return True
    for text in items:
        try:
            if Marker(text).evaluate():
                return True
        except (InvalidMarker, ValueError):
            return True
    return False


def _from_pylock(path: Path, data: dict[str, Any]) -> Followed | None:
    packages = data.get("packages") or []
    torch = _one(path, packages, "torch")
    if torch is None or not torch.get("version"):
        return None
    names = [w.get("name") or str(w.get("url", "")).rsplit("/", 1)[-1] for w in torch.get("wheels") or []]
    return Followed(path.name, str(torch["version"]), _tier(str(torch["version"]), torch.get("index")),
                    _python(data.get("requires-python"), names),
                    tuple(c for c in COMPANIONS if _one(path, packages, c)))


def _from_uv_lock(path: Path, data: dict[str, Any]) -> Followed | None:
    packages = data.get("package") or []
    torch = _one(path, packages, "torch")
    if torch is None or not torch.get("version"):
        return None
    source = torch.get("source") or {}
    names = [str(w.get("url") or w.get("path") or "").rsplit("/", 1)[-1] for w in torch.get("wheels") or []]
    return Followed(path.name, str(torch["version"]), _tier(str(torch["version"]), source.get("registry")),
                    _python(data.get("requires-python"), names),
                    tuple(c for c in COMPANIONS if _one(path, packages, c)))


READERS = (("pylock.toml", _from_pylock), ("uv.lock", _from_uv_lock))


def find_followed(project: Path) -> Followed | None:
    """The first of pylock.toml, uv.lock in ``project`` that pins torch; a broken file is an error naming it."""
    from ..errors import LockError
    from ..fileio import tomllib_module

    tomllib = tomllib_module()
    for name, reader in READERS:
        path = project / name
        if not path.is_file():
            continue
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise LockError(f"{path}: not valid TOML: {exc}",
                            hint="fix or remove it, or write a torchenv.toml (`torchenv init`)") from None
        found = reader(path, data)
        if found is not None:
            return found
    return None


def follow_existing_lock(intent: Intent, project: Path) -> tuple[Intent, Followed | None]:
    """``intent`` with the torch pin of pylock.toml/uv.lock, when the project has no torchenv.toml."""
    if intent.file is not None:
        return intent, None
    found = find_followed(project)
    if found is None:
        return intent, None
    torch = replace(intent.torch, version="==" + found.torch.partition("+")[0], cuda=found.tier or intent.torch.cuda,
                    python=found.python or intent.torch.python, with_=found.with_ or intent.torch.with_)
    keys = ["torch.version"] + (["torch.cuda"] if found.tier else []) + (["torch.python"] if found.python else [])
    return replace(intent, torch=torch).set_by(
        reason("who.project_followed", PROJECT, file=str(found.file)), *keys), found
