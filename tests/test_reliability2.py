"""Probe suite of issue 29: nothing lost, nothing stuck.

Each test here failed on 61fa433: duplicates in a document ingest, questions that
hit a node deleted under them, interruption, driver log noise, oversized input,
user.conf keys in another case, a failed start without its reason, a console
query without a time limit, passages left without embeddings. Real parts only:
a Neo4j started by kgtool's own code, real signals, real concurrent writers.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgtool.errors import ConfigError, ServerError


# --------------------------------------------------------------------------- user.conf and start failures


def test_user_conf_keys_are_read_as_neo4j_reads_them(tmp_path):
    from kgtool.graph.user_conf import read_user_conf

    conf = tmp_path / "user.conf"
    conf.write_text("  SERVER.DEFAULT_LISTEN_ADDRESS = 0.0.0.0\n")
    with pytest.raises(ConfigError, match=r"user.conf:1: SERVER.DEFAULT_LISTEN_ADDRESS \(read by Neo4j as "
                                          r"server.default_listen_address\) is refused"):
        read_user_conf(conf)
    conf.write_text("DB.Transaction.Timeout=30s\ndb.transaction.timeout = 10s\n")
    with pytest.raises(ConfigError, match="already set on line 1"):
        read_user_conf(conf)
    conf.write_text("  DB.Transaction.Timeout =  30s  \n")
    assert read_user_conf(conf) == [("db.transaction.timeout", "30s")]


def test_a_failed_start_quotes_the_new_log_lines_that_say_why(tmp_path):
    from helpers import own_server  # noqa: F401  (same runtime as the session server)
    import os

    from kgtool.config import Settings, default_home
    from kgtool.graph.server import LocalServer, free_port

    runtime = Path(os.environ.get("KGTOOL_RUNTIME_DIR") or default_home() / "runtime")
    settings = Settings(home=tmp_path / "home", neo4j_port=free_port(), runtime_dir=runtime, neo4j_heap="512m",
                        neo4j_pagecache="64m")
    server = LocalServer(settings)
    server.user_conf_file.parent.mkdir(parents=True, exist_ok=True)
    server.console_file.parent.mkdir(parents=True, exist_ok=True)
    server.console_file.write_text("an old line from an earlier start: ERROR something long gone\n")
    server.user_conf_file.write_text("db.transaction.timeout=not-a-duration\n")
    server.password_file.write_text("unused: the server stops at its config\n")  # skip the admin tool's own check
    try:
        with pytest.raises(ServerError) as failed:
            server.start(timeout=120)
    finally:
        server.stop()
    message = str(failed.value)
    assert "Why, from the server's log" in message, message
    assert "db.transaction.timeout" in message and "Missing numeric value" in message, message
    assert "long gone" not in message, message


# --------------------------------------------------------------------------- console time limit

SLOW_QUERY = "UNWIND range(1, 200000000) AS x WITH x WHERE x % 7 = 3 RETURN count(*) AS n"


def test_the_console_stops_a_query_at_its_time_limit_and_says_so(kg, neo4j_settings):
    import time

    from click.testing import CliRunner

    from helpers import env_for
    from kgtool.cli import main
    from kgtool.errors import DatabaseError

    t0 = time.monotonic()
    result = CliRunner().invoke(main, ["cypher", "--timeout", "1s", SLOW_QUERY], env=env_for(neo4j_settings))
    took = time.monotonic() - t0
    assert result.exit_code == 2, result.output
    assert "longer than the console's time limit of 1 s" in result.output, result.output
    assert took < 30, took
    # the default comes from the settings, and a quick query is untouched by it
    assert kg.db.console("RETURN 1 AS one").rows == [{"one": 1}]
    with pytest.raises(DatabaseError, match="time limit of 500 ms"):
        kg.db.console(SLOW_QUERY, timeout="500ms")


# --------------------------------------------------------------------------- duplicates in a document ingest

TWICE = '{"Anna Vale": ["Anna Vale is a painter.", " She was born in Lisbon."],\n' \
        ' "Anna Vale": ["Anna Vale is a sculptor from Porto."],\n' \
        ' "Rui Sol": ["Rui Sol is a poet."]}'


def test_a_title_twice_in_a_hotpotqa_corpus_is_never_lost_silently(tmp_path):
    from kgtool.ingest.docs import read_documents

    path = tmp_path / "corpus.json"
    path.write_text(TWICE, encoding="utf-8")
    merged = read_documents(path, "hotpotqa")
    anna = next(d for d in merged.documents if d.title == "Anna Vale")
    assert [p.text for p in anna.passages] == ["Anna Vale is a painter. She was born in Lisbon.",
                                               "Anna Vale is a sculptor from Porto."]
    assert len(merged.duplicates) == 1 and "merged" in merged.duplicates[0] and not merged.bad

    refused = read_documents(path, "hotpotqa", on_duplicate="error")
    anna = next(d for d in refused.documents if d.title == "Anna Vale")
    assert [p.text for p in anna.passages] == ["Anna Vale is a painter. She was born in Lisbon."]
    assert len(refused.bad) == 1
    assert "'Anna Vale'" in refused.bad[0].source and "already read at" in refused.bad[0].reason

    skipped = read_documents(path, "hotpotqa", on_duplicate="skip")
    assert len(skipped.duplicates) == 1 and "skipped" in skipped.duplicates[0] and not skipped.bad

    with pytest.raises(ConfigError, match="unknown duplicate policy"):
        read_documents(path, "hotpotqa", on_duplicate="overwrite")


def test_ingest_docs_counts_duplicates_and_keeps_both_texts(kg, neo4j_settings, tmp_path):
    from click.testing import CliRunner

    from helpers import env_for
    from kgtool.cli import main

    path = tmp_path / "corpus.json"
    path.write_text(TWICE, encoding="utf-8")
    out = tmp_path / "summary.json"
    result = CliRunner().invoke(main, ["ingest", "docs", str(path), "--format", "hotpotqa", "--json", str(out)],
                                env=env_for(neo4j_settings))
    assert result.exit_code == 0, result.output
    summary = json.loads(out.read_text())
    assert summary["documents"] == 2 and summary["passages"] == 3 and summary["duplicates"] == 1
    texts = {r["text"] for r in kg.query("MATCH (p:Passage) RETURN p.text AS text")[1]}
    assert "Anna Vale is a sculptor from Porto." in texts and any("painter" in t for t in texts)

    result = CliRunner().invoke(main, ["ingest", "docs", str(path), "--format", "hotpotqa", "--on-duplicate", "error"],
                                env=env_for(neo4j_settings))
    assert result.exit_code == 1 and "already read at" in result.output, result.output


# --------------------------------------------------------------------------- concurrent writers

# reading a node after it is gone: the server's EntityNotFound, as a statement racing a `kgtool delete` gets
# it ("Unable to load NODE ..."); here the deletion is the statement's own, so the error comes every time
READ_DELETED = "MATCH (n:ProbeNode) DETACH DELETE n WITH n RETURN n.name AS name"


def test_a_statement_that_meets_a_node_deleted_under_it_is_run_again(kg):
    from neo4j.exceptions import ClientError

    from kgtool.graph.db import retryable, retrying

    with kg.db.session() as session:
        session.run("CREATE (:ProbeNode {name: 'gone soon'})").consume()
        with pytest.raises(ClientError) as raced:
            session.run(READ_DELETED).consume()
        assert raced.value.code == "Neo.ClientError.Statement.EntityNotFound" and retryable(raced.value)
        attempts = []

        def statement():  # the first attempt meets the deleted node; the next one sees the graph as it is now
            attempts.append(1)
            query = READ_DELETED if len(attempts) == 1 else "MATCH (n:ProbeNode) RETURN n.name AS name"
            return [r.data() for r in session.run(query)]

        assert retrying(statement) == [{"name": "gone soon"}] and len(attempts) == 2
        # a statement that is wrong stays wrong: it is not run again
        attempts.clear()

        def wrong():
            attempts.append(1)
            session.run("RETURN 1 +").consume()

        with pytest.raises(ClientError):
            retrying(wrong)
        assert len(attempts) == 1


def test_one_failing_question_does_not_end_answer_many(sample_kg):
    from kgtool.eval.report import EvalReport, MethodRun, QuestionResult

    questions = ["Who is the performer of Hey Jude?", "\u200b\u200b", "Who is the performer of Hey Jude?"]
    answers = sample_kg.answer_many(questions, workers=2, agents="offline")
    assert [a.status == "failed" for a in answers] == [False, True, False]
    assert "empty" in answers[1].error
    results = [QuestionResult(str(i), a.question, a.answer, [], 0.0, 0.0, None, None, a.status, a.run_id, 0.0,
                              error=a.error) for i, a in enumerate(answers)]
    data = EvalReport("qa", "x", "jsonl", "offline", "all", [MethodRun("care", "offline", results, 1.0)]).as_dict()
    assert data["status"]["failed"] == 1
    assert any("question 1 failed" in note and "empty" in note for note in data["notes"])


# --------------------------------------------------------------------------- what a killed command leaves behind


def test_doctor_finds_stale_runs_unembedded_passages_and_leftover_perturbations_and_fixes_them(
        sample_kg, neo4j_settings, tmp_path):
    from click.testing import CliRunner

    from helpers import env_for
    from kgtool.cli import main

    kg = sample_kg
    # what `kill -9` leaves: a run opened two hours ago and never closed, a passage written but not embedded,
    # a perturbation an evaluation made for itself and never removed
    kg.db.write("trace/start_run", run_id="run-killed", question_id="q-killed", question="Who?", method="care",
                agents="offline", scope="all", perturbation=None, settings="{}", config="{}", owner="elsewhere:1")
    kg.query("MATCH (r:Run {id: 'run-killed'}) RETURN r.id")  # it is there
    with kg.db.session() as session:
        session.run("MATCH (r:Run {id: 'run-killed'}) SET r.started_at = datetime() - duration('PT2H')").consume()
        session.run("CREATE (:Document {id: 'doc:x', title: 'X'})-[:HAS_PASSAGE]->"
                    "(:Passage {id: 'doc:x#0', title: 'X', text: 'X is a town.'})").consume()
    pert = kg.perturb(drop=0.2, seed=1)
    kg.db.write("perturb/mark_temporary", id=pert)
    env = env_for(neo4j_settings)

    stats = CliRunner().invoke(main, ["db", "stats"], env=env)
    assert stats.exit_code == 0 and "1 passage(s) without an embedding" in stats.output, stats.output

    found = CliRunner().invoke(main, ["db", "doctor", "--json"], env=env)
    assert found.exit_code == 1, found.output
    report = json.loads(found.output)["found"]
    assert [r["id"] for r in report["stale_runs"]] == ["run-killed"]
    assert report["passages_without_embedding"] == 1 and report["passage_sample"] == ["doc:x#0"]
    assert [p["id"] for p in report["leftover_perturbations"]] == [pert]
    assert [r["id"] for r in kg.stale_runs(older_than=3600)] == ["run-killed"] and kg.stale_runs(older_than=3 * 3600) == []

    fixed = CliRunner().invoke(main, ["db", "doctor", "--fix"], env=env)
    said = " ".join(fixed.output.split())
    # every passage without an embedding is embedded, the edits' own passages included (as a docs ingest does)
    assert fixed.exit_code == 0 and "fixed: 1 run(s) closed as abandoned," in said, said
    assert "fact(s) embedded, 1 perturbation(s) removed" in said and " 0 passage(s)" not in said, said
    assert kg.query("MATCH (r:Run {id: 'run-killed'}) RETURN r.status AS s")[1] == [{"s": "abandoned"}]
    assert kg.health().ok
    again = CliRunner().invoke(main, ["db", "doctor"], env=env)
    assert again.exit_code == 0 and "nothing to mend" in again.output


# --------------------------------------------------------------------------- oversized input


def test_an_oversized_token_is_skipped_with_a_warning_naming_file_and_record(kg, tmp_path):
    from kgtool.errors import DatabaseError, DatabaseUnavailable, resume_advice

    giant = "Q" + "x" * 200_000
    path = tmp_path / "corpus.json"
    path.write_text(json.dumps({"Anna Vale": [f"Anna Vale met {giant} in Lisbon.", " Anna Vale paints."]}),
                    encoding="utf-8")
    summary = kg.ingest_docs(path, format="hotpotqa", embed_passages=False, embed_relations=False)
    assert summary.passages == 1 and summary.oversize, summary.as_dict()
    assert all(str(path) in w and "Anna Vale" in w and "limit 1,000" in w for w in summary.oversize)
    longest = kg.query("MATCH (e:Entity) RETURN max(size(e.id)) AS n, max(size(e.name)) AS m")[1][0]
    assert longest["n"] <= 1000 and longest["m"] <= 1000
    # the error mapper sends nobody to wait for a server that is up
    assert "once Neo4j is back" not in resume_advice(DatabaseError("Property value is too large to index"))
    assert "once Neo4j is back" in resume_advice(DatabaseUnavailable("connection lost"))


# --------------------------------------------------------------------------- interruption and driver logs

ANSWER_FOREVER = """
import sys
from kgtool.api import KnowledgeGraph
kg = KnowledgeGraph.connect()
questions = ["Who is the performer of Hey Jude?", "What is the capital of the country of citizenship of the "
             "performer of Hey Jude?"] * 20
print("ready", flush=True)
while True:
    kg.answer_many(questions, workers=2, agents="offline")
"""


# a program with a SIGTERM handler of its own (a test runner's): kgtool closes its runs, then hands it the signal
OWN_SIGTERM_HANDLER = """
import os, signal, sys
def own(signum, frame):
    open(os.environ["HOST_HANDLED"], "w").write("yes")
    sys.exit(7)
signal.signal(signal.SIGTERM, own)
"""


@pytest.mark.parametrize("signals", [("SIGINT", "SIGINT"), ("SIGTERM",), ("SIGTERM", "host")])
def test_an_interrupted_evaluation_leaves_no_run_running(sample_kg, neo4j_settings, tmp_path, signals):
    import os
    import signal
    import subprocess
    import sys
    import time

    from helpers import env_for

    kg = sample_kg
    host = "host" in signals
    signals = tuple(name for name in signals if name != "host")
    env = {**os.environ, **env_for(neo4j_settings), "PYTHONPATH": str(Path(__file__).resolve().parent.parent),
           "HOST_HANDLED": str(tmp_path / "host_handled")}
    script = (OWN_SIGTERM_HANDLER if host else "") + ANSWER_FOREVER
    proc = subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:  # wait until runs are being answered
            if kg.query("MATCH (r:Run) RETURN count(r) AS n")[1][0]["n"] >= 3:
                break
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.2)
        for name in signals:
            proc.send_signal(getattr(signal, name))
            time.sleep(0.3)
        code = proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    # an unhandled KeyboardInterrupt ends Python by SIGINT (-2); SystemExit(143) for SIGTERM
    expected = {"SIGINT": (-signal.SIGINT, 1, 130), "SIGTERM": (128 + signal.SIGTERM,)}[signals[0]]
    assert code in ((7,) if host else expected), (code, proc.stderr.read()[-2000:])
    assert (tmp_path / "host_handled").exists() == host
    statuses = {r["status"]: r["n"] for r in kg.query("MATCH (r:Run) RETURN r.status AS status, count(*) AS n")[1]}
    assert "running" not in statuses, statuses
    assert statuses.get("interrupted", 0) >= 1, statuses
    reason = kg.query("MATCH (r:Run {status: 'interrupted'}) RETURN r.error AS e LIMIT 1")[1][0]["e"]
    assert signals[0] in reason


def test_the_drivers_log_goes_to_the_log_file_not_the_terminal(kg, neo4j_settings, capfd):
    import logging

    from kgtool.graph.db import Database

    Database.connect(neo4j_settings).close()  # what every connection sets up
    logging.getLogger("neo4j.pool").warning("Transaction failed and will be retried in 1.0s (probe)")
    assert "will be retried" not in capfd.readouterr().err
    log = Path(neo4j_settings.home) / "logs" / "kgtool.log"
    assert "will be retried in 1.0s (probe)" in log.read_text()
