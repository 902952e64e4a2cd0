"""Message catalogues: list the message ids torchenv uses, check a ``.po`` against them, compile ``.mo``.

    python tools/i18n.py missing [LANG]   # ids in the code (and recipes/errors.toml) with no entry in LANG's .po
    python tools/i18n.py update [LANG]    # rewrite LANG's .po: every id in code order, translations kept
    python tools/i18n.py compile [LANG]   # write locale/LANG/LC_MESSAGES/torchenv.mo from its .po

Why stdlib only: the .mo writer is CPython's ``Tools/i18n/msgfmt.py`` logic (GNU .mo, sorted ids,
no hash table), so building a catalogue needs no Babel or gettext tools on the machine. Ids are
found with ``ast``: the first argument of every ``_("...")`` and ``N_("...")`` call under src/, and of
every ``T("...")``/``Text("...")`` (verify's sentences as data, ``verification/checks_script.Text``),
plus each ``cause``/``fix`` of recipes/errors.toml (doctor --explain shows those).
"""
from __future__ import annotations

import array
import ast
import string
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "torchenv"
LOCALE = SRC / "locale"
MARKERS = {"_", "N_", "T", "Text"}


def code_ids() -> dict[str, str]:
    """Every message id used in src -> the file it first appears in (no line: the .po stays stable)."""
    found: dict[str, str] = {}
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _marker(node.func) and node.args:
                arg = node.args[0]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    found.setdefault(arg.value, str(path.relative_to(ROOT)))
    for entry in _error_catalogue():
        for key in ("cause", "fix"):
            found.setdefault(entry[key], f"src/torchenv/recipes/errors.toml: {entry['id']}.{key}")
    return found


def _marker(func: ast.expr) -> bool:
    return (isinstance(func, ast.Name) and func.id in MARKERS) or \
        (isinstance(func, ast.Attribute) and func.attr in MARKERS)


def _error_catalogue() -> list[dict]:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    return tomllib.loads((SRC / "recipes" / "errors.toml").read_text(encoding="utf-8"))["error"]


def po_path(lang: str) -> Path:
    return LOCALE / lang / "LC_MESSAGES" / "torchenv.po"


def read_po(path: Path) -> dict[str, str]:
    """msgid -> msgstr of a .po (no plurals or contexts: torchenv uses neither); the header under ""."""
    entries: dict[str, str] = {}
    msgid = msgstr = None
    section = None

    def flush() -> None:
        if msgid is not None and msgstr is not None:
            entries[msgid] = msgstr

    for lineno, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("msgid "):
            flush()
            msgid, msgstr, section = _unquote(line[6:], path, lineno), None, "id"
        elif line.startswith("msgstr "):
            msgstr, section = _unquote(line[7:], path, lineno), "str"
        elif line.startswith('"') and section == "id":
            msgid = (msgid or "") + _unquote(line, path, lineno)
        elif line.startswith('"') and section == "str":
            msgstr = (msgstr or "") + _unquote(line, path, lineno)
        else:
            raise SystemExit(f"{path}:{lineno}: cannot read {raw!r}")
    flush()
    return entries


def _unquote(text: str, path: Path, lineno: int) -> str:
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        raise SystemExit(f"{path}:{lineno}: not a quoted string: {text!r}") from None
    if not isinstance(value, str):
        raise SystemExit(f"{path}:{lineno}: not a quoted string: {text!r}")
    return value


def placeholders(text: str) -> set[str]:
    return {field for _lit, field, _spec, _conv in string.Formatter().parse(text) if field is not None}


HEADER = ("Project-Id-Version: torchenv\nLanguage: {lang}\nMIME-Version: 1.0\n"
          "Content-Type: text/plain; charset=UTF-8\nContent-Transfer-Encoding: 8bit\n")


def po_text(lang: str, ids: dict[str, str], translations: dict[str, str]) -> str:
    """A .po holding every id of ``ids`` (with where it is used) and its translation ("" when none yet)."""
    out = [f"# torchenv messages, {lang}. Update with: python tools/i18n.py update {lang}", "",
           'msgid ""', f"msgstr {_quote(HEADER.format(lang=lang))}", ""]
    for msgid, where in ids.items():
        out += [f"#: {where}", f"msgid {_quote(msgid)}", f"msgstr {_quote(translations.get(msgid, ''))}", ""]
    return "\n".join(out)


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t") + '"'


def mo_bytes(entries: dict[str, str]) -> bytes:
    """A GNU .mo holding ``entries`` (translated ones only), as CPython's msgfmt.py writes it."""
    messages = {k: v for k, v in entries.items() if v}
    keys = sorted(messages)
    ids = strs = b""
    offsets = []
    for key in keys:
        kb, vb = key.encode("utf-8"), messages[key].encode("utf-8")
        offsets.append((len(ids), len(kb), len(strs), len(vb)))
        ids += kb + b"\0"
        strs += vb + b"\0"
    keystart = 7 * 4 + 16 * len(keys)
    valuestart = keystart + len(ids)
    koffsets: list[int] = []
    voffsets: list[int] = []
    for o1, l1, o2, l2 in offsets:
        koffsets += [l1, o1 + keystart]
        voffsets += [l2, o2 + valuestart]
    header = struct.pack("Iiiiiii", 0x950412DE, 0, len(keys), 7 * 4, 7 * 4 + len(keys) * 8, 0, 0)
    return header + array.array("i", koffsets + voffsets).tobytes() + ids + strs


def mo_path(lang: str) -> Path:
    return LOCALE / lang / "LC_MESSAGES" / "torchenv.mo"


def main(argv: list[str]) -> int:
    command = argv[0] if argv else "missing"
    lang = argv[1] if len(argv) > 1 else "zh_CN"
    entries = read_po(po_path(lang))
    if command == "compile":
        mo_path(lang).write_bytes(mo_bytes(entries))
        print(f"wrote {mo_path(lang).relative_to(ROOT)} ({sum(1 for k, v in entries.items() if k and v)} messages)")
        return 0
    if command == "update":
        ids = code_ids()
        for gone in sorted(set(entries) - set(ids) - {""}):
            print(f"dropped (no longer used): {gone!r}")
        po_path(lang).write_text(po_text(lang, ids, entries), encoding="utf-8")
        return 0
    if command == "missing":
        missing = {k: where for k, where in code_ids().items() if not entries.get(k)}
        for key, where in missing.items():
            print(f"{where}: {key!r}")
        return 1 if missing else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
