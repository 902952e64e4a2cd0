"""Channel names, canonical URLs, conda subdirs and the mirror map, as conda users write them.

Why: the lock must record canonical URLs (``https://conda.anaconda.org/conda-forge/...``)
whichever mirror served the bytes, and ``[conda] channels`` accepts names, URLs and local
directories. Everything that turns one of those into another lives here.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..i18n import _

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

CHANNEL_ALIAS = "https://conda.anaconda.org"

# torchenv platform key (Machine.platform_key) -> conda subdir
_SUBDIRS = {
    "linux-x86_64": "linux-64",
    "linux-aarch64": "linux-aarch64",
    "linux-ppc64le": "linux-ppc64le",
    "macos-arm64": "osx-arm64",
    "macos-x86_64": "osx-64",
    "windows-x86_64": "win-64",
    "windows-arm64": "win-arm64",
}


def conda_subdir(platform_key: str) -> str:
    """``linux-x86_64`` -> ``linux-64``; raises ``BackendError`` for a platform conda has no subdir for."""
    try:
        return _SUBDIRS[platform_key]
    except KeyError:
        from ..errors import BackendError

        raise BackendError(_("conda has no package subdir for platform {platform_key}").format(
                               platform_key=platform_key),
                           hint=_('use [env] backend = "venv" on this platform')) from None


def channel_url(channel: str) -> str:
    """Canonical base URL of a channel, no trailing slash: a name, a URL or a local directory."""
    channel = channel.strip()
    if "://" in channel:
        return channel.rstrip("/")
    if channel.startswith(("/", "./", "../", "~")) or Path(channel).is_absolute():
        return Path(channel).expanduser().resolve().as_uri()
    return f"{CHANNEL_ALIAS}/{channel.strip('/')}"


def channel_name(url: str) -> str:
    """What conda-lock and humans call a channel: ``conda-forge`` for the anaconda.org URL."""
    prefix = CHANNEL_ALIAS + "/"
    return url[len(prefix):] if url.startswith(prefix) else url


def normalise_mirrors(mirrors: Mapping[str, Sequence[str]] | None) -> dict[str, list[str]]:
    """The mirror map with every key and URL ending in ``/``, which rattler's prefix matching needs."""
    out: dict[str, list[str]] = {}
    for prefix, urls in (mirrors or {}).items():
        out[channel_url(prefix).rstrip("/") + "/"] = [u.rstrip("/") + "/" for u in urls]
    return out


def canonical_url(url: str, mirrors: Mapping[str, Sequence[str]] | None) -> str:
    """Map a URL a mirror served back to the channel's own URL (longest mirror prefix wins).

    Why: rattler keeps canonical URLs itself, but a user's conda (``channel_alias``,
    ``custom_channels``) reports the mirror's; the lock must not depend on which one served.
    """
    best: tuple[int, str, str] | None = None
    for canonical, urls in normalise_mirrors(mirrors).items():
        for mirror in urls:
            if url.startswith(mirror) and (best is None or len(mirror) > best[0]):
                best = (len(mirror), mirror, canonical)
    return url if best is None else best[2] + url[best[0]:]
