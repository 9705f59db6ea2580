"""Named Cypher: every file parses on the real server; no Cypher text in Python."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from kgtool.graph import queries

PACKAGE = Path(__file__).resolve().parent.parent / "kgtool"
# a string that starts a Cypher clause and goes on like one
CYPHER_SHAPE = re.compile(
    r"\b(MATCH|OPTIONAL MATCH|MERGE|CREATE|UNWIND|DETACH DELETE|CALL\s*\{|SET\s+\w+\.)\s*[\(\$\w{]"
)


def test_every_statement_has_a_header():
    names = queries.all_names()
    assert "schema" in names and "ping" in names
    for name in names:
        q = queries.get(name)
        assert q.text.lstrip().startswith("//"), f"{name}: no header comment"
        assert "params" in q.text.split("\n//", 1)[0].lower() or any(
            line.lower().startswith("// params") for line in q.text.splitlines()
        ), f"{name}: header does not list its params"
        missing = set(q.params) - set(q.declared_params) - {"dimension"}
        assert not missing, f"{name}: parameters used but not listed in the header: {missing}"


def test_every_statement_parses_on_the_server(kg_session):
    planned = []
    with kg_session.db.session() as session:
        for name in queries.all_names():
            for statement in queries.get(name).statements():
                statement = statement.replace("$dimension", "384")
                if statement.upper().startswith(("CREATE CONSTRAINT", "CREATE INDEX", "CREATE FULLTEXT", "CREATE VECTOR")):
                    continue  # schema commands cannot be EXPLAINed; db init runs them in other tests
                summary = session.run("EXPLAIN " + statement).consume()  # a syntax error raises here
                assert summary.plan, f"{name}: the server returned no plan"
                planned.append(name)
    assert {"hop/candidates", "hop/record_step", "trace/record_verdict", "trace/finish_run"} <= set(planned)


def test_schema_is_idempotent(kg_session):
    first = kg_session.init_schema()
    assert kg_session.init_schema() == first
    names = {r["name"] for r in kg_session.db.read("admin/constraints")}
    assert {"entity_id", "fact_id", "edit_id", "passage_id", "question_id", "run_id", "step_id"} <= names
    rows = {r["name"]: r for r in kg_session.db.read("admin/indexes")}
    assert rows["relation_embedding"]["type"] == "VECTOR"
    for name in ("entity_names", "fact_evidence"):
        # analysts' indexes: updated after commit, off the ingest path
        assert rows[name]["type"] == "FULLTEXT" and rows[name]["eventually_consistent"] is True


def _string_literals(path: Path):
    """Every string constant in a module except docstrings (help text may show examples)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0].value))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            yield node.lineno, node.value


def test_no_cypher_text_outside_the_cypher_folder():
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        for line, literal in _string_literals(path):
            if CYPHER_SHAPE.search(literal):
                offenders.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {literal[:60]!r}")
    assert not offenders, "Cypher text in Python (move it to kgtool/cypher/):\n" + "\n".join(offenders)


def test_the_detector_catches_cypher(tmp_path):
    sample = tmp_path / "x.py"
    sample.write_text('Q = "MATCH (n:Entity) RETURN n"\nR = "a match for you"\n')
    hits = [lit for _, lit in _string_literals(sample) if CYPHER_SHAPE.search(lit)]
    assert hits == ["MATCH (n:Entity) RETURN n"]


def test_unknown_statement_is_a_clear_error():
    from kgtool.errors import QueryNotFoundError

    with pytest.raises(QueryNotFoundError, match="no Cypher statement named 'nope'"):
        queries.get("nope")
