"""Env-local package-source config, so later installs *inside* the env use the same mirrors.

Why env-local: ``pip install x`` run later in the venv (or ``conda install`` in the prefix)
should reach the mirror torchenv chose without torchenv touching the user's global
``pip.conf`` / ``~/.condarc``. pip reads ``<sys.prefix>/pip.conf`` ("site" config, which
wins over the user's file); conda reads ``<prefix>/.condarc``.

The torch index is deliberately NOT written to pip.conf: a later ``pip install foo`` must
not resolve ordinary packages against download.pytorch.org, and torch-family upgrades
should go through ``torchenv up``, which keeps tiers consistent.
"""
from __future__ import annotations

import sys
from pathlib import Path

from .model import OFFICIAL_PYPI, PypiSide, Sources

_HEADER = "# Written by torchenv for this environment; edit torchenv.toml [mirror] and re-run `torchenv up`.\n"


def _atomic_write(path: Path, text: str) -> Path:
    """Mode from the umask: whoever may use the env must read its pip.conf (it holds no logins)."""
    from ..fileio import write_atomic

    return write_atomic(path, text)


def pip_conf_text(sources: Sources) -> str:
    """Every PyPI-side key is written, empty when unset, in ``[global]`` and ``[install]``.

    Why both, and why empty keys: pip merges config files per ``section.key`` (the env's
    "site" file wins only for keys it sets) and ``[install]`` beats ``[global]``. A user's
    ``extra-index-url = https://download.pytorch.org/whl/cu121`` (common advice in China)
    would otherwise stay in effect inside the env; an empty value clears it.
    """
    side = sources.pypi
    for url in (side.index_url, *side.extra_index_urls, *side.find_links):
        _one_ini_value(url or "")

    def key(name: str, values: tuple[str, ...]) -> str:
        return f"{name} =\n" + "".join(f"    {u}\n" for u in values)

    body = (f"index-url = {side.index_url or OFFICIAL_PYPI}\n"
            + key("extra-index-url", side.extra_index_urls) + key("find-links", side.find_links))
    return "".join([_HEADER, "# torch-family packages come from the torch sources of the plan, not from here.\n",
                    _login_note(side), "[global]\n", body, "\n[install]\n", body])


def _one_ini_value(url: str) -> None:
    """A URL with a newline (any control character) would end its pip.conf value and start another key
    (``trusted-host``, ``index-url``); no URL holds one, so it is refused, named, before anything is written."""
    from ..errors import SourceError
    from ..i18n import _
    from ..redaction import redact

    if any(ord(c) < 32 or ord(c) == 127 for c in url):
        raise SourceError(_("package source {url} holds a newline or another control character; it cannot be "
                            "written to the env's pip.conf").format(url=ascii(redact(url))),
                          hint=_("fix the URL in torchenv.toml [mirror] or in your pip config"))


def _login_note(side: PypiSide) -> str:
    """Why a private index has no login here: torchenv never writes one into a file."""
    from .credentials import credential_for

    urls = [u for u in (side.index_url, *side.extra_index_urls, *side.find_links) if u and "://" in u]
    if not any(credential_for(u) is not None for u in urls):
        return ""
    return ("# Logins are never copied here: pip inside this env finds them in ~/.netrc or your keyring,\n"
            "# or takes them from PIP_INDEX_URL (which wins over this file); otherwise it asks.\n")


def write_venv_pip_conf(env_path: Path, sources: Sources) -> Path:
    """``<env>/pip.conf`` (``pip.ini`` on Windows) with the PyPI side of ``sources``."""
    name = "pip.ini" if sys.platform.startswith("win") else "pip.conf"
    return _atomic_write(Path(env_path) / name, pip_conf_text(sources))


def _yaml_str(value: str) -> str:
    """A plain scalar when it is one, else a JSON string (valid YAML): a channel name holding a quote
    or a newline must stay one value, never add keys such as ``channel_alias``."""
    import json

    return value if all(c.isalnum() or c in "-_./:" for c in value) and value else json.dumps(value)


def _conda_mirror_tables(sources: Sources, channels: list[str]
                         ) -> tuple[dict[str, str], dict[str, tuple[str, ...]], list[str]]:
    """(custom_channels: name -> the first mirror's base, mirrored_channels: name -> every mirror,
    default_channels) of the plan's conda mirrors."""
    from .condarc import ANACONDA_CLOUD, ANACONDA_REPO

    custom: dict[str, str] = {}
    mirrored: dict[str, tuple[str, ...]] = {}
    defaults: list[str] = []
    for prefix, mirrors in sorted(sources.conda_mirrors.items()):
        if not mirrors:
            continue
        if prefix.startswith(ANACONDA_CLOUD + "/"):
            name = prefix[len(ANACONDA_CLOUD) + 1:]
            first = mirrors[0]
            if first.endswith("/" + name) and first != prefix:
                custom[name] = first[: -len(name) - 1]
            mirrored[name] = mirrors
        elif prefix.startswith(ANACONDA_REPO + "/pkgs/") and "defaults" in channels:
            defaults.append(mirrors[0])
    return custom, mirrored, defaults


def condarc_text(sources: Sources, channels: list[str]) -> str:
    """``.condarc`` YAML: ``channels`` as given, mirrors as ``custom_channels`` (classic
    conda: one mirror per channel) and ``mirrored_channels`` (conda >= 23.x/mamba/rattler:
    all mirrors, canonical last)."""
    from .condarc import channel_url

    out = [_HEADER, "channels:\n"] + [f"  - {_yaml_str(c)}\n" for c in channels]
    out.append("show_channel_urls: true\n")
    custom, mirrored, defaults = _conda_mirror_tables(sources, channels)
    wanted = {channel_url(c) for c in channels if c != "nodefaults"}
    if custom:
        out.append("custom_channels:\n" + "".join(f"  {_yaml_str(k)}: {_yaml_str(v)}\n"
                                                  for k, v in custom.items()))
    relevant = {k: v for k, v in mirrored.items() if channel_url(k) in wanted}
    if relevant:
        out.append("mirrored_channels:\n")
        for name, mirrors in relevant.items():
            out.append(f"  {_yaml_str(name)}:\n" + "".join(f"    - {_yaml_str(m)}\n" for m in mirrors))
    if defaults:
        out.append("default_channels:\n" + "".join(f"  - {_yaml_str(d)}\n" for d in defaults))
    return "".join(out)


def write_condarc(prefix: Path, sources: Sources, channels: list[str]) -> Path:
    """``<prefix>/.condarc`` with ``channels`` and the conda mirrors of ``sources``."""
    return _atomic_write(Path(prefix) / ".condarc", condarc_text(sources, channels))
