#!/usr/bin/env python3
"""Print the import graph between the units of torchenv (subpackages and top-level modules), and any cycles in it.

    python tools/importgraph.py            # edges and cycles; exit 1 when there is a cycle
    python tools/importgraph.py --dot      # Graphviz output of the same graph

Why: each stage of the pipeline (intent -> probe -> resolve -> backends -> lock -> verify) is meant to depend only on
the floors below it. A cycle between packages means two stages cannot be understood, tested or replaced apart.
A top-level module (``errors``, ``ui``, ``cli``) is a unit of its own: ``errors`` importing ``sources`` while
``sources`` imports ``errors`` is the same knot as between two packages. The package's ``__init__`` (the public
API, which reaches every stage) is the unit ``torchenv``.
Imports inside functions count (they are still a dependency of the design); imports under ``if TYPE_CHECKING:`` do
not (they vanish at run time and exist only for annotations).
"""
from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterator
from pathlib import Path

TOP = "torchenv"


def unit_of(module: str, units: set[str]) -> str | None:
    """`torchenv.flows.up` -> `install`, `torchenv.errors` -> `errors`; `torchenv` or a name defined in its
    ``__init__`` (`torchenv.__version__`) -> `torchenv`; None outside torchenv."""
    parts = module.split(".")
    if parts[0] != TOP:
        return None
    if len(parts) > 1 and parts[1] in units:
        return parts[1]
    return TOP


def units_of(src: Path) -> set[str]:
    """The subpackages and the top-level modules of torchenv (``__main__`` included: it imports ``cli``)."""
    base = src / TOP
    packages = {p.name for p in base.iterdir() if (p / "__init__.py").is_file()}
    modules = {p.stem for p in base.glob("*.py") if p.stem != "__init__"}
    return packages | modules


def module_name(path: Path, src: Path) -> str:
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def type_checking_nodes(tree: ast.AST) -> set[int]:
    """ids of every node under an `if TYPE_CHECKING:` block."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                skipped.update(id(sub) for sub in ast.walk(child))
    return skipped


def absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".")
    keep = len(base) - node.level + (1 if is_package else 0)
    return ".".join(base[:keep] + ([node.module] if node.module else []))


def imported_modules(path: Path, src: Path) -> Iterator[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    skipped = type_checking_nodes(tree)
    module = module_name(path, src)
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = absolute(node, module, path.name == "__init__.py")
            if base == TOP:   # `from torchenv import install` names a unit; `import __version__`, the top package
                yield from (f"{base}.{alias.name}" for alias in node.names)
            else:
                yield base


def package_edges(src: Path) -> dict[str, set[str]]:
    units = units_of(src)
    edges: dict[str, set[str]] = {}
    for path in sorted((src / TOP).rglob("*.py")):
        me = unit_of(module_name(path, src), units)
        for target in imported_modules(path, src):
            them = unit_of(target, units)
            if me is not None and them is not None and them != me:
                edges.setdefault(me, set()).add(them)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one unit (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(set(edges) | {t for ts in edges.values() for t in ts}):
        if node not in index:
            visit(node)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", type=Path, default=Path(__file__).resolve().parent.parent / "src")
    parser.add_argument("--dot", action="store_true", help="print the graph in Graphviz dot syntax")
    args = parser.parse_args(argv)
    edges = package_edges(args.src)
    if args.dot:
        print("digraph torchenv {")
        for me in sorted(edges):
            for them in sorted(edges[me]):
                print(f'  "{me}" -> "{them}";')
        print("}")
        return 0
    for me in sorted(edges):
        print(f"{me:>12} -> {', '.join(sorted(edges[me]))}")
    found = cycles(edges)
    for component in found:
        inner = [f"{a}->{b}" for a in component for b in sorted(edges.get(a, ())) if b in component]
        print(f"cycle: {' '.join(component)} | {', '.join(inner)}")
    print(f"{len(found)} package cycles")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
