"""Degrade, do not abort: LLM roles whose replies stay unusable hand the step to their offline roles
(HTTP stub for the faults, a real Neo4j for the graph)."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from stub_llm import Reply

from kgtool.api import KnowledgeGraph

SAMPLE = Path(__file__).resolve().parent.parent / "ingest" / "sample"
QUESTION = "What is the capital of the country of citizenship of the performer of Hey Jude?"


@pytest.fixture
def llm_kg(kg, stub_llm, tmp_path):
    kg.ingest_edits(SAMPLE / "edits.jsonl")
    settings = dataclasses.replace(kg.settings, home=tmp_path / "home", llm_base_url=stub_llm.base_url,
                                   llm_model="stub-model", llm_api_key="stub-key", llm_timeout=5.0, llm_max_retries=1)
    graph = KnowledgeGraph(kg.db, settings)
    graph.llm_client.backoff_base = 0.01
    return graph


def _run(kg, run_id: str) -> dict:
    _, rows = kg.query("MATCH (r:Run {id: $id}) RETURN r.status AS status, r.llm_calls AS calls, "
                       "r.llm_unusable_replies AS unusable, r.llm_reasks AS reasks, "
                       "r.llm_role_fallbacks AS fallbacks", {"id": run_id})
    return rows[0]


@pytest.mark.parametrize("method", ["care", "vog", "safe", "c2rag", "reagent"])
def test_roles_whose_replies_stay_unusable_fall_back_to_the_offline_roles(llm_kg, stub_llm, method):
    stub_llm.default = "I am not able to produce JSON."  # every role, every time
    offline = llm_kg.answer(QUESTION, method=method, agents="offline")
    result = llm_kg.answer(QUESTION, method=method, agents="llm")
    run = _run(llm_kg, result.run_id)
    assert run["status"] == result.status != "failed"  # closed, as a run of its own
    if method == "care":  # every CARE role is an offline role now: the same answer as the offline run
        assert (result.status, result.answer) == (offline.status, offline.answer)
    # each role call: the reply, one re-ask with the correction, then the fallback
    assert run["fallbacks"] >= 1 and run["calls"] == 2 * run["fallbacks"] == len(stub_llm.requests)
    assert run["unusable"] == run["calls"] and run["reasks"] == run["fallbacks"]


def test_only_the_failing_role_falls_back(llm_kg, stub_llm):
    stub_llm.on_role("planner", Reply.json({"topic": "Hey Jude", "subquestions": [
        "Who is the performer of Hey Jude?", "What is the country of citizenship of [ENT]?",
        "What is the capital of [ENT]?"]}))
    stub_llm.default = "no JSON here"  # the selector, critic and generator fail
    result = llm_kg.answer(QUESTION, method="care", agents="llm")
    run = _run(llm_kg, result.run_id)
    assert len(stub_llm.requests_for("planner")) == 1 and result.plan[0] == "Who is the performer of Hey Jude?"
    assert run["fallbacks"] >= 1 and run["status"] != "failed"


def test_with_fallback_off_an_unusable_role_fails_the_run(llm_kg, stub_llm):
    kg = KnowledgeGraph(llm_kg.db, dataclasses.replace(llm_kg.settings, llm_fallback="none"))
    stub_llm.default = "no JSON here"
    with pytest.raises(Exception, match="unusable output for planner"):
        kg.answer(QUESTION, method="care", agents="llm")
