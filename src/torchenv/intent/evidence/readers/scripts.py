"""Installer scripts: a web UI's ``TORCH_COMMAND`` default, a one-click installer's ``TORCH_VERSION`` /
``PYTHON_VERSION`` constants, and the pip lines of ``install.sh``/``*.bat``/``*.ps1``.

Why read them and never run them: those projects keep their stack in code, and running a
stranger's installer to learn it would install things. Python is read as a syntax tree (string
constants only); shell files are read word by word.
"""
from __future__ import annotations

import ast
import re

from ..model import Record
from .commands import INSTALL, TORCH_BACKEND_VAR, read_command
from .specs import python_records, requirement_records, tier_from_url, tier_or_none

_CONSTANTS = {"TORCH_VERSION": "version", "PYTORCH_VERSION": "version", "PYTHON_VERSION": "python",
              "CUDA_VERSION": "cuda", "TORCH_CUDA": "cuda", "CUDA": "cuda"}


def read_python_script(text: str, file: str) -> list[Record]:
    """String constants of a Python installer that are install commands, torch index URLs or named stack
    constants. Names and f-strings are filled in from the script's own string constants (and the defaults of
    ``os.environ.get("TORCH_COMMAND", "...")``), so ``f"pip install torch=={TORCH_VERSION}"`` reads as written."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    names = _string_names(tree)
    branch = _branch_targets(tree)
    out: list[Record] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            out += _constant(node.targets[0].id, node.value, file, names)
        value = _render(node, names) if isinstance(node, (ast.Constant, ast.JoinedStr, ast.BinOp)) else \
            _argv(node, names) if isinstance(node, (ast.List, ast.Tuple)) else None
        if value is None:
            continue
        line = getattr(node, "lineno", None)
        for m in INSTALL.finditer(value):
            out += read_command(m.group(0), file, line)
        if not INSTALL.search(value):
            out += index_records(value, file, line, "command")
        if _REQ_FILE.fullmatch(value.strip()):
            out.append(Record(file, line, "requirements", value.strip(), "command", value.strip()))
    return list(dict.fromkeys(_targeted(r, branch) for r in out))


def _targeted(r: Record, branch: dict[int, str]) -> Record:
    target = branch.get(r.line or 0)
    return Record(r.file, r.line, r.field, r.value, r.kind, r.seen, target) if target and r.target == "any" else r


def _test_words(test: ast.AST) -> list[str]:
    """The strings an ``if`` test compares with; a variable's or attribute's name only when there are none."""
    words = [w.value for w in ast.walk(test) if isinstance(w, ast.Constant) and isinstance(w.value, str)]
    if words:
        return words
    return [w.id for w in ast.walk(test) if isinstance(w, ast.Name)] + \
        [w.attr for w in ast.walk(test) if isinstance(w, ast.Attribute)]


def _branch_target(node: ast.If) -> str | None:
    """The one machine a branch serves; None for none, or a branch for several machines ("win" or "linux")."""
    from ..files import target_of_name

    targets = list(dict.fromkeys(t for t in (target_of_name(w + ".x") for w in _test_words(node.test)) if t != "any"))
    return targets[0] if len(targets) == 1 else None


def _branch_targets(tree: ast.AST) -> dict[int, str]:
    """line -> the machine an ``if`` branch serves, from the words of its test (``if gpu_choice == "AMD":``,
    ``if args.use_ipex:``, ``elif gpu in ["APPLE", "NONE"]:``): an installer's per-GPU alternatives."""
    out: dict[int, str] = {}
    ifs = sorted((n for n in ast.walk(tree) if isinstance(n, ast.If)), key=lambda n: n.lineno)
    for node in ifs:                                   # outer first, so an inner branch overrides
        target = _branch_target(node)
        if target is None:
            continue
        for stmt in node.body:
            for line in range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1):
                out[line] = target
    return out


_INDEX = re.compile(r"(?:^|--(?:extra-)?index-url[ =]|\s)(https?://\S*/whl/(?:cpu|cu\d{3}|rocm[\d.]+))/?(?:\s|$)")


def index_records(value: str, file: str, line: int | None, kind: str) -> list[Record]:
    """A torch index URL in a string (``"--index-url https://download.pytorch.org/whl/cu128"``) -> its tier."""
    out = []
    for m in _INDEX.finditer(value.strip()):
        tier = tier_from_url(m.group(1))
        if tier:
            out.append(Record(file, line, "cuda", tier, kind, value.strip()))
    return out
_REQ_FILE = re.compile(r"[\w./-]*requirements[\w.-]*\.txt")


def _string_names(tree: ast.AST) -> dict[str, str]:
    """NAME -> its string value, for assignments of a constant, an f-string of known names, or
    ``os.environ.get("X", default)`` / ``os.getenv("X", default)`` (the default is what runs)."""
    names: dict[str, str] = {}
    for _round in range(2):
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                value = _render(node.value, names)
                if value is not None:
                    names.setdefault(node.targets[0].id, value)
    return names


def _render(node: ast.AST, names: dict[str, str]) -> str | None:
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.Name):
        return names.get(node.id)
    if isinstance(node, ast.JoinedStr):
        parts = []
        for piece in node.values:
            value = _render(piece.value if isinstance(piece, ast.FormattedValue) else piece, names)
            if value is None:
                return None
            parts.append(value)
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _render(node.left, names), _render(node.right, names)
        return left + right if left is not None and right is not None else None
    if isinstance(node, ast.Call) and len(node.args) == 2 and _is_env_get(node.func):
        return _render(node.args[1], names)
    return None


def _argv(node: ast.List | ast.Tuple, names: dict[str, str]) -> str | None:
    """``[sys.executable, "-m", "pip", "install", "torch==2.0.1+cu118", "--index-url", URL]`` as one command line
    (the parts it cannot read, such as ``sys.executable``, are left out)."""
    parts = [p for p in (_render(e, names) for e in node.elts) if p is not None]
    return " ".join(parts) if "install" in parts and any(p.startswith("pip") for p in parts) else None


def _is_env_get(func: ast.expr) -> bool:
    return isinstance(func, ast.Attribute) and func.attr in ("get", "getenv") and \
        ((isinstance(func.value, ast.Name) and func.value.id == "os") or
         (isinstance(func.value, ast.Attribute) and func.value.attr == "environ"))


def _constant(name: str, value: ast.expr, file: str, names: dict[str, str]) -> list[Record]:
    field = _CONSTANTS.get(name.upper())
    text = _render(value, names)
    if field is None or text is None:
        return []
    text, line = text.strip(), value.lineno
    seen = f"{name} = {text!r}"
    if field == "version":
        return requirement_records(f"torch=={text.lstrip('=v')}", file, line, "command", seen)
    if field == "python":
        return python_records(text, file, line, "command", seen)
    tier = tier_or_none(text)
    return [Record(file, line, "cuda", tier, "command", seen)] if tier else []


def read_shell_script(text: str, file: str) -> list[Record]:
    """pip/conda lines of a ``.sh``/``.bat``/``.cmd``/``.ps1`` (comments skipped, continuations joined)."""
    text = re.sub(r"[\\^`]\r?\n", " ", text)
    out: list[Record] = []
    for no, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith(("#", "::", "REM ", "rem ")):
            continue
        for m in INSTALL.finditer(line):
            out += read_command(m.group(0), file, no)
        if TORCH_BACKEND_VAR.search(line) and not INSTALL.search(line):
            out += read_command(line, file, no)
    return out
