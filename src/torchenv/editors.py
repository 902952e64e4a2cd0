"""Editor settings, written only when asked: VS Code's ``python.defaultInterpreterPath``.

Why so careful: ``.vscode/settings.json`` is the user's file, often JSON with comments and
trailing commas (VS Code reads "JSONC"). Re-writing such a file through a JSON parser would drop
the comments, so a file that plain JSON cannot read is refused with the line to add by hand;
a readable one keeps every other key as it was.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from .errors import TorchenvError
from .i18n import _

VSCODE_KEY = "python.defaultInterpreterPath"


class EditorSettingsError(TorchenvError):
    """An editor's settings file torchenv cannot change without losing what it holds."""

    exit_code = 2


@dataclass(frozen=True)
class SettingWritten:
    file: Path
    changed: bool


def write_vscode_interpreter(project: Path, python: Path) -> SettingWritten:
    """Set ``python.defaultInterpreterPath`` in ``<project>/.vscode/settings.json``, other keys kept."""
    from .fileio import write_atomic

    path = project / ".vscode" / "settings.json"
    settings: dict[str, object] = {}
    if path.exists():
        try:
            loaded = json.loads(path.read_text(encoding="utf-8") or "{}")
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise EditorSettingsError(
                _("{file} is not plain JSON ({why}); torchenv did not change it, so its comments and "
                  "layout are kept").format(file=path, why=exc),
                hint=_('add this line to it yourself: "{key}": "{python}"').format(key=VSCODE_KEY, python=python)
            ) from None
        if not isinstance(loaded, dict):
            raise EditorSettingsError(_("{file} does not hold a JSON object; torchenv did not change it").format(
                file=path), hint=_('make it {{"{key}": "{python}"}}').format(key=VSCODE_KEY, python=python))
        settings = loaded
    if settings.get(VSCODE_KEY) == str(python):
        return SettingWritten(path, False)
    settings[VSCODE_KEY] = str(python)
    write_atomic(path, json.dumps(settings, indent=4, ensure_ascii=False) + "\n")
    return SettingWritten(path, True)
