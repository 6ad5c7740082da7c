"""No import cycles in `src/leap`: the graph of module-level imports (not imports inside functions, nor
under ``if TYPE_CHECKING:``) is acyclic. A failure names the cycle."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"


def module_name(path: Path, src: Path = SRC) -> str:
    parts = list(path.relative_to(src).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def top_level_imports(tree: ast.Module, name: str, is_pkg: bool) -> set[str]:
    """Modules imported at module level (also in top-level ``if``/``try`` blocks, not TYPE_CHECKING)."""
    found: set[str] = set()

    def visit(stmts):
        for node in stmts:
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:  # relative: resolve against this module's package
                    pkg = name.split(".") if is_pkg else name.split(".")[:-1]
                    base = ".".join(pkg[: len(pkg) - node.level + 1] + ([node.module] if node.module else []))
                else:
                    base = node.module or ""
                found.add(base)
                found.update(f"{base}.{a.name}" for a in node.names)  # `from pkg import submodule`
            elif isinstance(node, ast.If):
                if not _is_type_checking(node.test):
                    visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
                for h in node.handlers:
                    visit(h.body)
                visit(node.orelse)
                visit(node.finalbody)
            elif isinstance(node, ast.With):
                visit(node.body)

    visit(tree.body)
    return found


def import_graph(src: Path = SRC) -> dict[str, set[str]]:
    files = {module_name(p, src): p for p in sorted((src / "leap").rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        deps = top_level_imports(ast.parse(path.read_text()), name, path.name == "__init__.py")
        graph[name] = {d for d in deps if d in files and d != name}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle as a list of modules (first == last), or None."""
    state: dict[str, int] = {}  # 1: on the stack, 2: done
    stack: list[str] = []

    def dfs(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (cyc := dfs(nxt)):
                return cyc
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cyc := dfs(node)):
            return cyc
    return None


def test_the_checker_finds_a_planted_cycle(tmp_path):
    pkg = tmp_path / "leap"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "a.py").write_text("from leap.sub import b\n")
    (pkg / "sub" / "b.py").write_text("def f():\n    import leap.sub.c\n")  # inside a function: not an edge
    (pkg / "sub" / "c.py").write_text("from . import a\n")
    graph = import_graph(tmp_path)
    assert find_cycle(graph) is None
    (pkg / "sub" / "b.py").write_text("from .c import x\n")
    assert find_cycle(import_graph(tmp_path)) == ["leap.sub.a", "leap.sub.b", "leap.sub.c", "leap.sub.a"]


def test_src_leap_has_no_import_cycles():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)
