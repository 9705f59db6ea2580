"""No import cycle inside kgtool/reason/ or kgtool/retrieve/.

Two modules that import each other are one module cut in two: neither can be
read, tested or moved without the other. Every import counts, wherever it
stands: at module level, inside a function (a lazy import is still a
dependency, one that only breaks later) and under `if TYPE_CHECKING:` (the
types a module is written against are part of what it depends on). `from
package import name` counts as importing the submodule when `name` is one; a
package's __init__ is not counted as imported by its submodules' importers
(Python runs it, but what it re-exports is not what they depend on).
"""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "kgtool"
CHECKED = ("kgtool.reason", "kgtool.retrieve")


def module_name(path: Path, root: Path) -> str:
    return ".".join(path.relative_to(root.parent).with_suffix("").parts)


def imports_of(path: Path, module: str, modules: set[str]) -> set[str]:
    """The modules of `modules` that `path` (the module `module`) imports, relative imports resolved."""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found: set[str] = set()

    def add(name: str) -> None:
        if name in modules:
            found.add(name)
        elif f"{name}.__init__" in modules:
            found.add(f"{name}.__init__")

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - (node.level - 1)] if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            for alias in node.names:
                if f"{target}.{alias.name}" in modules or f"{target}.{alias.name}.__init__" in modules:
                    add(f"{target}.{alias.name}")  # a submodule
                else:
                    add(target)
    found.discard(module)
    return found


def import_graph(root: Path) -> dict[str, set[str]]:
    paths = {module_name(p, root): p for p in sorted(root.rglob("*.py"))}
    modules = set(paths)
    return {m: imports_of(p, m, modules) for m, p in paths.items()}


def cycles(graph: dict[str, set[str]], within: tuple[str, ...] = CHECKED) -> list[list[str]]:
    """The strongly connected groups (two modules or more) of the imports among the modules under `within`,
    each sorted, found by Tarjan's algorithm (iteratively: no recursion limit)."""
    inside = {m for m in graph if any(m == p or m.startswith(p + ".") for p in within)}
    edges = {m: sorted(graph[m] & inside) for m in sorted(inside)}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    for start in edges:
        if start in index:
            continue
        work = [(start, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            if i < len(edges[node]):
                work.append((node, i + 1))
                nxt = edges[node][i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    out.append(sorted(group))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return sorted(out)


def test_no_import_cycle_inside_reason_or_retrieve():
    graph = import_graph(PACKAGE)
    found = cycles(graph)
    assert not found, "modules that import each other:\n" + "\n".join(" <-> ".join(g) for g in found)
    # the scan saw the packages (a moved root or a bad glob would pass silently otherwise)
    assert sum(m.startswith("kgtool.reason.") for m in graph) > 80
    assert "kgtool.reason.agents.offline.structured" in graph["kgtool.reason.agents.offline.planner"]
    assert "kgtool.retrieve.scoring" in graph["kgtool.retrieve.passages"]


def test_the_check_catches_a_cycle_through_a_lazy_and_a_type_only_import(tmp_path):
    fake = tmp_path / "kgtool"
    (fake / "reason" / "agents").mkdir(parents=True)
    (fake / "retrieve").mkdir()
    (fake / "other").mkdir()
    (fake / "reason" / "__init__.py").write_text("")
    (fake / "reason" / "a.py").write_text("from kgtool.reason.agents import b\n")  # a submodule by name
    (fake / "reason" / "agents" / "__init__.py").write_text("")
    (fake / "reason" / "agents" / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .c import C\n")
    (fake / "reason" / "agents" / "c.py").write_text("def f():\n    from kgtool.reason.a import x\n")
    (fake / "reason" / "d.py").write_text("from kgtool.reason import a\n")  # into the cycle, not part of it
    (fake / "retrieve" / "p.py").write_text("from . import q\n")
    (fake / "retrieve" / "q.py").write_text("import kgtool.retrieve.p\n")
    (fake / "other" / "x.py").write_text("from kgtool.other import y\n")  # outside the checked packages
    (fake / "other" / "y.py").write_text("from kgtool.other import x\n")
    found = cycles(import_graph(fake))
    assert found == [["kgtool.reason.a", "kgtool.reason.agents.b", "kgtool.reason.agents.c"],
                     ["kgtool.retrieve.p", "kgtool.retrieve.q"]], found
