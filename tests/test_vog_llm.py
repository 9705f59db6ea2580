"""VoG's LLM agents over real HTTP against the scripted OpenAI-compatible stub, on a real Neo4j."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from stub_llm import Reply, task_data

from kgtool.api import KnowledgeGraph
from kgtool.reason.agents.vog_base import PlanStep, VogPlan
from kgtool.reason.prompts import vog as prompts

SAMPLE = Path(__file__).resolve().parent.parent / "ingest" / "sample"
QUESTION = "Who is the spouse of the head of state of the country Madonna is a citizen of?"


@pytest.fixture
def llm_kg(kg, stub_llm, tmp_path):
    kg.ingest_edits(SAMPLE / "edits.jsonl")
    settings = dataclasses.replace(kg.settings, home=tmp_path / "home", llm_base_url=stub_llm.base_url,
                                   llm_model="stub-model", llm_api_key="stub-key", llm_timeout=5.0, llm_max_retries=1)
    graph = KnowledgeGraph(kg.db, settings)
    graph.llm_client.backoff_base = 0.01
    return graph


def _plan(expected_first: str) -> dict:
    return {"topic": "Madonna", "answer": None, "steps": [
        {"thought": "Her citizenship first.", "action": "What is the country of citizenship of Madonna?",
         "relation": "country of citizenship", "expected": expected_first},
        {"thought": "Then who heads that state.", "action": "Who is the head of state of [ENT]?",
         "relation": "head of state", "expected": None},
        {"thought": "Then that person's spouse.", "action": "Who is the spouse of [ENT]?", "relation": "spouse",
         "expected": None}]}


def _pick_relation(messages):
    data = task_data(messages)
    wanted = [r["id"] for r in data["relations"] if r["relation"] == data["planned_relation"]]
    return Reply.json({"relations": wanted or [data["relations"][0]["id"]]})


def _pick_fact(messages):
    data = task_data(messages)
    return Reply.json({"choice": data["facts"][0]["id"]})


def test_llm_vog_verifies_revises_and_stores_the_revision(llm_kg, stub_llm):
    kg = llm_kg
    stub_llm.on_role("vog_planner", "not JSON, sorry", Reply.json(_plan("United States of America")))
    stub_llm.on_role("vog_relations", _pick_relation)
    stub_llm.on_role("vog_entity", _pick_fact)
    stub_llm.on_role("vog_verifier",
                     Reply.json({"consistent": False, "confidence": 0.2, "error_type": "hallucinated_fact",
                                 "reason": "the graph says Canada", "observation": "Canada"}),
                     Reply.json({"consistent": True, "confidence": 0.9, "error_type": None, "reason": "supported",
                                 "observation": None}))
    stub_llm.on_role("vog_reviser", Reply.json(_plan("Canada")))
    result = kg.answer(QUESTION, method="vog", agents="llm")
    assert result.answer == "Keanu Reeves" and result.status == "answered", result.chain
    assert [h["relation"] for h in result.chain] == ["country of citizenship", "head of state", "spouse"]
    assert result.backtracks == 1 and result.tokens > 0
    roles = [r.role for r in stub_llm.requests]
    assert roles.count("vog_planner") == 2  # the bad reply was re-asked
    assert roles.count("vog_reviser") == 1 and roles.count("vog_verifier") == 4  # hop 1 twice, hops 2 and 3
    # the reviser saw the local context only: the failed step's facts, not the whole plan's feedback
    sent = task_data(stub_llm.requests_for("vog_reviser")[0].messages)
    assert sent["context"] == "local" and sent["failed_step"] == 1 and "all_feedback" not in sent
    assert sent["check"]["observation"] == "Canada"
    assert any(f["tail"] == "Canada" for f in sent["retrieved"])
    # the verifier judged the fact read back from the graph, with its evidence
    judged = task_data(stub_llm.requests_for("vog_verifier")[0].messages)
    assert judged["chosen_fact"]["tail"] == "Canada" and "Canada" in judged["chosen_fact"]["evidence"]
    _, rows = kg.query(
        "MATCH (r:Run {id: $run})-[:HAS_REVISION]->(x:Revision)-[:TO]->(p:Plan) "
        "RETURN x.arm AS arm, x.accepted AS accepted, x.gain AS gain, x.reward AS reward, p.expected AS expected, "
        "r.llm_calls AS calls, r.tokens AS tokens", {"run": result.run_id})
    assert len(rows) == 1 and rows[0]["arm"] == "local" and rows[0]["accepted"]
    assert rows[0]["gain"] == pytest.approx(0.7) and rows[0]["reward"] == pytest.approx(0.65)
    assert rows[0]["expected"][0] == "Canada" and rows[0]["tokens"] == result.tokens and rows[0]["calls"] >= 14
    _, verdicts = kg.query("MATCH (:Run {id: $run})-[:HAS_VERDICT]->(v:Verdict) RETURN v.error_type AS e, "
                           "v.confidence AS c ORDER BY v.round", {"run": result.run_id})
    assert verdicts[0] == {"e": "hallucinated_fact", "c": 0.2} and all(v["c"] == 0.9 for v in verdicts[1:])


def test_llm_vog_with_no_matching_fact_makes_no_verifier_call(llm_kg, stub_llm):
    kg = llm_kg
    stub_llm.on_role("vog_planner", Reply.json(_plan("Canada")))
    stub_llm.on_role("vog_relations", _pick_relation)
    stub_llm.on_role("vog_entity", Reply.json({"choice": None}))  # nothing answers the step
    stub_llm.on_role("vog_reviser", Reply.json(_plan("Canada")))
    result = kg.answer(QUESTION, method="vog", agents="llm", max_revisions=1)
    assert stub_llm.requests_for("vog_verifier") == []
    # the chain stopped at hop 1: no answer, and the plan's own prediction is not reported as one
    assert result.status == "no_answer" and result.chain[0]["answer"] is None and result.answer is None
    _, rows = kg.query("MATCH (:Run {id: $run})-[:HAS_VERDICT]->(v:Verdict) RETURN v.error_type AS e",
                       {"run": result.run_id})
    assert rows and all(r["e"] == "incomplete_evidence" for r in rows)


@pytest.mark.parametrize("value, problem", [
    ({"topic": "X", "steps": []}, "non-empty list"),
    ({"topic": "X", "steps": [{"action": "Who wrote X?"}, {"action": "Where was he born?"}]}, "[ENT]"),
    ({"topic": "X", "steps": [{"action": "Who is [ENT]?"}]}, "first action must name the topic"),
    ({"topic": "X", "steps": [{"thought": "t"}]}, "needs an \"action\""),
    (["Who wrote X?"], "JSON object"),
])
def test_plan_validator_says_what_to_fix(value, problem):
    with pytest.raises(ValueError, match=problem.replace("[", r"\[").replace("]", r"\]")):
        prompts.validate_plan(value)


def test_verifier_and_choice_validators():
    check = prompts.validate_check({"consistent": False, "confidence": 0.4, "error_type": "intent_drift",
                                    "reason": "wrong relation", "observation": "Canada"})
    assert (check.consistent, check.confidence, check.error_type, check.revised_observation) == (
        False, 0.4, "intent_drift", "Canada")
    with pytest.raises(ValueError, match="error_type"):
        prompts.validate_check({"consistent": False, "confidence": 0.4, "error_type": "made_up"})
    with pytest.raises(ValueError, match="0 to 1"):
        prompts.validate_check({"consistent": True, "confidence": 3})
    assert prompts.relations_validator(3)({"relations": ["r2", "r2", "r1"]}) == [1, 0]
    with pytest.raises(ValueError, match="r1..r3"):
        prompts.relations_validator(3)({"relations": ["r4"]})
    assert prompts.entity_validator(2)({"choice": "c2"}) == 1 and prompts.entity_validator(2)({"choice": None}) is None


def test_reviser_prompt_shows_what_each_arm_allows():
    from kgtool.core.types import CandidateFact
    from kgtool.reason.agents.vog_base import Check, Observation, RevisionContext

    fact = CandidateFact("f1", "e1", "Madonna", "country of citizenship", "e2", "Canada", "Madonna is Canadian.")
    obs = Observation("e1", "Madonna", [], 3, 0.5, [], [fact], fact)
    plan = VogPlan([PlanStep("a", "Q1 Madonna?"), PlanStep("b", "Q2 [ENT]?"), PlanStep("c", "Q3 [ENT]?")], "Madonna")
    check = Check(False, 0.2, "hallucinated_fact", "no")
    local = task_data([{"role": "system", "content": ""}, {"role": "user", "content": prompts.reviser_prompt(
        RevisionContext("local", "q", plan, 0, check, obs)).user}])
    assert len(local["plan"]["steps"]) == 2 and "next_relations" not in local and "all_feedback" not in local
    ahead = RevisionContext("lookahead", "q", plan, 0, check, obs, lookahead={"e2": [("k", "head of state", "out")]})
    sent = task_data([{"role": "system", "content": ""}, {"role": "user",
                                                          "content": prompts.reviser_prompt(ahead).user}])
    assert sent["next_relations"] == {"Canada": ["head of state"]}
    whole = RevisionContext("global", "q", plan, 0, check, obs, feedback=[
        {"hop": 1, "head": "Madonna", "relation": "r", "tail": "Canada", "chosen": True, "valid": False}])
    sent = task_data([{"role": "system", "content": ""}, {"role": "user",
                                                          "content": prompts.reviser_prompt(whole).user}])
    assert len(sent["plan"]["steps"]) == 3 and sent["all_feedback"][0]["tail"] == "Canada"
