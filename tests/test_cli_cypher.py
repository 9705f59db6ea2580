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


# --- the allow-list: only reads of the graph ------------------------------------------------
class _Listener:
    """A local HTTP server that records every request, to prove the database never called it."""

    def __init__(self):
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        hits = self.hits = []

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                hits.append(self.path)
                body = b"a,b\n1,2\n"
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/x.csv"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def listener():
    server = _Listener()
    yield server
    server.close()


def test_load_csv_is_refused_by_the_console_and_by_the_server(kg, cli_env, listener):
    r = run(cli_env, "cypher", f"LOAD CSV FROM '{listener.url}' AS l RETURN l")
    assert r.exit_code == 2 and "refused: LOAD CSV" in r.output, r.output
    r = run(cli_env, "cypher", "LOAD CSV FROM 'http://127.0.0.1:9/x' AS l RETURN l")
    assert r.exit_code == 2 and "refused: LOAD CSV" in r.output, r.output
    # even a client that bypasses the console (a plain write session) cannot make the server fetch
    from neo4j.exceptions import ClientError

    for url in (listener.url, "file:///etc/passwd"):
        with kg.db.session() as session, pytest.raises(ClientError, match="blocked|allow_csv_import_from_file_urls"):
            session.run(f"LOAD CSV FROM '{url}' AS l RETURN l").consume()
    assert listener.hits == []


def test_terminate_transactions_is_refused_and_another_clients_write_commits(kg, cli_env):
    with kg.db.session() as session:
        tx = session.begin_transaction()
        tx.run("CREATE (:Intruder {x: 1})").consume()
        txid = tx.run("CALL db.ping() YIELD success RETURN success").single()  # keeps the tx open and used
        assert txid is not None
        for statement in ("TERMINATE TRANSACTIONS 'neo4j-transaction-1'", "SHOW TRANSACTIONS",
                          "SHOW TRANSACTIONS YIELD transactionId, currentQuery RETURN transactionId, currentQuery"):
            r = run(cli_env, "cypher", statement)
            assert r.exit_code == 2, (statement, r.output)
            assert "administration command" in r.output
        tx.commit()
    keys, rows = kg.query("MATCH (n:Intruder) RETURN count(n) AS n")
    assert rows == [{"n": 1}]


@pytest.mark.parametrize("statement, reason", [
    ("SHOW USERS", "administration command"),
    ("SHOW DATABASES", "administration command"),
    ("SHOW SETTINGS", "administration command"),
    ("CREATE USER mallory SET PASSWORD 'secret-password-1'", "administration command"),
    ("CALL dbms.listConfig()", "procedure dbms.listConfig is not one the console allows"),
    ("CALL db.createLabel('Intruder')", "procedure db.createLabel is not one the console allows"),
    ("CREATE INDEX i2 IF NOT EXISTS FOR (n:Intruder) ON (n.x)", "changes the schema"),
    ("MATCH (n) CALL (n) { SET n.x = 1 } IN TRANSACTIONS RETURN n", "writes"),
])
def test_refusals_say_why(kg, cli_env, statement, reason):
    r = run(cli_env, "cypher", statement)
    assert r.exit_code == 2, r.output
    assert reason in r.output and "Traceback" not in r.output


@pytest.mark.parametrize("statement, column", [
    ("MATCH (n) RETURN count(n) AS n", "n"),
    ("CALL dbms.components() YIELD name RETURN name", "name"),
    ("CALL db.labels() YIELD label RETURN count(label) AS labels", "labels"),
    ("SHOW INDEXES YIELD name RETURN count(name) AS indexes", "indexes"),
    ("CALL db.index.fulltext.queryNodes('entity_names', 'keep') YIELD node RETURN count(node) AS hits", "hits"),
    ("MATCH p = shortestPath((a:Entity)-[*..3]-(b:Entity)) WHERE a <> b RETURN count(p) AS paths", "paths"),
])
def test_reads_and_read_only_procedures_still_work(kg, cli_env, statement, column):
    r = run(cli_env, "cypher", statement, "--format", "json")
    assert r.exit_code == 0, r.output
    rows = json.loads(r.output)
    assert len(rows) >= 1 and column in rows[0]


def test_explain_prints_the_plan_without_running(kg, cli_env):
    r = run(cli_env, "cypher", "EXPLAIN MATCH (e:Entity) RETURN e.name AS name")
    assert r.exit_code == 0, r.output
    assert "plan (EXPLAIN" in r.output and "NodeByLabelScan" in r.output and "ProduceResults" in r.output
    assert "row(s)" not in r.output
    r = run(cli_env, "cypher", "EXPLAIN CREATE (n:Intruder)")
    assert r.exit_code == 2 and "refused" in r.output
    assert kg.stats()["nodes"].get("Intruder", 0) == 0


def test_profile_prints_rows_and_the_profiled_plan(kg, cli_env):
    kg.db.write("admin/test_seed_entity", id="p1", name="Profiled")
    r = run(cli_env, "cypher", "// a comment first\nPROFILE MATCH (e:Entity) RETURN e.name AS name")
    assert r.exit_code == 0, r.output
    assert "Profiled" in r.output and "1 row(s)" in r.output
    assert "profile:" in r.output and "db hits=" in r.output and "NodeByLabelScan" in r.output
    r = run(cli_env, "cypher", "PROFILE MERGE (n:Intruder {x: 1})")
    assert r.exit_code == 2 and "refused" in r.output
    assert kg.stats()["nodes"].get("Intruder", 0) == 0


def test_every_analyst_query_passes_the_policy(kg):
    from kgtool.graph import console, queries

    root = queries.cypher_root() / "analyst"
    files = sorted(root.glob("*.cypher"))
    assert files
    with kg.db.session(read_only=True) as session:
        for path in files:
            q = queries.load_file(path)
            params = {name: None for name in q.params}
            summary = session.run("EXPLAIN " + q.text, params).consume()
            verdict = console.judge(summary.query_type, summary.plan)
            assert verdict.allowed, (path.name, verdict.reason)


def test_unknown_operators_are_refused_not_assumed_safe():
    from kgtool.graph.console import judge

    plan = {"operatorType": "ProduceResults@neo4j", "args": {}, "children": [
        {"operatorType": "SomeFutureOperator@neo4j", "args": {}, "children": []}]}
    verdict = judge("r", plan)
    assert not verdict.allowed and "SomeFutureOperator" in verdict.reason
    assert not judge("r", None).allowed
