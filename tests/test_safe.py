"""SAFE offline: the KG-grounded verifier types hand-built steps, and the method answers with a stored trajectory.

Every hand-built chain below has exactly one defect (or none), on the bundled
sample graph, and the verifier must name exactly that type.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kgtool.core.scope import Scope
from kgtool.core.types import CandidateFact, Plan
from kgtool.eval.mquake import matches
from kgtool.reason.agents.offline.common import Thresholds
from kgtool.reason.agents.offline.safe_feedback import OfflineSafeFeedback
from kgtool.reason.agents.safe_base import StepView
from kgtool.reason.graphview import GraphView
from kgtool.reason.taxonomy import SafeError as E

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "ingest" / "sample"
ANALYST = REPO / "kgtool" / "cypher" / "analyst"


class Graph:
    """The sample graph's facts by (head, relation, tail) and its entities by name."""

    def __init__(self, kg):
        _, rows = kg.query(
            "MATCH (h:Entity)-[:SUBJECT_OF]->(f:Fact)-[:OBJECT]->(t:Entity) "
            "RETURN f.id AS id, h.id AS hid, h.name AS h, f.relation AS r, f.relation_key AS key, t.id AS tid, "
            "t.name AS t, f.evidence AS ev")
        self.rows = {(r["h"], r["r"], r["t"]): r for r in rows}
        self.ids = {r["h"]: r["hid"] for r in rows} | {r["t"]: r["tid"] for r in rows}

    def fact(self, head, relation, tail, direction="out") -> CandidateFact:
        r = self.rows[(head, relation, tail)]
        return CandidateFact(r["id"], r["hid"], r["h"], r["r"], r["tid"], r["t"], r["ev"] or "", r["key"],
                             direction=direction)

    def key(self, head, relation, tail) -> str:
        return self.rows[(head, relation, tail)]["key"]

    def cite(self, n, head, relation, tail, *, start=None, direction="out") -> StepView:
        """An attribution step citing the fact, from `start` (default: the fact's own start)."""
        fact = self.fact(head, relation, tail, direction)
        begin, end = (head, tail) if direction == "out" else (tail, head)
        begin = start or begin
        return StepView(f"s{n}", "attribution", n, "q", self.ids[begin], begin, self.ids[end], end, fact, fact.evidence)

    def final(self, n, answer) -> StepView:
        return StepView(f"s{n}", "final", n, "q", None, "", self.ids.get(answer), answer)


@pytest.fixture
def graph(sample_kg):
    return Graph(sample_kg)


def _view(kg, session, scope: Scope) -> GraphView:
    """The answer's graph view over `scope`, bound to `session` as the runner binds it."""
    view = GraphView(kg.db, kg.catalog, scope)
    view.session = session
    return view


@pytest.fixture
def verifier(sample_kg):
    with sample_kg.db.session() as session:
        yield OfflineSafeFeedback(_view(sample_kg, session, Scope()), sample_kg.catalog, sample_kg.matcher,
                                  thresholds=Thresholds.from_settings(sample_kg.settings))


def plan_for(g: Graph) -> Plan:
    return Plan(subquestions=["Who performed Hey Jude?", "What is the country of citizenship of [ENT]?",
                              "What is the capital of [ENT]?"], topic="Hey Jude", topic_id=g.ids["Hey Jude"],
                relations=[g.key("Hey Jude", "performer", "Madonna"),
                           g.key("Madonna", "country of citizenship", "Canada"),
                           g.key("Canada", "capital", "Vancouver")])


QUESTION = "What is the capital of the country of citizenship of the performer of Hey Jude?"


def good_chain(g: Graph) -> list[StepView]:
    return [g.cite(1, "Hey Jude", "performer", "Madonna"), g.cite(2, "Madonna", "country of citizenship", "Canada"),
            g.cite(3, "Canada", "capital", "Vancouver")]


def judge_all(verifier, plan, chain) -> list:
    """Each step judged after the steps before it."""
    return [verifier.judge(QUESTION, plan, chain[:i], step, []) for i, step in enumerate(chain)]


def test_a_correct_chain_is_correct_at_every_step(graph, verifier):
    plan = plan_for(graph)
    chain = good_chain(graph) + [graph.final(4, "Vancouver")]
    verdicts = judge_all(verifier, plan, chain)
    assert [v.error_type for v in verdicts] == [E.CORRECT] * 4
    assert verdicts[2].force_answer and "Vancouver" in verdicts[2].guidance
    assert "country of citizenship of Madonna" in verdicts[0].guidance


def _last(verifier, plan, chain):
    return verifier.judge(QUESTION, plan, chain[:-1], chain[-1], [])


def test_a_fact_an_edit_replaced_is_contradictory(graph, verifier):
    v = _last(verifier, plan_for(graph), [graph.cite(1, "Hey Jude", "performer", "The Beatles")])
    assert v.error_type == E.CONTRADICTORY
    assert "Madonna" in v.diagnosis + v.guidance  # the fact in force is named


def test_a_fact_the_graph_does_not_hold_is_unsupported(graph, verifier):
    step = graph.cite(1, "Hey Jude", "performer", "Madonna")
    step.fact.fact_id = "fact-that-does-not-exist"
    assert _last(verifier, plan_for(graph), [step]).error_type == E.UNSUPPORTED


def test_a_fact_out_of_the_answer_scope_is_unsupported(sample_kg, graph):
    with sample_kg.db.session() as session:
        other_case = OfflineSafeFeedback(_view(sample_kg, session, Scope(cases=("sample-2",))), sample_kg.catalog,
                                         sample_kg.matcher)
        v = _last(other_case, plan_for(graph), [graph.cite(1, "Hey Jude", "performer", "Madonna")])
    assert v.error_type == E.UNSUPPORTED


def test_a_step_from_a_disconnected_entity_is_off_topic(graph, verifier):
    chain = [graph.cite(1, "Hey Jude", "performer", "Madonna"), graph.cite(2, "Linux", "developer", "Grace Hopper")]
    assert _last(verifier, plan_for(graph), chain).error_type == E.OFF_TOPIC


def test_a_relation_no_part_asks_for_is_off_topic(graph, verifier):
    chain = good_chain(graph)[:2] + [graph.cite(3, "Canada", "head of state", "Jacinda Ardern")]
    v = _last(verifier, plan_for(graph), chain)
    assert v.error_type == E.OFF_TOPIC and "head of state" in v.diagnosis


def test_a_step_back_to_a_visited_entity_is_redundancy(graph, verifier):
    chain = good_chain(graph)[:2] + [
        graph.cite(3, "Madonna", "country of citizenship", "Canada", direction="in")]
    v = _last(verifier, plan_for(graph), chain)
    assert v.error_type == E.REDUNDANCY


def test_a_step_after_the_last_part_is_overthinking(graph, verifier):
    chain = good_chain(graph) + [graph.cite(4, "Canada", "head of state", "Jacinda Ardern")]
    v = _last(verifier, plan_for(graph), chain)
    assert v.error_type == E.OVERTHINKING and v.force_answer


def test_a_step_that_reaches_no_entity_is_inefficiency(graph, verifier):
    step = StepView("s1", "logical", 1, "q", graph.ids["Hey Jude"], "Hey Jude", None, "a lovely tune")
    assert _last(verifier, plan_for(graph), [step]).error_type == E.INEFFICIENCY


def test_nothing_found_while_the_fact_is_there_is_information_miss(graph, verifier):
    step = StepView("s1", "attribution", 1, "q", graph.ids["Hey Jude"], "Hey Jude", None, None)
    pool = [graph.fact("Hey Jude", "performer", "Madonna")]
    v = verifier.judge(QUESTION, plan_for(graph), [], step, pool)
    assert v.error_type == E.INFORMATION_MISS and v.suggested_fact_id == pool[0].fact_id
    # with nothing in the pool, saying so is right
    assert verifier.judge(QUESTION, plan_for(graph), [], step, []).error_type == E.CORRECT


def test_skipping_an_edge_is_premature_attribution(graph, verifier):
    # from Hey Jude straight to Madonna's citizenship: the performer edge was never cited
    chain = [graph.cite(1, "Madonna", "country of citizenship", "Canada")]
    assert _last(verifier, plan_for(graph), chain).error_type == E.PREMATURE_ATTRIBUTION


def test_answering_a_later_part_first_is_premature_attribution(sample_kg, graph, verifier):
    # a plan whose second part asks for the capital first: citing citizenship answers part 3 early
    plan = plan_for(graph)
    plan.relations = [plan.relations[0], plan.relations[2], plan.relations[1]]
    chain = good_chain(graph)[:2]
    v = _last(verifier, plan, chain)
    assert v.error_type == E.PREMATURE_ATTRIBUTION and "part 3" in v.diagnosis


def test_an_inferred_link_no_fact_supports_is_a_logical_fallacy(graph, verifier):
    step = StepView("s1", "logical", 1, "q", graph.ids["Hey Jude"], "Hey Jude", graph.ids["Canada"], "Canada")
    assert _last(verifier, plan_for(graph), [step]).error_type == E.LOGICAL_FALLACY
    direct = StepView("s1", "logical", 1, "q", graph.ids["Hey Jude"], "Hey Jude", graph.ids["Madonna"], "Madonna")
    assert _last(verifier, plan_for(graph), [direct]).error_type == E.CORRECT


def test_answering_before_every_part_is_premature_conclusion(graph, verifier):
    chain = good_chain(graph)[:1] + [graph.final(2, "Madonna")]
    v = _last(verifier, plan_for(graph), chain)
    assert v.error_type == E.PREMATURE_CONCLUSION and "citizenship" in v.guidance


def test_an_answer_off_the_path_end_is_a_wrong_conclusion(graph, verifier):
    chain = good_chain(graph) + [graph.final(4, "Ottawa")]
    v = _last(verifier, plan_for(graph), chain)
    assert v.error_type == E.WRONG_CONCLUSION and "Vancouver" in v.guidance


def test_the_taxonomy_is_grouped_and_ordered():
    assert [m.category for m in E][:4] == ["procedural"] * 4
    assert list(E).index(E.CONTRADICTORY) < list(E).index(E.LOGICAL_FALLACY) < list(E).index(E.WRONG_CONCLUSION)
    assert all(m.definition for m in E)


def test_offline_safe_answers_the_sample_with_a_stored_trajectory(sample_kg):
    kg = sample_kg
    items = [json.loads(line) for line in (SAMPLE / "questions.jsonl").read_text().splitlines() if line.strip()]
    for item in items:
        result = kg.answer(item["question"], method="safe", agents="offline")
        assert matches(result.answer, item["answer"], []), (item, result.chain)
        assert result.status == "answered"
        for a, b in zip(result.chain, result.chain[1:]):
            assert a["answer"] == b["entity"]
        _, steps = kg.query(
            "MATCH (r:Run {id: $run})-[:HAS_STEP]->(s:Step) OPTIONAL MATCH (r)-[:HAS_VERDICT]->(v)-[:ON]->(s) "
            "RETURN s.kind AS kind, s.hop AS hop, s.neff AS neff, v.taxonomy AS taxonomy, v.error_type AS error_type "
            "ORDER BY s.hop", {"run": result.run_id})
        assert [s["kind"] for s in steps] == ["attribution"] * len(result.chain) + ["final"]
        assert all(s["taxonomy"] == "SafeError" and s["error_type"] == "correct" for s in steps)
        assert all(s["neff"] is not None for s in steps[:-1])
    _, rows = kg.query_file(ANALYST / "error_types.cypher")
    safe_rows = [r for r in rows if r["method"] == "safe"]
    assert safe_rows and safe_rows[0]["dataset"] == "edits" and safe_rows[0]["error_type"] == "correct"
    assert sum(r["runs"] for r in safe_rows) == len(items)


def test_safe_config_is_checked(sample_kg):
    from kgtool.errors import ConfigError

    with pytest.raises(ConfigError, match="feedback must be one of"):
        sample_kg.answer("Who performed Hey Jude?", method="safe", feedback="oracle")
    with pytest.raises(ConfigError, match="atomic_steps >= 1"):
        sample_kg.answer("Who performed Hey Jude?", method="safe", atomic_steps=0)
