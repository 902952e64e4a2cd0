#!/usr/bin/env python3
"""Mechanical rename of the subpackage torchenv.OLD to torchenv.NEW: git mv, then every reference.

    python3 tools/rename_package.py OLD NEW     (in the repository root, on a clean tree)

Why a tool: a package rename is redone, not merged, when a branch that renamed it meets one that
edited its files; the same command on the merged tree gives the same result. In ``.po`` files only
the ``#:`` source paths change; ``tools/i18n.py update`` puts their entries back in source order.

Rewrites: absolute dotted names (torchenv.OLD.sub, "torchenv.OLD", from torchenv.OLD import),
relative imports that resolve to torchenv.OLD (from the importing file's own package), paths
(src/torchenv/OLD/, torchenv/OLD/, OLD/<file>.py) and ``OLD.sub`` in text. Nothing else.
"""
import re
import subprocess
import sys
from pathlib import Path

old, new = sys.argv[1], sys.argv[2]
root = Path.cwd()
pkg = root / "src" / "torchenv" / old
subs = sorted({p.stem if p.is_file() else p.name for p in pkg.iterdir()
               if p.name != "__init__.py" and p.name != "__pycache__" and (p.suffix == ".py" or p.is_dir())})
SUB = "|".join(map(re.escape, subs))
subprocess.run(["git", "mv", str(pkg), str(root / "src" / "torchenv" / new)], check=True)

files = [Path(f) for f in subprocess.run(["git", "ls-files"], capture_output=True, text=True, check=True).stdout.split()]
texts = [f for f in files if f.suffix in (".py", ".md", ".toml", ".cfg", ".po", ".txt", ".ini", ".yml", ".yaml", ".json")
         or f.name in ("bootstrap",)]
texts = [f for f in texts if f.is_file() and not str(f).startswith(("CHANGELOG",))]

rules = [
    # dotted absolute names
    (re.compile(rf"\btorchenv\.{old}\.({SUB})\b"), rf"torchenv.{new}.\1"),
    *([] if old == "lock" else [(re.compile(rf"\btorchenv\.{old}\.(?=[a-z_])"), rf"torchenv.{new}.")]),
    (re.compile(rf"\btorchenv\.{old}(?=\s+import\b)"), rf"torchenv.{new}"),
    # "torchenv.OLD" quoted (importlib, resources); not for ``lock``, where it is the lock file's name
    *([] if old == "lock" else [(re.compile(rf"(?<=[\"'])torchenv\.{old}(?=[\"'])"), rf"torchenv.{new}")]),
    (re.compile(rf"\bimport torchenv\.{old}\b(?!\.)"), rf"import torchenv.{new}"),
    # paths
    (re.compile(rf"\b(src/)?torchenv/{old}/"), rf"\1torchenv/{new}/"),
    (re.compile(rf"(?<![\w/.-]){old}/(?=({SUB})(\.py|/)|`|\s|\))"), rf"{new}/"),
    # ``OLD.sub`` references in text and docstrings
    (re.compile(rf"(?<![\w.]){old}\.({SUB})\b(?!\()"), rf"{new}.\1"),
]


def package_of(path: Path) -> list[str] | None:
    parts = path.parts
    if parts[:2] != ("src", "torchenv"):
        return None
    mod = list(parts[1:-1])              # the package the file is in
    return mod


REL = re.compile(r"\bfrom (\.+)([\w.]*) import\b")


def relative(line: str, path: Path) -> str:
    base = package_of(path)
    if base is None:
        return line

    def fix(m: re.Match[str]) -> str:
        level, name = len(m.group(1)), m.group(2)
        anchor = base[: len(base) - (level - 1)]
        target = anchor + (name.split(".") if name else [])
        if target[:2] == ["torchenv", old]:
            rest = name.split(".")
            i = 1 - len(anchor)                 # where OLD stands within ``name``
            if i < 0:
                return m.group(0)
            rest[i] = new
            return f"from {m.group(1)}{'.'.join(rest)} import"
        return m.group(0)
    return REL.sub(fix, line)


changed = 0
for f in texts:
    text = f.read_text(encoding="utf-8")
    out = []
    for line in text.splitlines(keepends=True):
        if f.suffix == ".py":
            line = relative(line, f)
        for rx, rep in rules:
            line = rx.sub(rep, line)
        out.append(line)
    result = "".join(out)
    if result != text:
        f.write_text(result, encoding="utf-8")
        changed += 1
print(f"{old} -> {new}: {changed} files rewritten; submodules {subs}")
