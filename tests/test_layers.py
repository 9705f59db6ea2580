"""The package's layers import downward only.

Each top-level part of kgtool has a layer; a module may import from its own
layer or a lower one, never from a higher one. Inside reason/ the same holds
between its sub-layers (REASON_LAYERS): values and registries, question and
graph reading, role protocols, prompts, the trace, the run context, shared
steps, role implementations, per-method recorders, methods, the runner.
Imports inside functions count too (lazy imports are still dependencies), and
so do relative imports. The check fails when it scanned fewer modules than the
package holds.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "kgtool"

LAYERS = {
    "errors": 0, "config": 0,
    "core": 1,
    "graph": 2, "models": 2,
    "ingest": 3, "retrieve": 3, "resolve": 3,
    "reason": 4,
    "eval": 5, "interrupt": 5, "health": 5,
    "api": 6, "services": 6,
    "cli": 7, "__init__": 7, "__main__": 7,
}


# reason/'s sub-layers, lowest first; a module's sub-layer is that of its longest listed prefix
REASON_LAYERS = [
    # values, registries and pure helpers
    ("taxonomy", "services", "bandit", "lexicon", "trace_sections", "method_registry", "subquestions", "__init__",
     "reading.words", "offline_config"),
    # reading questions and the graph
    ("question", "relmatch", "relation_vocabulary", "segmatch", "graphview", "roles", "answer_kind", "kinds",
     "reading"),
    # role protocols and the types roles exchange
    ("agents.__init__", "agents.base", "agents.c2rag_base", "agents.reagent_base", "agents.safe_base",
     "agents.vog_base"),
    # prompt specs and reply schemas (the llm roles import them)
    ("prompts",),
    # the trace recorder and its page
    ("trace", "trace_html"),
    # one answer's context and the status rule
    ("context", "status", "abstain"),
    # the steps every method composes
    ("steps",),
    # role implementations and their factory
    ("agents",),
    # per-method state recorders
    ("recorders",),
    # the methods' control loops
    ("methods",),
    # the status rule's reading check: the question read with the offline agents' phrase matcher
    ("explains", "text_evidence"),
    # running a method
    ("runner",),
]


def reason_layer(parts: list[str]) -> int:
    """The sub-layer of kgtool.reason.<parts>; an unlisted module is an error naming it."""
    best = None
    for rank, names in enumerate(REASON_LAYERS):
        for name in names:
            prefix = name.split(".")
            if parts[:len(prefix)] == prefix and (best is None or len(prefix) > best[0]):
                best = (len(prefix), rank)
    assert best is not None, f"kgtool.reason.{'.'.join(parts)} has no sub-layer in tests/test_layers.py: give it one"
    return best[1]


def layer_of(module: str) -> tuple[int, int]:
    parts = module.split(".")
    assert parts[0] == "kgtool", module
    top = parts[1] if len(parts) > 1 else "__init__"
    assert top in LAYERS, f"kgtool.{top} has no layer in tests/test_layers.py: give it one"
    sub = reason_layer(parts[2:] or ["__init__"]) if top == "reason" else 0
    return LAYERS[top], sub


def comparable(mine: tuple[int, int], target: tuple[int, int], mine_top: str, target_top: str) -> bool:
    """Does importing target break the layering? Sub-layers count only inside reason/."""
    if mine[0] != target[0] or mine_top != target_top:
        return target[0] > mine[0]
    return target[1] > mine[1]


def kgtool_imports(path: Path, module: str):
    """(line, imported module) for every import of kgtool code, relative ones resolved against `module`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("kgtool"):
                continue
            if target == "kgtool" or not node.module:  # `from kgtool import x`, `from . import x`: submodules
                for alias in node.names:
                    yield node.lineno, f"{target}.{alias.name}"
            else:
                yield node.lineno, target
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("kgtool"):
                    yield node.lineno, alias.name


def module_name(path: Path, root: Path) -> str:
    rel = path.relative_to(root.parent).with_suffix("")
    return ".".join(rel.parts)


def violations(root: Path, scanned: list[str] | None = None):
    for path in sorted(root.rglob("*.py")):
        mine = module_name(path, root)
        if scanned is not None:
            scanned.append(mine)
        for line, target in kgtool_imports(path, mine):
            top_of = lambda m: (m.split(".") + ["__init__"])[1]  # noqa: E731
            if comparable(layer_of(mine), layer_of(target), top_of(mine), top_of(target)):
                yield f"{path.relative_to(root.parent)}:{line}: {mine} imports {target} (a higher layer)"


def test_no_module_imports_a_layer_above_its_own():
    scanned: list[str] = []
    found = list(violations(PACKAGE, scanned))
    assert not found, "imports against the layering:\n" + "\n".join(found)
    # every module was looked at (a moved package root or a bad glob would pass silently otherwise)
    on_disk = sum(1 for _ in PACKAGE.rglob("*.py"))
    assert len(scanned) == on_disk and on_disk > 150, (len(scanned), on_disk)
    assert {"kgtool.api", "kgtool.reason.steps", "kgtool.reason.methods.care", "kgtool.cli.trace"} <= set(scanned)


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


def test_the_check_catches_an_upward_import_inside_reason_and_a_relative_one(tmp_path):
    fake = tmp_path / "kgtool" / "reason"
    (fake / "methods").mkdir(parents=True)
    (fake / "steps.py").write_text("from kgtool.reason.methods.care import Care\n")  # steps below methods
    (fake / "trace.py").write_text("from .context import RunContext\n")  # relative: trace below context
    (fake / "context.py").write_text("from .trace import TraceRecorder\n")  # downward: fine
    (fake / "methods" / "care.py").write_text("from ..steps import select_hop\nfrom .. import runner\n")
    (fake / "runner.py").write_text("")
    found = sorted(violations(tmp_path / "kgtool"))
    assert len(found) == 3, found
    assert "kgtool.reason.methods.care imports kgtool.reason.runner" in found[0]
    assert "kgtool.reason.steps imports kgtool.reason.methods.care" in found[1]
    assert "kgtool.reason.trace imports kgtool.reason.context" in found[2]


def test_the_graph_offers_every_service_a_run_uses():
    from kgtool.api import KnowledgeGraph
    from kgtool.reason.services import Services

    wanted = {name for name in vars(Services) if not name.startswith("_")} | set(Services.__annotations__)
    missing = [name for name in wanted if not any(name in vars(k) for k in KnowledgeGraph.__mro__)
               and name not in ("db", "settings")]
    assert not missing, missing
    import inspect
    assert {"db", "settings"} <= set(inspect.signature(KnowledgeGraph.__init__).parameters)


# a method runs no statement and reads no graph model but through ctx.services; a role is given a RoleEnv,
# and reads the graph only through the graph view's named reads (kgtool.reason.graphview.GraphView)
IN_METHODS = re.compile(r"\bctx\.(db|kg)\b|\brun_in\b")
IN_ROLES = re.compile(r"\bctx\.(db|kg|session|trace|budget|retriever)\b|\bdb\.(run_in|read|write)\b|\.run_in\(")


def graph_access_violations(root: Path, scanned: list[str] | None = None):
    """Lines of reason/methods and reason/agents that reach the graph around the layer meant for it."""
    for folder, pattern in (("methods", IN_METHODS), ("agents", IN_ROLES)):
        for path in sorted((root / "reason" / folder).rglob("*.py")):
            if scanned is not None:
                scanned.append(str(path))
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
                if pattern.search(line.split("#")[0]):
                    yield f"{path.relative_to(root.parent)}:{n}: {line.strip()}"


def test_methods_and_roles_reach_the_graph_only_through_steps_recorders_and_services():
    """A method composes steps and recorders (no database calls of its own) and reads the graph's models
    through `ctx.services`; a role is built from a RoleEnv, so it cannot reach the run's database session
    or the API-layer graph through a run context, and it runs no Cypher itself: its reads are the graph
    view's (GraphView.passage_entities, .fact_in_scope, ...)."""
    scanned: list[str] = []
    found = list(graph_access_violations(PACKAGE, scanned))
    assert not found, "\n".join(found)
    assert len(scanned) > 30, len(scanned)


def test_the_graph_access_check_catches_a_role_running_cypher(tmp_path):
    fake = tmp_path / "kgtool" / "reason"
    (fake / "agents" / "offline").mkdir(parents=True)
    (fake / "methods").mkdir()
    (fake / "agents" / "offline" / "a.py").write_text(
        "def f(self, db):\n    rows = self.db.run_in(self.session, 'x/y', id=1)\n")
    (fake / "agents" / "offline" / "b.py").write_text("def f(db):\n    return db.read('x/y')  # a plain read\n")
    (fake / "agents" / "c.py").write_text("def f(s, x):\n    return s.run_in(x)\n")
    (fake / "agents" / "d.py").write_text("def f(view):\n    return view.fact_in_scope('f1')  # db.read( in a comment\n")
    (fake / "methods" / "m.py").write_text("def run(ctx):\n    return ctx.db\n")
    found = sorted(graph_access_violations(tmp_path / "kgtool"))
    assert len(found) == 4, found
    assert [f.split(":")[0] for f in found] == ["kgtool/reason/agents/c.py", "kgtool/reason/agents/offline/a.py",
                                                "kgtool/reason/agents/offline/b.py", "kgtool/reason/methods/m.py"]


# Implementations of roles a method must get through the role factory (kgtool.reason.agents.factory:
# ctx.role, or its functions), never by importing them: which family answers is the run's choice.
IMPLEMENTATIONS = ("kgtool.reason.agents.offline", "kgtool.reason.agents.llm")


def imported_modules(path: Path, module: str):
    """(line, name) for every kgtool name an import names: the module, and module.name for `from m import
    name` (a submodule, when it is one)."""
    for line, target in kgtool_imports(path, module):
        yield line, target
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            base = package[:len(package) - (node.level - 1)] if node.level else []
            target = ".".join(base + [node.module])
            if target.startswith("kgtool"):
                for alias in node.names:
                    yield node.lineno, f"{target}.{alias.name}"


def implementation_imports(root: Path, scanned: list[str] | None = None):
    """Imports of an agent family's implementations from reason/methods (lazy ones too)."""
    for path in sorted((root / "reason" / "methods").rglob("*.py")):
        mine = module_name(path, root)
        if scanned is not None:
            scanned.append(mine)
        reported = set()  # one report a line: `from m import name` names m and m.name
        for line, target in imported_modules(path, mine):
            if line in reported:
                continue
            if any(target == name or target.startswith(name) and target[len(name)] in "._" for name in IMPLEMENTATIONS):
                reported.add(line)
                yield f"{path.relative_to(root.parent)}:{line}: {mine} imports {target}"


def test_methods_get_role_implementations_only_through_the_role_factory():
    scanned: list[str] = []
    found = list(implementation_imports(PACKAGE, scanned))
    assert not found, "methods importing an agent family's implementation:\n" + "\n".join(found)
    assert {"kgtool.reason.methods.reagent", "kgtool.reason.methods.c2rag", "kgtool.reason.methods.bm25_reader"} \
        <= set(scanned)


def test_the_implementation_check_catches_a_method_importing_one(tmp_path):
    fake = tmp_path / "kgtool" / "reason" / "methods"
    fake.mkdir(parents=True)
    (fake / "a.py").write_text("from kgtool.reason.agents.offline.text_reader import text_answer\n")
    (fake / "b.py").write_text("def run():\n    from ..agents.llm_safe import LLMSafe\n")  # lazy and relative
    (fake / "c.py").write_text("from kgtool.reason.agents import offline\n")
    (fake / "d.py").write_text("from kgtool.reason.agents.factory import text_answer\n"
                               "from kgtool.reason.agents.safe_base import Feedback\n"
                               "from kgtool.reason.reading.form import answer_form\n")
    found = sorted(implementation_imports(tmp_path / "kgtool"))
    assert len(found) == 3, found
    assert "kgtool.reason.methods.a imports kgtool.reason.agents.offline.text_reader" in found[0]
    assert "kgtool.reason.methods.b imports kgtool.reason.agents.llm_safe" in found[1]
    assert "kgtool.reason.methods.c imports kgtool.reason.agents.offline" in found[2]


def test_a_role_factory_is_given_a_role_env_not_the_run():
    from kgtool.core.registry import Registry
    from kgtool.core.scope import Scope
    from kgtool.reason.agents.base import AgentSet
    from kgtool.reason.context import RoleEnv, RunContext

    given = []
    roles = Registry("agent role")
    roles.register("offline.probe", lambda env: given.append(env) or object())

    class Services:  # what a role may read of the graph's services
        catalog = object()

    agents = AgentSet("offline", None, None, None, None, view=object())
    ctx = RunContext("db", "session", Scope(), agents, None, "trace", lambda name: None, 1.5,
                     services=Services(), roles=roles)
    assert ctx.role("probe") is ctx.role("probe")  # built once per answer
    (env,) = given
    assert isinstance(env, RoleEnv) and env.services is ctx.services
    assert env.graph.session == "session" and env.graph.view is agents.view
    assert not any(hasattr(env, name) for name in ("trace", "budget", "retriever", "kg", "db"))
