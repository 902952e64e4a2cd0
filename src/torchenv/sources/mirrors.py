"""Mirror presets (``recipes/mirrors.toml``, with the user's own ``mirrors.toml`` over them) and the
configuration chain that picks them.

Why data + a chain: mirror facts change (hosts move, stop syncing) and must be easy to
correct without code; and users state mirror wishes in many places. Most specific first:

1. command-line flags (``--mirror``, ``--pypi-mirror``, ``--torch-mirror``, ``--torch-layout``);
2. ``[mirror]`` in torchenv.toml (``intent.mirror``);
3. the ``TORCHENV_MIRROR`` environment variable (a preset name, ``auto`` or ``official``);
4. ``[mirror]`` in the user's ``config.toml`` (``paths.config_dir()``);
5. the user's own uv settings, else pip config (PyPI side, ``select.user_package_config``) and
   ``.condarc`` (conda side).

Per kind of source (pypi / torch / conda), the first layer that says anything about that
kind decides it: an explicit URL at a layer beats ``use`` at the same layer.
"""
from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from ..errors import IntentError
from ..fileio import tomllib_module
from ..i18n import _

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from ..options import SourceOverrides

KINDS = ("pypi", "torch", "conda")
SPECIAL = ("auto", "official")
CHOICE_FILE = "mirror-choice.json"
CHOICE_TTL_S = 24 * 3600


@dataclass(frozen=True)
class Preset:
    """One named mirror; ``None``/empty for a kind it does not carry."""

    name: str
    pypi: str | None = None
    torch: str | None = None                       # base: <base>/<tier>/
    torch_layout: str = "index"
    torch_files: tuple[str, ...] = ()              # other bases holding the files its pages link (file_hosts)
    conda: dict[str, str] = field(default_factory=dict)   # canonical prefix -> mirror URL
    verified: dict[str, bool] = field(default_factory=dict)
    source: dict[str, str] = field(default_factory=dict)
    user: tuple[str, ...] = ()                     # kinds that the user's mirrors file defines

    def has(self, kind: str) -> bool:
        return bool(self.pypi if kind == "pypi" else self.torch if kind == "torch" else self.conda)


def parse_presets(data: dict[str, Any]) -> dict[str, Preset]:
    """Presets from a mirrors.toml-shaped document (also used for ``--candidates-file``)."""
    from .credentials import remember  # a candidates file may hold logins: kept aside, never in a Preset

    fields: dict[str, dict[str, Any]] = {}
    for kind in KINDS:
        for name, entry in (data.get(kind) or {}).items():
            f = fields.setdefault(name, {"name": name, "verified": {}, "source": {}, "conda": {}})
            f["verified"][kind] = bool(entry.get("verified", False))
            f["source"][kind] = str(entry.get("source", ""))
            if kind == "pypi":
                f["pypi"] = remember(str(entry["url"])).rstrip("/")
            elif kind == "torch":
                f["torch"] = remember(str(entry["base"])).rstrip("/")
                f["torch_layout"] = str(entry.get("layout", "index"))
                f["torch_files"] = tuple(str(b).rstrip("/") for b in entry.get("file_hosts", ()))
            else:
                f["conda"] = {k.rstrip("/"): remember(str(v)).rstrip("/")
                              for k, v in (entry.get("channels") or {}).items()}
    return {name: Preset(**f) for name, f in fields.items()}


@cache
def _shipped_data() -> dict[str, Any]:
    from ..kb.load import recipe

    return recipe("mirrors")


def user_mirrors_file() -> Path:
    """The user's own mirrors, in the schema of ``recipes/mirrors.toml`` (``torchenv mirror add`` writes it)."""
    from .. import paths

    return paths.config_dir() / "mirrors.toml"


def read_user_mirrors(path: Path | None = None) -> dict[str, Any]:
    """The user's mirrors file as data ({} when there is none); bad TOML names the file."""
    path = user_mirrors_file() if path is None else path
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return {}
    try:
        data = tomllib_module().loads(text)
    except ValueError as exc:
        raise IntentError(_("not valid TOML: {error}").format(error=exc), file=str(path),
                          hint=_("fix the file, or remove it and add your mirrors again with "
                                 "`torchenv mirror add NAME URL --kind torch|pypi|conda`")) from None
    return cast("dict[str, Any]", data)


def presets() -> dict[str, Preset]:
    """The shipped presets with the user's mirrors file over them, per kind and name.

    Why merged at the data level: a user's ``[torch.tuna]`` adds a kind to the shipped ``tuna``
    (or corrects it) and keeps its other kinds, and every consumer (``fallback``, ``use``,
    ``mirror list/test``) sees one table. Re-read on each call: the file is small, and
    ``mirror add`` changes it within a process.
    """
    user = read_user_mirrors()
    data: dict[str, Any] = {kind: dict(_shipped_data().get(kind) or {}) for kind in KINDS}
    for kind in KINDS:
        for name, entry in (user.get(kind) or {}).items():
            if isinstance(entry, dict):
                data[kind][name] = {**entry, "source": entry.get("source") or _("your mirrors file"),
                                    "verified": bool(entry.get("verified", False))}
    try:
        table = parse_presets(data)
    except (KeyError, TypeError, ValueError) as exc:
        raise IntentError(_("cannot read mirror candidates: {error}").format(error=exc),
                          file=str(user_mirrors_file()),
                          hint=_("use the schema of torchenv's recipes/mirrors.toml: "
                                 "[pypi.NAME] url=..., [torch.NAME] base=... layout=..., "
                                 "[conda.NAME.channels]")) from None
    import dataclasses

    for name, preset in table.items():
        kinds = tuple(k for k in KINDS if isinstance((user.get(k) or {}).get(name), dict))
        if kinds:
            table[name] = dataclasses.replace(preset, user=kinds)
    return table


def load_candidates(path: Path) -> dict[str, Preset]:
    """Presets from a user/test file in the mirrors.toml schema."""
    try:
        return parse_presets(tomllib_module().loads(Path(path).read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise IntentError(_("cannot read mirror candidates: {error}").format(error=exc), file=str(path),
                          hint=_("use the schema of torchenv's recipes/mirrors.toml: "
                                 "[pypi.NAME] url=..., [torch.NAME] base=... layout=..., "
                                 "[conda.NAME.channels]")) from None


# --- the configuration chain -----------------------------------------------------------------

@dataclass(frozen=True)
class Layer:
    """What one configuration layer says about mirrors."""

    label: str                                  # "--mirror", "torchenv.toml [mirror]", ...
    use: str | None = None
    pypi: str | tuple[str, ...] | None = None    # one URL, or several (``as_urls``)
    torch: str | tuple[str, ...] | None = None
    torch_layout: str | None = None
    conda: dict[str, str] = field(default_factory=dict)
    fallback: tuple[str, ...] = ()
    file: str | None = None                     # for error messages
    keys: dict[str, str] = field(default_factory=dict)   # attr -> flag/key name for errors

    def explicit(self, kind: str) -> Any:
        return self.pypi if kind == "pypi" else self.torch if kind == "torch" else (self.conda or None)


def _flag_layer(overrides: SourceOverrides | None) -> Layer | None:
    if overrides is None or not overrides.given:
        return None
    return Layer(label="command-line flags", use=overrides.mirror, pypi=overrides.pypi_mirror,
                 torch=overrides.torch_mirror, torch_layout=overrides.torch_layout,
                 keys={"use": "--mirror", "pypi": "--pypi-mirror", "torch": "--torch-mirror"})


def _intent_layer(intent: Any) -> Layer | None:
    m = getattr(intent, "mirror", None)
    if m is None or not any([m.use, m.pypi, m.torch, m.torch_layout, m.conda, m.fallback]):
        return None
    file = getattr(intent, "file", None)
    label = f"{file} [mirror]" if file else "[mirror] of the intent (flags)"
    return Layer(label=label, use=m.use, pypi=m.pypi,
                 torch=m.torch, torch_layout=m.torch_layout, conda=dict(m.conda),
                 fallback=tuple(m.fallback), file=str(file) if file else None,
                 keys={"use": "mirror.use", "fallback": "mirror.fallback"})


def _env_layer(environ: Mapping[str, str]) -> Layer | None:
    value = (environ.get("TORCHENV_MIRROR") or "").strip()
    if not value:
        return None
    return Layer(label="TORCHENV_MIRROR", use=value, keys={"use": "TORCHENV_MIRROR"})


def user_config_file() -> Path:
    from .. import paths

    return paths.config_dir() / "config.toml"


def _user_layer() -> Layer | None:
    path = user_config_file()
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return None
    try:
        table = tomllib_module().loads(text).get("mirror") or {}
    except ValueError as exc:
        raise IntentError(_("not valid TOML: {error}").format(error=exc), file=str(path),
                          hint=_("fix or delete the file; `torchenv mirror use NAME` rewrites [mirror]")) from None
    if not isinstance(table, dict) or not table:
        return None
    str_or_none: Callable[[str], str | None] = lambda k: (str(table[k]) if table.get(k) else None)  # noqa: E731
    fallback = table.get("fallback") or ()
    return Layer(label=f"user config {path}", use=str_or_none("use"), pypi=_urls_or_none(table.get("pypi")),
                 torch=_urls_or_none(table.get("torch")),
                 torch_layout=str_or_none("torch-layout") or str_or_none("torch_layout"),
                 conda={str(k): str(v) for k, v in (table.get("conda") or {}).items()},
                 fallback=tuple(str(f) for f in ([fallback] if isinstance(fallback, str) else fallback)),
                 file=str(path), keys={"use": "mirror.use", "fallback": "mirror.fallback"})


def _urls_or_none(value: Any) -> str | tuple[str, ...] | None:
    if isinstance(value, list):
        return tuple(str(v) for v in value if v) or None
    return str(value) if value else None


def as_urls(value: str | tuple[str, ...] | None) -> tuple[str, ...]:
    """A layer's URL setting as a tuple (``torch = "URL"`` and ``torch = ["URL1", "URL2"]`` alike)."""
    if not value:
        return ()
    return (value,) if isinstance(value, str) else tuple(value)


def config_layers(intent: Any, overrides: SourceOverrides | None = None, environ: dict[str, str] | None = None) -> list[Layer]:
    """The torchenv-level layers that say something, most specific first."""
    env = os.environ if environ is None else environ
    layers = [_flag_layer(overrides), _intent_layer(intent), _env_layer(env), _user_layer()]
    return [_without_logins(layer) for layer in layers if layer is not None]


def _without_logins(layer: Layer) -> Layer:
    """The layer's URLs with their logins kept aside (``sources.credentials``), so no plan,
    lock or message downstream can carry one."""
    import dataclasses

    from .credentials import remember

    def clean(url: str | tuple[str, ...] | None) -> str | tuple[str, ...] | None:
        if isinstance(url, tuple):
            return tuple(remember(u) for u in url)
        return remember(url) if url else url

    return dataclasses.replace(layer, pypi=clean(layer.pypi), torch=clean(layer.torch),
                               conda={k: remember(v) for k, v in layer.conda.items()})


def check_name(name: str, layer: Layer, attr: str = "use") -> None:
    """Unknown preset names are input errors that name where they were written."""
    if name in SPECIAL or name in presets():
        return
    known = ", ".join(sorted(presets()))
    raise IntentError(_("unknown mirror preset {name}").format(name=repr(name)), file=layer.file,
                      key=layer.keys.get(attr, attr),
                      hint=_("known presets: {known}; or 'auto' (fastest, see `torchenv mirror test`) "
                             "or 'official'").format(known=known)
                      + _("; name your own with `torchenv mirror add NAME URL --kind torch|pypi|conda`"))


@dataclass(frozen=True)
class Pick:
    """How one kind of source was decided."""

    kind: str
    layer: Layer | None          # None: nothing at the torchenv level spoke about this kind
    explicit: Any = None         # URL (pypi/torch) or channel map (conda)
    preset: str | None = None    # preset name, "auto" or "official"
    fallback: tuple[str, ...] = ()
    fallback_layer: Layer | None = None

    @property
    def chooser(self) -> str:
        """The label of the layer that chose ``explicit`` or ``preset`` (``pick`` sets the three together)."""
        assert self.layer is not None, "only a pick with explicit or preset names who chose it"
        return self.layer.label


def pick(kind: str, layers: list[Layer]) -> Pick:
    fb_layer = next((layer for layer in layers if layer.fallback), None)
    fallback = fb_layer.fallback if fb_layer else ()
    if fb_layer:
        for name in fallback:
            check_name(name, fb_layer, "fallback")
    for layer in layers:
        explicit = layer.explicit(kind)
        if explicit:
            return Pick(kind, layer, explicit=explicit, fallback=fallback, fallback_layer=fb_layer)
        if layer.use:
            check_name(layer.use, layer)
            return Pick(kind, layer, preset=layer.use, fallback=fallback, fallback_layer=fb_layer)
    return Pick(kind, None, fallback=fallback, fallback_layer=fb_layer)


def torch_layout(layers: list[Layer]) -> str:
    return next((layer.torch_layout for layer in layers if layer.torch_layout), "index")


# --- the remembered `auto` choice -------------------------------------------------------------

def choice_file() -> Path:
    from .. import paths

    return paths.cache_dir() / CHOICE_FILE


def save_choice(ranking: dict[str, list[dict[str, Any]]], now: float | None = None) -> Path:
    """Remember the ranked working mirrors per kind (``mirror use auto``), atomically."""
    from ..fileio import write_atomic

    return write_atomic(choice_file(),
                        json.dumps({"time": time.time() if now is None else now, "ranking": ranking}, indent=2))


def auto_choice(now: float | None = None) -> dict[str, list[dict[str, Any]]] | None:
    """The remembered ranking if younger than 24 h, else None."""
    try:
        data = json.loads(choice_file().read_text())
    except (OSError, ValueError):
        return None
    age = (time.time() if now is None else now) - float(data.get("time", 0))
    if not 0 <= age <= CHOICE_TTL_S:
        return None
    ranking = data.get("ranking")
    return ranking if isinstance(ranking, dict) else None
