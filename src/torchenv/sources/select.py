"""Decide the sources for one plan: torch index/mirrors for the tier, the PyPI side, local
wheelhouses, conda mirrors, each with the reason (which configuration layer chose it).

Why here and not in engines: the supply-chain rule is a *decision* recorded in the plan
(with reasons), not something each installer re-derives. This runs on every ``plan``, so
it reads a few small files and never touches the network.

PyPI-side merge rule: a torchenv-level choice (flag, torchenv.toml, TORCHENV_MIRROR, user
config) replaces only the *index-url* of the user's pip config. Their extra-index-urls,
find-links and constraints stay (private indexes and wheelhouses are theirs), except
extra indexes that are torch wheel indexes (download.pytorch.org or a torch mirror):
those are dropped from the PyPI side because torch-family packages come from the torch
sources, and resolving ordinary packages against a torch index is how copies of numpy &
co. from download.pytorch.org sneak in.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..reasons import SOURCES, Joined, Reason, reason
from .model import OFFICIAL_PYPI, OFFICIAL_TORCH_BASE, PypiSide, Sources, TorchSource
from .pipconfig import local_dirs, read_pip_config

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..options import SourceOverrides
    from .mirrors import Layer, Pick


def said(id: str, **params: object) -> Reason:
    """A line of plan's "sources:" (``reason_catalogue``, ``sources.*``): data, shown in the user's language."""
    return reason(id, SOURCES, **params)


def _explicit_torch(p: Pick, layers: list[Layer], tier: str) -> tuple[list[TorchSource], list[str], bool]:
    """URLs the user gave (one or several mirrors of the same files); the official index only with a fallback."""
    from .mirrors import as_urls, torch_layout

    bases = as_urls(p.explicit)
    chosen = [TorchSource(url=f"{base.rstrip('/')}/{tier}", layout=torch_layout(layers),
                          name="custom" if i == 0 else f"custom-{i + 1}") for i, base in enumerate(bases)]
    add_official = bool(p.fallback)
    shared = said("sources.shared_chunks", count=len(bases)) if len(bases) > 1 else ""
    pinned = "" if add_official else said("sources.pinned")
    note = said("sources.torch_explicit", tier=tier, urls=", ".join(s.url for s in chosen), layout=chosen[0].layout,
                chooser=p.chooser, more=Joined((shared, pinned), ""))
    return chosen, [note], add_official


def _auto_torch(p: Pick, layers: list[Layer], tier: str) -> tuple[list[TorchSource], list[str], bool]:
    """The mirrors the last `torchenv mirror test` ranked, best first."""
    from .mirrors import auto_choice

    ranking = (auto_choice() or {}).get("torch") or []
    chosen = [TorchSource(url=f"{entry['base'].rstrip('/')}/{tier}", layout=entry.get("layout", "index"),
                          name=entry["name"]) for entry in ranking]
    how = said("sources.auto_ranked", names=", ".join(s.name for s in chosen)) if chosen \
        else said("sources.auto_unmeasured")
    return chosen, [said("sources.torch_auto", tier=tier, chooser=p.chooser, how=how)], True


def _preset_torch(p: Pick, layers: list[Layer], tier: str) -> tuple[list[TorchSource], list[str], bool]:
    """A named mirror preset; one without a PyTorch wheel mirror leaves the fallbacks and the official index."""
    from .mirrors import presets

    preset = presets()[p.preset or ""]
    if not preset.torch:
        return [], [said("sources.preset_no_torch", tier=tier, name=preset.name, chooser=p.chooser)], True
    source = TorchSource(url=f"{preset.torch}/{tier}", layout=preset.torch_layout, name=preset.name)
    return [source], [said("sources.torch_preset", tier=tier, name=preset.name, url=source.url,
                           layout=preset.torch_layout, chooser=p.chooser)], True


def _official_torch(p: Pick, layers: list[Layer], tier: str) -> tuple[list[TorchSource], list[str], bool]:
    notes: list[str] = [said("sources.torch_official", tier=tier, chooser=p.chooser)] if p.preset == "official" else []
    return [], notes, True


def _torch_choice(p: Pick) -> Callable[[Pick, list[Layer], str], tuple[list[TorchSource], list[str], bool]]:
    """Which rule reads the layer that chose the torch source: URLs, ``auto``, a preset, or official/none."""
    if p.explicit:
        return _explicit_torch
    if p.preset == "auto":
        return _auto_torch
    if p.preset and p.preset != "official":
        return _preset_torch
    return _official_torch


def _fallback_torch(p: Pick, tier: str) -> list[TorchSource]:
    from .mirrors import presets

    table = presets()
    return [TorchSource(url=f"{table[name].torch}/{tier}", layout=table[name].torch_layout, name=name)
            for name in p.fallback if name in table and table[name].torch]


def _torch_sources(layers: list[Layer], tier: str) -> tuple[tuple[TorchSource, ...], list[str]]:
    from .mirrors import pick

    p = pick("torch", layers)
    official = TorchSource(url=f"{OFFICIAL_TORCH_BASE}/{tier}", layout="index", name="official")
    chosen, notes, add_official = _torch_choice(p)(p, layers, tier)
    chosen += _fallback_torch(p, tier)
    if add_official:
        chosen.append(official)
    unique = tuple({s.url: s for s in chosen}.values())
    if p.layer is None:
        notes.append(said("sources.torch_default", tier=tier, url=official.url))
    elif len(unique) > 1:
        notes.append(said("sources.torch_order", order=" -> ".join(f"{s.name} {s.url}" for s in unique)))
    return unique, notes


def _is_torch_index(url: str) -> bool:
    from .mirrors import presets

    bases = [OFFICIAL_TORCH_BASE] + [p.torch for p in presets().values() if p.torch]
    return any(url.rstrip("/").startswith(b.rstrip("/")) for b in bases if b)


def _chosen_pypi(p: Pick) -> tuple[str | None, str, tuple[str, ...], list[str]]:
    """(index URL, who chose it, a list's further URLs, notes) of the layer that chose the PyPI side; the URL is
    None when the user's pip config stays in charge."""
    from .mirrors import as_urls, auto_choice, presets

    if p.explicit:
        first, *rest = as_urls(p.explicit)
        return first.rstrip("/"), p.chooser, tuple(u.rstrip("/") for u in rest), []
    if p.preset == "official":
        return OFFICIAL_PYPI, f"official, {p.chooser}", (), []
    if p.preset == "auto":
        ranking = (auto_choice() or {}).get("pypi") or []
        if ranking:
            return ranking[0]["url"], f"mirror {ranking[0]['name']} (auto, {p.chooser})", (), []
        return None, "", (), [said("sources.pypi_auto_unmeasured")]
    if p.preset:
        preset = presets()[p.preset]
        if preset.pypi:
            return preset.pypi, f"mirror {preset.name} ({p.chooser})", (), []
        return None, "", (), [said("sources.pypi_preset_none", name=preset.name)]
    return None, "", (), []


def _pypi_side(layers: list[Layer], pip: PypiSide) -> tuple[PypiSide, list[str]]:
    from .mirrors import pick

    url, origin, listed, notes = _chosen_pypi(pick("pypi", layers))
    extras = tuple(dict.fromkeys(u for u in (*listed, *pip.extra_index_urls) if not _is_torch_index(u)))
    dropped = [u for u in pip.extra_index_urls if u not in extras]
    if dropped:
        notes.append(said("sources.pypi_dropped", urls=", ".join(dropped)))
    if url is None:
        side = PypiSide(index_url=pip.index_url, extra_index_urls=extras, find_links=pip.find_links,
                        constraints=pip.constraints, origin=pip.origin)
        notes.append(said("sources.pypi_from_config", url=side.index_url or OFFICIAL_PYPI, origin=pip.origin))
        return side, notes + [side.index_rule()]
    side = PypiSide(index_url=None if url == OFFICIAL_PYPI else url, extra_index_urls=extras,
                    find_links=pip.find_links, constraints=pip.constraints, origin=origin)
    kept = said("sources.pypi_kept") if (extras or pip.find_links or pip.constraints) else ""
    notes.append(said("sources.pypi_chosen", url=url, origin=origin, kept=kept))
    return side, notes + [side.index_rule()]


class _CondaMirrorMap:
    """channel URL -> mirrors, in the order they were added, each once (a mirror equal to its channel is none)."""

    def __init__(self) -> None:
        self.decided: dict[str, list[str]] = {}

    def add(self, mapping: dict[str, str]) -> None:
        from .condarc import channel_url

        for prefix, mirror in mapping.items():
            prefix = channel_url(prefix)
            if mirror.rstrip("/") != prefix:
                self.decided.setdefault(prefix, [])
                if mirror not in self.decided[prefix]:
                    self.decided[prefix].append(mirror.rstrip("/"))


def _chosen_conda(p: Pick, decided: _CondaMirrorMap) -> tuple[list[str], bool, bool]:
    """Add the mirrors of the layer that chose conda's; (notes, pinned: no canonical channel as a last resort,
    official: the .condarc's own mirrors are dropped)."""
    from .mirrors import auto_choice, presets

    if p.explicit:
        decided.add(dict(p.explicit))
        return [said("sources.conda_explicit", chooser=p.chooser)], not p.fallback, False
    if p.preset == "auto":
        for entry in (auto_choice() or {}).get("conda") or []:
            decided.add(entry.get("channels") or {})
        return [said("sources.conda_auto", chooser=p.chooser)], False, False
    if p.preset == "official":
        return [said("sources.conda_official", chooser=p.chooser)], False, True
    if p.preset:
        preset = presets()[p.preset]
        decided.add(preset.conda)
        more = "" if preset.conda else said("sources.conda_preset_none", name=p.preset)
        return [said("sources.conda_preset", name=p.preset, chooser=p.chooser, more=more)], False, False
    return [], False, False


def _conda_mirrors(layers: list[Layer]) -> tuple[dict[str, tuple[str, ...]], list[str]]:
    from .condarc import mirrors_from_condarc, read_condarc
    from .mirrors import pick, presets

    cfg, files = read_condarc()
    base = mirrors_from_condarc(cfg)
    notes: list[str] = [said("sources.conda_from_files", files=", ".join(files))] if base else []
    p = pick("conda", layers)
    table = presets()
    decided = _CondaMirrorMap()
    chosen_notes, pinned, official = _chosen_conda(p, decided)
    notes += chosen_notes
    if official:
        base = {}
    for name in p.fallback:
        if name in table:
            decided.add(table[name].conda)
    merged = {k: list(v) for k, v in base.items()}
    merged.update(decided.decided)
    out: dict[str, tuple[str, ...]] = {}
    for prefix, mirrors in sorted(merged.items()):
        if not pinned and prefix not in mirrors:
            mirrors = [*mirrors, prefix]      # the canonical channel as the last resort
        out[prefix] = tuple(mirrors)
    return out, notes


def user_package_config(intent: Any) -> tuple[PypiSide, list[str]]:
    """The PyPI side the user configured for their own tools: uv's settings, else pip's config.

    Precedence (README.md, "Your own mirrors and proxies"): uv's settings (variables, then the
    project's ``uv.toml`` or ``[tool.uv]``, then the user's and system's ``uv.toml``) decide the
    indexes when they name one, since torchenv installs with uv and uv does not read pip's config;
    otherwise pip's config does (``sources.pipconfig``). Find-links folders and constraint files of
    pip's config are kept either way (they are the user's own files).
    """
    from .uvconfig import read_uv_config

    pip = read_pip_config()
    file = getattr(intent, "file", None)
    project = file.parent if file is not None else getattr(intent, "project", None)
    uv = read_uv_config(project)
    notes: list[str] = []
    if uv.explicit:
        notes.append(said("sources.uv_explicit", indexes=", ".join(uv.explicit)))
    if not uv.names_an_index and not uv.find_links:
        return pip, notes
    origin = "uv settings (" + ", ".join(uv.origins) + ")"
    links = tuple(dict.fromkeys((*uv.find_links, *pip.find_links)))
    if not uv.names_an_index:
        return PypiSide(index_url=pip.index_url, extra_index_urls=pip.extra_index_urls, find_links=links,
                        constraints=pip.constraints, origin=f"{pip.origin}; find-links from {origin}"), notes
    if pip.index_url or pip.extra_index_urls:
        notes.append(said("sources.uv_over_pip", origin=pip.origin))
    index = None if (uv.default or "").rstrip("/") == OFFICIAL_PYPI else uv.default
    return PypiSide(index_url=index, extra_index_urls=uv.extra, find_links=links, constraints=pip.constraints,
                    origin=origin), notes


def select_sources(intent: Any, *, tier: str, platform: str, overrides: SourceOverrides | None = None) -> Sources:
    """Sources for ``tier`` on ``platform`` from the configuration chain (see ``sources.mirrors``).

    ``overrides``: the ``--mirror`` & co. of the request, or None.
    Raises ``IntentError`` for an unknown preset name, naming the layer that wrote it.
    """
    from .mirrors import config_layers

    layers = config_layers(intent, overrides)
    pip, config_notes = user_package_config(intent)
    torch, torch_notes = _torch_sources(layers, tier)
    pypi, pypi_notes = _pypi_side(layers, pip)
    pypi_notes = [*config_notes, *pypi_notes]
    conda, conda_notes = _conda_mirrors(layers)
    wheelhouses = tuple(str(p) for p in local_dirs(pip.find_links))
    reasons = [*torch_notes, *pypi_notes]
    if wheelhouses:
        reasons.append(said("sources.wheelhouses", folders=", ".join(wheelhouses)))
    reasons += conda_notes
    return Sources(torch=torch, pypi=pypi, wheelhouses=wheelhouses, conda_mirrors=conda,
                   canonical_torch=OFFICIAL_TORCH_BASE, reasons=tuple(reasons))
