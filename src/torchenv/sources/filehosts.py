"""Torch indexes whose pages link files on another host than the page.

Why: download.pytorch.org's pages now link each wheel with an absolute URL on a second host
(``download-r2.pytorch.org/whl/<tier>/<file>``), and the NVIDIA and pure-Python dependencies
to files.pythonhosted.org. The supply-chain checks (which URLs may serve a torch-family file,
which recorded lock URLs may be contacted) compared URL prefixes with the plan's sources, so a
file on the second host looked foreign. Here a torch source's *file bases* are its own URL plus
the same path on each host its preset declares (``file_hosts`` in ``recipes/mirrors.toml``),
and a URL on such a host maps back to the canonical one, so locks stay the same whichever host
served the file.
"""
from __future__ import annotations


def _aliases() -> list[tuple[str, tuple[str, ...]]]:
    """(index base, its file bases) for every preset that declares file hosts."""
    from .mirrors import presets

    return [(p.torch, p.torch_files) for p in presets().values() if p.torch and p.torch_files]


def _under(url: str, base: str) -> str | None:
    """The part of ``url`` below ``base`` ("/cu128/x.whl"), or None when it is not under it."""
    base = base.rstrip("/")
    return url[len(base):] if url == base or url.startswith(base + "/") else None


def file_bases(source_url: str) -> list[str]:
    """Where the files of the torch source at ``source_url`` may live: itself and its file hosts' same path."""
    out = [source_url.rstrip("/")]
    for base, hosts in _aliases():
        rest = _under(source_url, base)
        if rest is not None:
            out += [h + rest.rstrip("/") for h in hosts]
    return out
