"""Read the recipe TOML files shipped as ``torchenv.recipes``, once per process.

Why stdlib ``tomllib`` (``tomli`` on 3.10) and not tomlkit: the recipes are read-only data
and ``torchenv plan --json`` must start in well under 0.3 s; tomllib parses all recipes in
a few milliseconds. Parsed tables are cached in-process only (no on-disk cache to go stale).
"""
from __future__ import annotations

from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any, cast

from ..fileio import tomllib_module

if TYPE_CHECKING:
    from pathlib import Path


@cache
def recipe(name: str) -> dict[str, Any]:
    """The parsed ``recipes/<name>.toml``. Raises ``FileNotFoundError`` for an unknown name."""
    return cast("dict[str, Any]", tomllib_module().loads(_read(f"{name}.toml").decode("utf-8")))


def overlay_path() -> Path:
    """``<config dir>/recipes/overlay.toml``: where ``torchenv recipes refresh`` writes what it learnt."""
    from ..paths import config_dir

    return config_dir() / "recipes" / "overlay.toml"


@lru_cache(maxsize=1)
def overlay() -> dict[str, Any]:
    """The user-level overlay written by ``torchenv recipes refresh`` ({} when there is none).

    Why a separate file: a user picks up a release newer than the shipped snapshot without a
    torchenv release; a broken overlay is reported by name, never as a traceback.
    """
    from ..errors import TorchenvError

    path = overlay_path()
    try:
        raw = path.read_bytes()
    except OSError:
        return {}
    try:
        return cast("dict[str, Any]", tomllib_module().loads(raw.decode("utf-8")))
    except (ValueError, UnicodeDecodeError) as exc:
        raise TorchenvError(f"{path}: not a valid recipe overlay ({exc})",
                            hint="run `torchenv recipes refresh` again, or delete that file") from None


def _read(filename: str) -> bytes:
    """Bytes of a recipe file: straight from the package directory when it is one (the usual install;
    ``importlib.resources`` alone costs ~15 ms of imports), else through ``importlib.resources``
    (zip imports and other loaders)."""
    import torchenv.recipes as pkg

    for base in getattr(pkg, "__path__", ()):
        try:
            with open(f"{base}/{filename}", "rb") as fh:
                return fh.read()
        except OSError:
            continue
    from importlib.resources import files

    return files("torchenv.recipes").joinpath(filename).read_bytes()


def clear_cache() -> None:
    """Forget parsed recipes and everything derived from them (tests that patch recipes)."""
    recipe.cache_clear()
    overlay.cache_clear()
    from . import query

    query._index.cache_clear()
    query._gpus.cache_clear()
