"""SAFE with LLM agents over real HTTP (tests/stub_llm.py): a rejected step is generated
again with the feedback in the next request, and either feedback family judges either generator."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from kgtool.api import KnowledgeGraph
from kgtool.reason.prompts.safe import error_type, generator_validator, validate_feedback
from kgtool.reason.taxonomy import SafeError
from stub_llm import Reply, task_data

SAMPLE = Path(__file__).resolve().parent.parent / "ingest" / "sample"
QUESTION = "What is the capital of the country of citizenship of the performer of Hey Jude?"
PLAN = {"topic": "Hey Jude", "subquestions": ["Who performed Hey Jude?", "What is the country of citizenship of [ENT]?",
                                              "What is the capital of [ENT]?"]}


@pytest.fixture
def llm_kg(kg, stub_llm, tmp_path):
    kg.ingest_edits(SAMPLE / "edits.jsonl")
    settings = dataclasses.replace(kg.settings, home=tmp_path / "home", llm_base_url=stub_llm.base_url,
                                   llm_model="stub-model", llm_api_key="stub-key", llm_timeout=5.0,
                                   llm_max_retries=1)
    out = KnowledgeGraph(kg.db, settings)
    out.llm_client.backoff_base = 0.01
    return out


def generator(first_finds_nothing: bool):
    """A scripted generator: cites the fact whose relation the question part names (its stem);
    the very first step (optionally) claims nothing was found."""
    calls = {"n": 0}

    def reply(messages):
        calls["n"] += 1
        data = task_data(messages)
        if data["answer_now"]:
            return Reply.json({"type": "final", "answer": data["current_entity"]})
        if first_finds_nothing and calls["n"] == 1:
            return Reply.json({"type": "attribution", "fact": None, "statement": "no passage says who performed it"})
        part = (data["question_part"] or "").lower()
        for fact in data["facts"]:
            if fact["relation"][:5].lower() in part and fact["id"] not in data["rejected"]:
                return Reply.json({"type": "attribution", "fact": fact["id"], "statement": fact["evidence"]})
        return Reply.json({"type": "attribution", "fact": None, "statement": "nothing"})

    return reply


def feedback_rejecting_first(kind: str, guidance: str):
    calls = {"n": 0}

    def reply(messages):
        calls["n"] += 1
        step = task_data(messages)["step_to_evaluate"]
        if calls["n"] == 1:
            return Reply.json({"error_type": kind, "diagnosis": "scripted rejection", "guidance": guidance})
        if step["type"] == "final":
            return Reply.json({"error_type": "Correct", "diagnosis": "the path ends there", "guidance": "Stop."})
        return Reply.json({"error_type": "Correct", "diagnosis": "grounded", "guidance": "Take the next step."})

    return reply


def _hop1(kg, run_id):
    _, rows = kg.query(
        "MATCH (r:Run {id: $run})-[:HAS_STEP]->(s:Step {hop: 1}) OPTIONAL MATCH (s)-[:CHOSE]->(f:Fact) "
        "OPTIONAL MATCH (s)-[rev:REVISED_AS]->(n:Step) OPTIONAL MATCH (s)-[b:BACKTRACK]->(n) "
        "OPTIONAL MATCH (r)-[:HAS_VERDICT]->(v:Verdict)-[:ON]->(s) "
        "RETURN s.attempt AS attempt, f.relation AS relation, rev.kind AS revised, b.reason AS reason, "
        "v.error_type AS error_type ORDER BY s.attempt", {"run": run_id})
    return rows


def test_llm_generator_retries_with_the_llm_feedback_in_its_next_request(llm_kg, stub_llm):
    stub_llm.on_role("planner", Reply.json(PLAN))
    stub_llm.on_role("safe_generator", generator(first_finds_nothing=True))
    stub_llm.on_role("safe_feedback", feedback_rejecting_first(
        "Information Miss", "Cite the performer fact of Hey Jude (GUIDE-7)."))
    result = llm_kg.answer(QUESTION, method="safe", agents="llm")
    assert result.answer == "Vancouver" and result.backtracks == 1 and result.tokens > 0
    gen = stub_llm.requests_for("safe_generator")
    assert task_data(gen[0].messages)["feedback"] is None
    retry = task_data(gen[1].messages)["feedback"]
    assert retry["error_type"] == "information_miss" and "GUIDE-7" in retry["guidance"]
    hop1 = _hop1(llm_kg, result.run_id)
    assert [(r["attempt"], r["error_type"]) for r in hop1] == [(0, "information_miss"), (1, "correct")]
    assert hop1[0]["revised"] == "reselect" and "GUIDE-7" in hop1[0]["reason"]
    assert hop1[1]["relation"] == "performer"
    # the feedback model saw the step as stored: the cited fact and its evidence
    judged = task_data(stub_llm.requests_for("safe_feedback")[1].messages)["step_to_evaluate"]
    assert judged["fact"] == {"head": "Hey Jude", "relation": "performer", "tail": "Madonna"}
    assert "Madonna" in judged["evidence"]


def test_the_offline_verifier_judges_the_llm_generator(llm_kg, stub_llm):
    stub_llm.on_role("planner", Reply.json(PLAN))
    stub_llm.on_role("safe_generator", generator(first_finds_nothing=True))
    result = llm_kg.answer(QUESTION, method="safe", agents="llm", feedback="offline")
    assert result.answer == "Vancouver" and result.status == "answered"
    retry = task_data(stub_llm.requests_for("safe_generator")[1].messages)["feedback"]
    # the KG verifier found the fact the generator missed and says which
    assert retry["error_type"] == "information_miss" and "Hey Jude was performed by Madonna" in retry["guidance"]
    assert stub_llm.requests_for("safe_feedback") == []


def test_the_llm_feedback_judges_the_offline_generator_which_reads_rejections_back(llm_kg, stub_llm):
    stub_llm.on_role("safe_feedback", feedback_rejecting_first("Unsupported", "Cite another fact."))
    result = llm_kg.answer(QUESTION, method="safe", agents="offline", feedback="llm")
    hop1 = _hop1(llm_kg, result.run_id)
    assert hop1[0]["error_type"] == "unsupported" and hop1[0]["relation"] == "performer"
    # the retry did not cite the rejected fact again (Hey Jude has no other fact in force)
    assert len(hop1) == 2 and hop1[1]["relation"] is None
    assert result.answer != "Vancouver" and result.status == "no_answer"


@pytest.mark.parametrize("raw, kind", [("Off-topic", SafeError.OFF_TOPIC), ("Correct (No Error)", SafeError.CORRECT),
                                       ("Premature Attribution", SafeError.PREMATURE_ATTRIBUTION),
                                       ("logical fallacy", SafeError.LOGICAL_FALLACY)])
def test_error_types_are_read_in_the_papers_spelling(raw, kind):
    assert error_type(raw) is kind


def test_feedback_and_generator_validators_reject_bad_output():
    with pytest.raises(ValueError, match="must be one of"):
        validate_feedback({"error_type": "Sloppy", "diagnosis": "", "guidance": "x"})
    with pytest.raises(ValueError, match="guidance"):
        validate_feedback({"error_type": "Correct", "diagnosis": "", "guidance": ""})
    assert validate_feedback({"error_type": "Correct", "diagnosis": "", "guidance": "####ANSWER: Paris"}).force_answer
    validate = generator_validator(2)
    with pytest.raises(ValueError, match="not one of the given ids"):
        validate({"type": "attribution", "fact": "f3"})
    with pytest.raises(ValueError, match="needs \"answer\""):
        validate({"type": "final"})
    assert validate({"type": "attribution", "fact": 2}).fact_index == 1
    assert validate({"type": "final", "answer": "####ANSWER: Paris"}).answer == "Paris"
