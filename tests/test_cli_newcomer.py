"""A newcomer's first hour on a real server: what the CLI says and what the methods store.

Each test pins a defect a first-time user met (issue 28) or a config promise
(issue 27): paper defaults stored on every Run, scopes that name nothing,
run lists, resets, re-ingests, console errors, verdict labels, text echoed
as typed.
"""
from __future__ import annotations

import dataclasses
import json

import pytest
from click.testing import CliRunner

from helpers import SAMPLE, env_for
from kgtool.cli import main
from kgtool.reason.methods import METHODS

QUESTION = "Who is Jacinda Ardern married to?"

# the defaults of each method's paper (or, for the baseline, of its own description)
PAPER = {
    "care": {"top_k": 3, "tau_max": 2, "gamma": 1.5},
    "c2rag": {"gamma": 1.5, "top_k": 3, "relation_variants": 3, "anchors": 3, "relation_top": 8, "passage_pool": 8,
              "passages": 3},
    "reagent": {"top_k": 3, "max_steps": 25, "controller_after": 2, "local_retries": 2, "backtrack": True},
    "reagent-no-backtrack": {"top_k": 3, "max_steps": 25, "backtrack": False},
    "safe": {"atomic_steps": 10, "max_retries": 3, "top_k": 3},
    "vog": {"width_min": 3, "width_max": 10, "ucb_c": 1.4, "max_revisions": 4, "accept_threshold": 0.5},
    "bm25-reader": {"passages": 3},
}


def run(settings, *args, input=None):
    return CliRunner().invoke(main, list(args), env=env_for(settings), catch_exceptions=False, input=input)


@pytest.fixture(scope="module")
def sample(kg_session, neo4j_settings):
    kg_session.clear()
    kg_session.ingest_edits(SAMPLE / "edits.jsonl")
    return kg_session


def test_every_registered_method_has_its_paper_defaults_listed():
    assert set(PAPER) == set(METHODS.names())


@pytest.mark.parametrize("method", sorted(PAPER))
def test_a_run_stores_the_paper_defaults_when_nothing_is_set(sample, neo4j_settings, method):
    from kgtool.api import KnowledgeGraph

    # global settings that differ from every paper: only what a method maps explicitly may follow them
    odd = dataclasses.replace(neo4j_settings, top_k=5, gamma=1.0, tau_max=1, max_steps=40)
    with KnowledgeGraph.connect(odd) as kg:
        result = kg.answer(QUESTION, method=method, agents="offline")
        config = json.loads(kg.trace(result.run_id)["run"]["config"])
    mapped = {s.name: s.global_setting for s in METHODS.settings(method) if s.global_setting}
    for key, paper_value in PAPER[method].items():
        expected = getattr(odd, mapped[key]) if key in mapped else paper_value
        assert config[key] == expected, f"{method}.{key}: stored {config[key]!r}, expected {expected!r}"
    assert set(config) == {s.name for s in METHODS.settings(method)}


def test_a_setting_given_for_the_answer_wins(sample, neo4j_settings):
    out = run(neo4j_settings, "ask", QUESTION, "--method", "safe", "--set", "top_k=2", "--json")
    assert out.exit_code == 0, out.output
    run_id = json.loads(out.stdout)["run_id"]
    assert json.loads(sample.trace(run_id)["run"]["config"])["top_k"] == 2


def test_an_unknown_scope_is_an_error_naming_what_exists(sample, neo4j_settings):
    out = run(neo4j_settings, "ask", QUESTION, "--scope", "999999")
    assert out.exit_code == 2
    assert "no edit of case 999999" in out.output and "sample-1" in out.output, out.output
    batch = run(neo4j_settings, "ask", QUESTION, "--scope", "batch:nope")
    assert batch.exit_code == 2 and "no edit of batch nope" in batch.output and "e.g. edits" in batch.output
    fine = run(neo4j_settings, "ask", QUESTION, "--scope", "sample-1,sample-2")
    assert fine.exit_code == 0, fine.output


def test_trace_list_filters_and_shows_ids_for_trace_show(sample, neo4j_settings):
    asked = run(neo4j_settings, "ask", QUESTION, "--method", "care", "--json")
    run_id = json.loads(asked.stdout)["run_id"]
    listed = run(neo4j_settings, "trace", "list", "--method", "care", "--status", "answered", "--limit", "1")
    assert listed.exit_code == 0 and run_id in listed.output and "runs (1," in listed.output, listed.output
    none = run(neo4j_settings, "trace", "list", "--method", "vog", "--status", "abandoned")
    assert none.exit_code == 0 and "no runs with method vog status abandoned" in none.output
    unknown = run(neo4j_settings, "trace", "list", "--method", "vgo")
    assert unknown.exit_code == 2 and "did you mean 'vog'" in unknown.output
    # the analyst query prints whole milliseconds
    rows = json.loads(run(neo4j_settings, "cypher", "-f", "cypher/analyst/runs.cypher", "--format", "json").stdout)
    assert rows and all(isinstance(r["latency_ms"], int) for r in rows if r["latency_ms"] is not None)


def test_trace_show_labels_a_passing_verdict_without_an_error_type(sample, neo4j_settings):
    asked = run(neo4j_settings, "ask", QUESTION, "--method", "care", "--json")
    shown = run(neo4j_settings, "trace", "show", json.loads(asked.stdout)["run_id"])
    assert shown.exit_code == 0
    assert "verdict round 1: valid" in shown.output, shown.output
    assert "CareError round" not in shown.output and "Error round 1: valid" not in shown.output


def test_text_is_printed_as_typed(sample, neo4j_settings):
    out = run(neo4j_settings, "ask", QUESTION + " [bge] a:b:1")
    assert out.exit_code == 0, out.output
    assert f"Q: {QUESTION} [bge] a:b:1" in out.output, out.output


def test_a_console_syntax_error_shows_the_query_as_typed(sample, neo4j_settings):
    out = run(neo4j_settings, "cypher", "RETRUN 1")
    assert out.exit_code == 2
    assert '"RETRUN 1"' in out.output and "EXPLAIN" not in out.output, out.output
    assert "column 1 (offset: 0)" in out.output


def test_a_reingest_says_nothing_was_new(sample, neo4j_settings):
    again = run(neo4j_settings, "ingest", "edits", str(SAMPLE / "edits.jsonl"))
    assert again.exit_code == 0, again.output
    assert "edits new / already present" in again.output
    line = next(ln for ln in again.output.splitlines() if "edits new / already present" in ln)
    assert "0 / 12" in line, line


def test_a_file_refused_in_validation_draws_no_progress_bar(sample, neo4j_settings, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x", "subject": "A", "relation": "r"}\n', encoding="utf-8")
    out = run(neo4j_settings, "ingest", "edits", str(bad), "--strict")
    assert out.exit_code != 0
    assert "bad.jsonl:1" in out.output and "━" not in out.output, out.output


def test_db_reset_asks_first(kg, neo4j_settings):
    kg.ingest_edits(SAMPLE / "edits.jsonl", embed_relations=False)
    kept = run(neo4j_settings, "db", "reset", input="n\n")
    assert kept.exit_code == 1 and "delete all" in kept.output
    assert kg.stats()["nodes"].get("Edit") == 12
    gone = run(neo4j_settings, "db", "reset", "--yes")
    assert gone.exit_code == 0 and "deleted" in gone.output
    assert not any(kg.stats()["nodes"].values())
    again = run(neo4j_settings, "db", "reset", "--yes")
    assert again.exit_code == 0 and "already empty" in again.output
