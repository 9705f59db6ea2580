"""An ingest records that it started and that it finished (an (:Ingest) marker), so a store that a
killed client or server left half-written is named by `db doctor`, `db stats` and
kgtool.health.unfinished_ingests until the same ingest is run again.

The kill tests run a Neo4j of their own (the session's server must survive a kill -9).
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from helpers import edit_count, env_for, ingest_documents, own_server, wait_for
from kgtool.cli import main
from kgtool.core.process import process_alive
from kgtool.graph.server import LocalServer
from kgtool.health import unfinished_ingests, unfinished_message
from kgtool.ingest.load import source_id
from kgtool.ingest.marker import IngestMarker

EDITS = 300


def _edits_file(path: Path, n: int = EDITS) -> Path:
    with path.open("w") as fh:
        for i in range(n):
            fh.write(json.dumps({"id": f"m-{i}", "subject": f"Person {i}", "relation": "employer",
                                 "object": f"Firm {i % 40}", "old_object": f"Old Firm {i % 25}",
                                 "description": f"Person {i} works for Firm {i % 40}."}) + "\n")
    return path


def _doctor(settings) -> tuple[int, dict, str]:
    found = CliRunner().invoke(main, ["db", "doctor", "--json"], env=env_for(settings))
    plain = CliRunner().invoke(main, ["db", "doctor"], env=env_for(settings))
    return found.exit_code, json.loads(found.output)["found"], " ".join(plain.output.split())


# --------------------------------------------------------------------------- on the session's server


def test_a_clean_edits_ingest_needs_no_attention(kg, tmp_path):
    # an edit's description is a Passage without a Document: that is no document store, whose facts
    # the walk reads embedded (doctor used to count all of them as 'facts without an embedding')
    kg.ingest_edits(_edits_file(tmp_path / "edits.jsonl", 5))
    health = kg.health()
    assert health.facts_without_embedding == 0 and health.ok, health.problems()


def test_a_clean_ingest_finishes_its_marker_and_needs_no_attention(kg, tmp_path, neo4j_settings):
    # a document store first: there the facts of later ingests need an embedding for the graph walk
    ingest_documents(kg, tmp_path / "docs.jsonl", [{"id": "d1", "title": "Alba", "text": "Alba lies near Brora."}])
    facts = tmp_path / "facts.tsv"
    facts.write_text("Alba\tcapital\tBrora\nBrora\tpopulation\t5000\n")
    kg.ingest_facts(facts)
    kg.ingest_edits(_edits_file(tmp_path / "edits.jsonl", 5))
    markers = kg.query("MATCH (i:Ingest) RETURN i.kind AS kind, i.source AS source, "
                       "i.finished_at IS NOT NULL AS finished ORDER BY kind")[1]
    assert markers == [{"kind": "docs", "source": source_id(tmp_path / "docs.jsonl"), "finished": True},
                       {"kind": "edits", "source": source_id(tmp_path / "edits.jsonl"), "finished": True},
                       {"kind": "facts", "source": source_id(facts), "finished": True}]
    assert unfinished_ingests(kg.db) == []
    health = kg.health()
    assert health.facts_without_embedding == 0 and health.ok, health.problems()
    stats = CliRunner().invoke(main, ["db", "stats"], env=env_for(neo4j_settings))
    assert stats.exit_code == 0 and "needs attention" not in stats.output, stats.output
    kg.ingest_facts(facts)  # a re-run reuses its marker
    assert kg.query("MATCH (i:Ingest) RETURN count(i) AS n")[1] == [{"n": 3}]


def test_an_unfinished_ingest_is_named_by_doctor_and_stats_until_it_is_run_again(kg, tmp_path, neo4j_settings):
    facts = tmp_path / "facts.tsv"
    facts.write_text("Alba\tcapital\tBrora\n")
    IngestMarker(kg.db, "facts", facts).start()  # what a kill between the first and the last write leaves
    [left] = unfinished_ingests(kg.db)
    assert left["kind"] == "facts" and left["source"] == source_id(facts)
    message = unfinished_message(left)
    assert message == f"ingest of {source_id(facts)} did not finish: re-run it"

    code, found, said = _doctor(neo4j_settings)
    assert code == 1 and found["problems"] == [message], found
    assert message in said and f"kgtool ingest facts {source_id(facts)}" in said, said
    fixed = CliRunner().invoke(main, ["db", "doctor", "--fix"], env=env_for(neo4j_settings))
    assert fixed.exit_code == 1, fixed.output  # --fix cannot finish an ingest: re-running it does
    stats = CliRunner().invoke(main, ["db", "stats"], env=env_for(neo4j_settings))
    assert f"needs attention: {message}" in " ".join(stats.output.split()), stats.output

    kg.ingest_facts(facts)
    assert unfinished_ingests(kg.db) == []
    code, found, said = _doctor(neo4j_settings)
    assert code == 0 and "nothing to mend" in said, said


def test_a_refused_file_writes_no_marker_and_deleting_a_source_drops_its_marker(kg, tmp_path):
    bad = tmp_path / "bad.tsv"
    bad.write_text("only two\tcolumns\n")
    with pytest.raises(Exception):
        kg.ingest_facts(bad, strict=True)
    assert kg.query("MATCH (i:Ingest) RETURN count(i) AS n")[1] == [{"n": 0}]
    facts = tmp_path / "facts.tsv"
    facts.write_text("Alba\tcapital\tBrora\n")
    kg.ingest_facts(facts)
    IngestMarker(kg.db, "facts", facts).start()  # a re-run killed before it finished
    assert len(unfinished_ingests(kg.db)) == 1
    kg.delete(source=str(facts))  # what the marker spoke of is gone
    assert unfinished_ingests(kg.db) == []


# --------------------------------------------------------------------------- kill -9, on a server of its own


@pytest.fixture(scope="module")
def victim(tmp_path_factory):
    with own_server(tmp_path_factory.mktemp("marker-home"), "the kill -9 Neo4j", neo4j_heap="512m",
                    neo4j_pagecache="128m") as settings:
        yield settings






def _cli(settings, *args):
    env = {**os.environ, **env_for(settings), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    for key in ("NEO4J_URI", "KGTOOL_DEBUG", "KGTOOL_LLM_BASE_URL", "OPENAI_BASE_URL"):
        env.pop(key, None)
    return subprocess.Popen([sys.executable, "-m", "kgtool.cli", *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _clear(settings) -> None:
    from kgtool.api import KnowledgeGraph

    with KnowledgeGraph.connect(settings) as kg:
        kg.clear()


def _kill_mid_ingest(settings, edits: Path, kill) -> subprocess.Popen:
    """Start `ingest edits` in batches of one edit; once its first batch is in, kill(proc)."""
    proc = _cli(settings, "ingest", "edits", str(edits), "--batch-size", "1")
    try:
        wait_for(lambda: edit_count(settings) > 0 or proc.poll() is not None, 180, "a first committed batch")
        assert proc.poll() is None, f"the ingest finished before the kill:\n{proc.stderr.read()}"
        kill(proc)
        proc.communicate(timeout=150)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return proc


def _rerun_clears(settings, edits: Path) -> None:
    rerun = _cli(settings, "ingest", "edits", str(edits))
    _, err = rerun.communicate(timeout=300)
    assert rerun.returncode == 0, err
    code, found, said = _doctor(settings)
    assert code == 0 and found["unfinished_ingests"] == [], said
    assert edit_count(settings) == EDITS


def test_kill_9_of_the_client_mid_ingest_leaves_a_store_doctor_flags(victim, tmp_path):
    _clear(victim)
    edits = _edits_file(tmp_path / "edits.jsonl")
    proc = _kill_mid_ingest(victim, edits, lambda p: os.kill(p.pid, signal.SIGKILL))
    assert proc.returncode == -signal.SIGKILL
    assert 0 < edit_count(victim) < EDITS
    code, found, said = _doctor(victim)
    assert code == 1, said
    assert [(i["kind"], i["source"]) for i in found["unfinished_ingests"]] == [("edits", source_id(edits))]
    assert f"ingest of {source_id(edits)} did not finish: re-run it" in said, said
    # an answer in the half store is never `answered`, and says why
    from kgtool.api import KnowledgeGraph

    with KnowledgeGraph.connect(victim) as kg:
        half = kg.answer("Who employs Person 0?", method="care", agents="offline")
    assert half.status != "answered" and f"ingest of {source_id(edits)} did not finish" in (half.reason or ""), \
        (half.status, half.reason)
    _rerun_clears(victim, edits)


def test_kill_9_of_the_server_mid_ingest_leaves_a_store_doctor_flags_after_restart(victim, tmp_path):
    _clear(victim)
    edits = _edits_file(tmp_path / "edits.jsonl")

    def kill_server(_proc) -> None:
        pid = LocalServer(victim).pid()
        assert pid, "the server is not running"
        os.kill(pid, signal.SIGKILL)
        wait_for(lambda: not process_alive(pid), 30, "the killed server to be gone")

    proc = _kill_mid_ingest(victim, edits, kill_server)
    assert proc.returncode == 2  # the client says what happened (IngestInterrupted) and exits
    LocalServer(victim).start(timeout=240)
    assert 0 < edit_count(victim) < EDITS
    code, found, said = _doctor(victim)
    assert code == 1 and f"ingest of {source_id(edits)} did not finish: re-run it" in said, said
    _rerun_clears(victim, edits)
