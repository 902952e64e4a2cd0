"""Read the conda mirror settings of the user's ``.condarc`` (no PyYAML dependency).

Why a line reader: torchenv only needs a handful of keys (``channels``,
``custom_channels``, ``default_channels``, ``channel_alias``, ``mirrored_channels``), and
``select_sources`` runs on every ``plan``. The reader understands the YAML that conda
itself writes and that mirror help pages show:

* ``key: scalar`` (quotes stripped), ``key: [a, b]``, ``key: {a: b, c: d}``;
* ``key:`` followed by an indented ``- item`` list or ``name: value`` map;
* one level deeper for ``mirrored_channels`` (``name:`` + ``- url`` list, or ``name: [..]``);
* ``#`` comments and blank lines.

Limits (documented, not errors): anchors/aliases, multi-line scalars and deeper nesting are
ignored; a line it cannot read is skipped, never fatal (a broken ``.condarc`` is conda's
business to report).
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ANACONDA_CLOUD = "https://conda.anaconda.org"
ANACONDA_REPO = "https://repo.anaconda.com"


def condarc_files(environ: dict[str, str] | None = None) -> list[Path]:
    """User-level ``.condarc`` files, lowest priority first; ``$CONDARC`` last."""
    env = os.environ if environ is None else environ
    home = Path(env.get("HOME") or Path.home())
    files = [home / ".config" / "conda" / ".condarc", home / ".conda" / ".condarc", home / ".condarc"]
    if env.get("CONDARC"):
        files.append(Path(env["CONDARC"]))
    return files


def _strip_comment(line: str) -> str:
    out, quote = [], None
    for i, ch in enumerate(line):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            break
        out.append(ch)
    return "".join(out).rstrip()


def _scalar(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text


def _flow(text: str) -> Any:
    """``[a, b]`` -> list, ``{a: b}`` -> dict, else a scalar."""
    text = text.strip()
    if text.startswith("[") and text.endswith("]"):
        return [_scalar(v) for v in text[1:-1].split(",") if v.strip()]
    if text.startswith("{") and text.endswith("}"):
        out = {}
        for item in text[1:-1].split(","):
            key, sep, val = item.partition(": ")
            if sep:
                out[_scalar(key)] = _scalar(val)
        return out
    return _scalar(text)


def _split_key(text: str) -> tuple[str, str] | None:
    """``key: value`` -> (key, value); URLs inside values keep their colons."""
    key, sep, rest = text.partition(": ")
    if sep:
        return _scalar(key), rest
    if text.endswith(":"):
        return _scalar(text[:-1]), ""
    return None


class _CondarcReader:
    """The parse state: the top-level key with a block value, and under it the second-level key whose list is
    being read (``mirrored_channels:`` then ``  conda-forge:`` then ``    - URL``)."""

    def __init__(self) -> None:
        self.data: dict[str, Any] = {}
        self.top: str | None = None
        self.sub: str | None = None
        self.sub_indent = -1

    def line(self, indent: int, body: str) -> None:
        if indent == 0:
            self._top_level(body)
        elif self.top is not None:
            self._nested(self.top, indent, body)

    def _top_level(self, body: str) -> None:
        self.sub, self.top = None, None
        kv = _split_key(body)
        if kv is None:
            return
        key, value = kv
        if value.strip():
            self.data[key] = _flow(value)
        else:
            self.top = key

    def _nested(self, top: str, indent: int, body: str) -> None:
        if self.sub is not None and indent > self.sub_indent:
            if body.startswith("- "):
                target = self.data[top].setdefault(self.sub, [])
                if isinstance(target, list):
                    target.append(_scalar(body[2:]))
            return
        self.sub = None
        if body.startswith("- "):
            current = self.data.setdefault(top, [])
            if isinstance(current, list):
                current.append(_scalar(body[2:]))
            return
        self._nested_key(top, indent, body)

    def _nested_key(self, top: str, indent: int, body: str) -> None:
        kv = _split_key(body)
        if kv is None:
            return
        key, value = kv
        current = self.data.setdefault(top, {})
        if not isinstance(current, dict):
            return
        if value.strip():
            current[key] = _flow(value)
        else:
            current[key] = []
            self.sub, self.sub_indent = key, indent


def parse_condarc(text: str) -> dict[str, Any]:
    """The subset of YAML described in the module docstring, as plain dicts/lists/strings."""
    reader = _CondarcReader()
    for raw in text.splitlines():
        line = _strip_comment(raw)
        if not line.strip() or line.lstrip().startswith("---"):
            continue
        reader.line(len(line) - len(line.lstrip()), line.strip())
    return reader.data


def read_condarc(files: list[Path] | None = None) -> tuple[dict[str, Any], list[str]]:
    """Merged settings (later files win per key) and the files that contributed."""
    merged: dict[str, Any] = {}
    used: list[str] = []
    for path in condarc_files() if files is None else files:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        parsed = parse_condarc(text)
        if parsed:
            merged.update(parsed)
            used.append(str(path))
    return merged, used


def channel_url(name: str) -> str:
    """Canonical URL of a channel given by name (``conda-forge``, ``pkgs/main``) or URL."""
    if "://" in name:
        return name.rstrip("/")
    if name.startswith("pkgs/"):
        return f"{ANACONDA_REPO}/{name}"
    return f"{ANACONDA_CLOUD}/{name.strip('/')}"


def _alias_pairs(alias: Any) -> Iterator[tuple[str, str]]:
    if isinstance(alias, str):
        yield ANACONDA_CLOUD, alias


def _custom_pairs(custom: Any) -> Iterator[tuple[str, str]]:
    if isinstance(custom, dict):
        for name, base in custom.items():
            if isinstance(base, str):
                yield channel_url(name), f"{base.rstrip('/')}/{name}"


def _default_pairs(defaults: Any) -> Iterator[tuple[str, str]]:
    if isinstance(defaults, list):
        for url in defaults:
            tail = url.rstrip("/").rsplit("/pkgs/", 1)
            if len(tail) == 2:
                yield f"{ANACONDA_REPO}/pkgs/{tail[1]}", url


def _channel_pairs(channels: Any) -> Iterator[tuple[str, str]]:
    """A channel given by a mirror's URL mirrors the channel of the same name."""
    if isinstance(channels, list):
        for url in channels:
            if url.startswith(("http://", "https://")) and not url.startswith((ANACONDA_CLOUD, ANACONDA_REPO)):
                name = url.rstrip("/").rsplit("/", 1)[-1]
                if name and "pkgs/" not in url:
                    yield channel_url(name), url


def _mirrored_pairs(mirrored: Any) -> Iterator[tuple[str, str]]:
    if isinstance(mirrored, dict):
        for name, urls in mirrored.items():
            for url in urls if isinstance(urls, list) else [urls]:
                if isinstance(url, str):
                    yield channel_url(name), url


# .condarc key -> the (canonical prefix, mirror URL) pairs it declares, in the order conda applies them
_CONDARC_RULES: tuple[tuple[str, Callable[[Any], Iterator[tuple[str, str]]]], ...] = (
    ("channel_alias", _alias_pairs), ("custom_channels", _custom_pairs), ("default_channels", _default_pairs),
    ("channels", _channel_pairs), ("mirrored_channels", _mirrored_pairs))


def mirrors_from_condarc(cfg: dict[str, Any]) -> dict[str, list[str]]:
    """Canonical channel prefix -> mirror URLs, as conda would route them."""
    out: dict[str, list[str]] = {}
    for key, pairs in _CONDARC_RULES:
        for prefix, mirror in pairs(cfg.get(key)):
            mirror = mirror.rstrip("/")
            if mirror and mirror != prefix and "://" in mirror and mirror not in out.get(prefix, ()):
                out.setdefault(prefix, []).append(mirror)
    return out
