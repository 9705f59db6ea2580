"""Chaos on a real server: kill -9 Neo4j during an ingest and during an answer, restart, re-run.

The module runs its own server (the session's one must survive), waits on
conditions rather than fixed sleeps, and checks that what survives a crash
plus a re-run is exactly what a clean run writes, that the client says what
happened in one line, and that the interrupted Run does not stay 'running'.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from kgtool.api import KnowledgeGraph
from kgtool.errors import DatabaseUnavailable, describe
from kgtool.core.process import process_alive
from kgtool.graph.server import LocalServer
from helpers import edit_count, own_server, wait_for
from stub_llm import Reply

SAMPLE = Path(__file__).resolve().parent.parent / "ingest" / "sample"
EDITS = 200
BATCH = 10


_T0 = time.monotonic()


def note(what: str) -> None:
    """A timestamped line on stderr (shown with -s, and with a failure's captured output)."""
    print(f"[chaos +{time.monotonic() - _T0:6.1f} s] {what}", file=sys.stderr, flush=True)




@pytest.fixture(scope="module")
def chaos(tmp_path_factory):
    with own_server(tmp_path_factory.mktemp("chaos-home"), "the chaos Neo4j", neo4j_heap="512m",
                    neo4j_pagecache="128m") as settings:
        yield settings


def kill_server(settings) -> None:
    server = LocalServer(settings)
    pid = server.pid()
    assert pid, "the chaos server is not running"
    os.kill(pid, signal.SIGKILL)
    wait_for(lambda: not process_alive(pid), 30, "the killed server to be gone")


def counts(settings) -> dict:
    from neo4j import GraphDatabase

    server = LocalServer(settings)
    with GraphDatabase.driver(server.uri, auth=("neo4j", server.password())) as driver:
        with driver.session() as session:
            labels = {r["label"]: r["n"] for r in session.run(
                "MATCH (n) UNWIND labels(n) AS label RETURN label, count(*) AS n")}
            rels = {r["type"]: r["n"] for r in session.run("MATCH ()-[r]->() RETURN type(r) AS type, count(*) AS n")}
    return {"nodes": labels, "relationships": rels}




def cli(settings, *args, **popen):
    env = {**os.environ, "KGTOOL_HOME": str(settings.home), "KGTOOL_NEO4J_PORT": str(settings.neo4j_port),
           "KGTOOL_RUNTIME_DIR": str(settings.runtime_dir), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    for key in ("NEO4J_URI", "KGTOOL_DEBUG", "KGTOOL_LLM_BASE_URL", "OPENAI_BASE_URL"):
        env.pop(key, None)
    return subprocess.Popen([sys.executable, "-m", "kgtool.cli", *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **popen)


def test_kill_during_ingest_then_rerun_equals_a_clean_run(chaos, tmp_path):
    edits = tmp_path / "edits.jsonl"
    with edits.open("w") as fh:
        for i in range(EDITS):
            fh.write(json.dumps({"id": f"chaos-{i}", "subject": f"Subject {i}", "relation": "employer",
                                 "object": f"Company {i % 50}", "old_object": f"Old Company {i % 30}",
                                 "description": f"Subject {i} works for Company {i % 50}."}) + "\n")
    args = ("ingest", "edits", str(edits), "--batch-size", str(BATCH))
    note("ingest started")
    proc = cli(chaos, *args)
    try:
        wait_for(lambda: edit_count(chaos) > 0 or proc.poll() is not None, 120, "a first committed batch")
        assert proc.poll() is None, f"the ingest finished before the kill:\n{proc.stderr.read()}"
        note("first batch committed; killing the server")
        kill_server(chaos)
        _, err = proc.communicate(timeout=150)
        note("the ingest client exited")
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 2, err
    assert "Traceback" not in err
    message = err.strip().splitlines()[-1]
    assert message.startswith("error: ingesting"), err
    assert "batch(es)" in message and "were committed" in message and "Run the same command again" in message

    LocalServer(chaos).start(timeout=240)
    note("server restarted")
    partial = edit_count(chaos)
    assert 0 < partial < EDITS, partial
    rerun = cli(chaos, *args)
    out, err = rerun.communicate(timeout=300)
    assert rerun.returncode == 0, err
    note("re-run done")
    recovered = counts(chaos)
    assert recovered["nodes"]["Edit"] == EDITS

    kg = KnowledgeGraph.connect(chaos)
    try:
        kg.clear()
    finally:
        kg.close()
    clean = cli(chaos, *args)
    out, err = clean.communicate(timeout=300)
    assert clean.returncode == 0, err
    note("clean run done")
    assert counts(chaos) == recovered


def test_kill_during_an_answer_marks_the_run_abandoned(chaos, stub_llm):
    import dataclasses

    kg = KnowledgeGraph.connect(chaos)
    kg.clear()
    kg.ingest_edits(SAMPLE / "edits.jsonl")
    kg.close()
    note("sample ingested")
    settings = dataclasses.replace(chaos, llm_base_url=stub_llm.base_url, llm_model="stub-model",
                                   llm_api_key="stub-key", llm_timeout=30.0, llm_max_retries=0)
    kg = KnowledgeGraph.connect(settings)
    kg.llm_client.cache_dir = None
    release = threading.Event()

    def planner(messages):
        release.wait(60)  # holds the answer open until the server is dead
        return Reply.json({"topic": "Hey Jude", "subquestions": ["Who is the performer of Hey Jude?"]})

    stub_llm.on_role("planner", planner)
    failure: list[BaseException] = []

    def answer():
        try:
            kg.answer("Who is the performer of Hey Jude?", agents="llm")
        except BaseException as exc:  # noqa: BLE001 - the test inspects it
            failure.append(exc)

    worker = threading.Thread(target=answer)
    worker.start()
    try:
        run_id = wait_for(lambda: _running_run(chaos), 120, "the answer's Run to be open")
        note("answer open; killing the server")
        kill_server(chaos)
    finally:
        release.set()
        worker.join(180)
    kg.close()
    assert not worker.is_alive()
    assert failure, "the answer did not notice the server had gone"
    mapped = describe(failure[0])
    assert isinstance(mapped, DatabaseUnavailable), (type(failure[0]), failure[0])
    assert "kgtool db status" in str(mapped)

    note("the answer noticed")
    assert LocalServer(chaos).start(timeout=240) is True
    note("server restarted")
    kg = KnowledgeGraph.connect(chaos)
    try:
        keys, rows = kg.query("MATCH (r:Run {id: $id}) RETURN r.status AS status, r.error_class AS cls, "
                              "r.finished_at IS NOT NULL AS closed", {"id": run_id})
        assert rows == [{"status": "abandoned", "cls": "ServerRestarted", "closed": True}]
        again = kg.answer("What is the capital of the country of citizenship of the performer of Hey Jude?",
                          agents="offline")
        assert again.answer == "Vancouver"
        keys, rows = kg.query("MATCH (r:Run) WHERE r.status = 'running' RETURN count(r) AS n")
        assert rows == [{"n": 0}]
    finally:
        kg.close()


def _running_run(settings) -> str | None:
    from neo4j import GraphDatabase

    server = LocalServer(settings)
    with GraphDatabase.driver(server.uri, auth=("neo4j", server.password())) as driver:
        with driver.session() as session:
            row = session.run("MATCH (r:Run {status: 'running'}) RETURN r.id AS id LIMIT 1").single()
    return row["id"] if row else None
