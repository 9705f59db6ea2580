"""The analysts' console: reads work in three formats; writes are refused and change nothing."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from kgtool.cli import main


@pytest.fixture
def cli_env(neo4j_settings):
    return {
        "KGTOOL_HOME": str(neo4j_settings.home),
        "KGTOOL_NEO4J_PORT": str(neo4j_settings.neo4j_port),
        "KGTOOL_RUNTIME_DIR": str(neo4j_settings.runtime_dir),
        "NEO4J_URI": "",
    }


def run(cli_env, *args):
    result = CliRunner().invoke(main, list(args), env=cli_env, catch_exceptions=False)
    return result


def test_read_query_formats(kg, cli_env):
    r = run(cli_env, "cypher", "UNWIND [1, 2] AS x RETURN x, x * 10 AS y", "--format", "json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output) == [{"x": 1, "y": 10}, {"x": 2, "y": 20}]
    r = run(cli_env, "cypher", "RETURN $name AS name, $n AS n", "-p", "name=Zoë", "-p", 'n={"a": [1]}', "--format", "csv")
    assert r.exit_code == 0, r.output
    assert r.output.splitlines() == ["name,n", 'Zoë,"{""a"": [1]}"']
    r = run(cli_env, "cypher", "RETURN 1 AS one")
    assert r.exit_code == 0 and "one" in r.output and "1 row(s)" in r.output


def test_query_from_file(kg, cli_env, tmp_path):
    f = tmp_path / "q.cypher"
    f.write_text("// count entities\nMATCH (e:Entity) RETURN count(e) AS n\n")
    r = run(cli_env, "cypher", "-f", str(f), "--format", "json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output) == [{"n": 0}]


@pytest.mark.parametrize(
    "statement",
    [
        "CREATE (n:Intruder {x: 1}) RETURN n",
        "MERGE (n:Intruder {x: 1})",
        "MATCH (n) DETACH DELETE n",
        "CREATE INDEX intruder IF NOT EXISTS FOR (n:Intruder) ON (n.x)",
        "MATCH (e:Entity) SET e.hacked = true",
    ],
)
def test_writes_are_refused_and_leave_no_trace(kg, cli_env, statement):
    kg.db.write("admin/test_seed_entity", id="keep-me", name="Keep")
    r = run(cli_env, "cypher", statement)
    assert r.exit_code != 0
    assert "refused" in r.output
    st = kg.stats()
    assert st["nodes"].get("Intruder", 0) == 0
    keys, rows = kg.query("MATCH (e:Entity) RETURN e.id AS id, e.hacked AS hacked")
    assert rows == [{"id": "keep-me", "hacked": None}]
    names = {r["name"] for r in kg.db.read("admin/indexes")}
    assert "intruder" not in names


def test_bad_query_is_a_clear_error(kg, cli_env):
    r = run(cli_env, "cypher", "MATCH (n RETURN n")
    assert r.exit_code != 0 and "rejected the query" in r.output


def test_console_script_end_to_end(kg, cli_env):
    env = {**os.environ, **cli_env}
    env.pop("NEO4J_URI", None)
    out = subprocess.run([sys.executable, "-m", "kgtool.cli", "cypher", "RETURN 41 + 1 AS answer", "--format", "json"],
                         capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == [{"answer": 42}]
