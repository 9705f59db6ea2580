"""The package's layers import downward only.

Each top-level part of kgtool has a layer; a module may import from its own
layer or a lower one, never from a higher one. Imports inside functions count
too (lazy imports are still dependencies).
"""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "kgtool"

LAYERS = {
    "errors": 0, "config": 0,
    "core": 1,
    "graph": 2, "models": 2,
    "ingest": 3, "retrieve": 3, "resolve": 3,
    "reason": 4,
    "eval": 5, "interrupt": 5, "health": 5,
    "api": 6,
    "cli": 7, "__init__": 7, "__main__": 7,
}


def layer_of(module: str) -> int:
    parts = module.split(".")
    assert parts[0] == "kgtool", module
    top = parts[1] if len(parts) > 1 else "__init__"
    assert top in LAYERS, f"kgtool.{top} has no layer in tests/test_layers.py: give it one"
    return LAYERS[top]


def kgtool_imports(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and node.module.startswith("kgtool"):
            if node.module == "kgtool":  # `from kgtool import x` names a submodule or the package root
                for alias in node.names:
                    yield node.lineno, f"kgtool.{alias.name}"
            else:
                yield node.lineno, node.module
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("kgtool"):
                    yield node.lineno, alias.name


def module_name(path: Path, root: Path) -> str:
    rel = path.relative_to(root.parent).with_suffix("")
    return ".".join(rel.parts)


def violations(root: Path):
    for path in sorted(root.rglob("*.py")):
        mine = module_name(path, root)
        for line, target in kgtool_imports(path):
            if layer_of(target) > layer_of(mine):
                yield f"{path.relative_to(root.parent)}:{line}: {mine} imports {target} (a higher layer)"


def test_no_module_imports_a_layer_above_its_own():
    found = list(violations(PACKAGE))
    assert not found, "imports against the layering:\n" + "\n".join(found)


def test_every_part_of_the_package_has_a_layer():
    for child in PACKAGE.iterdir():
        if child.name.startswith((".", "__pycache__")) or child.name in ("cypher", "data"):
            continue
        if child.is_dir() or child.suffix == ".py":
            layer_of(f"kgtool.{child.stem}")


def test_the_check_catches_an_upward_import(tmp_path):
    fake = tmp_path / "kgtool"
    (fake / "retrieve").mkdir(parents=True)
    (fake / "retrieve" / "x.py").write_text("def f():\n    from kgtool.reason.trace import TraceRecorder\n")
    (fake / "core").mkdir()
    (fake / "core" / "y.py").write_text("from kgtool.errors import KgToolError\n")
    found = list(violations(fake))
    assert len(found) == 1 and "kgtool.retrieve.x imports kgtool.reason.trace" in found[0]
