"""An unnamed link to a thing of the same kind leaves the answer unearned (kgtool.reason.agents.offline.peer_links).

"Who is the chief executive of H?", where the holding H has none but owns a firm that has one,
must not be answered with the firm's chief executive: H and the firm are both stated with where
they are based, so H could have a chief executive and lacks one. A link to a thing of another kind
(a city's country, for its currency) is still a link a question may leave implicit.
"""
from __future__ import annotations

import pytest

from kgtool.core.types import CandidateFact
from kgtool.reason.agents.offline.common import OfflinePlan, relation_key
from kgtool.reason.agents.offline.peer_links import peer_links
from kgtool.reason.context import HopState
from kgtool.reason.status import settle
from helpers import ingest_triples


def fact(fid: str, head: str, relation: str, tail: str, direction: str = "out") -> CandidateFact:
    return CandidateFact(fact_id=fid, head_id=head, head=head, relation=relation, tail_id=tail, tail=tail,
                         evidence=f"{head} {relation} {tail}.", direction=direction)


NEIGHBOURS = {
    "holding": [fact("f1", "holding", "owns", "firm"), fact("f2", "holding", "based in", "north")],
    "firm": [fact("f1", "holding", "owns", "firm", "in"), fact("f3", "firm", "chief executive", "oda"),
             fact("f4", "firm", "based in", "south")],
    "city": [fact("f5", "city", "located in", "land"), fact("f6", "city", "mayor", "ivo")],
    "land": [fact("f5", "city", "located in", "land", "in"), fact("f7", "land", "currency", "crown")],
}


def plan(topic: str, facts: list[CandidateFact], explained: list[list[str]]) -> OfflinePlan:
    return OfflinePlan(subquestions=["?"] * len(facts), topic=topic, topic_id=topic,
                       relations=[relation_key(f) for f in facts], directions=[f.direction for f in facts],
                       entities=[f.tail_id for f in facts], facts=[f.fact_id for f in facts], explained=explained)


def test_an_unnamed_link_between_two_things_of_one_kind_is_found():
    p = plan("holding", [NEIGHBOURS["holding"][0], NEIGHBOURS["firm"][1]], [[], ["chief", "executive"]])
    found = peer_links(p, NEIGHBOURS, lambda e: e.title())
    assert [fid for fid, _reason in found] == ["f1"]
    assert "Holding" in found[0][1] and "based in" in found[0][1]
    # named by the question ("the chief executive of the firm the holding owns"), the link is a hop like any other
    p = plan("holding", [NEIGHBOURS["holding"][0], NEIGHBOURS["firm"][1]], [["owns"], ["chief", "executive"]])
    assert peer_links(p, NEIGHBOURS, str) == []


def test_an_unnamed_link_to_a_thing_of_another_kind_is_not():
    p = plan("city", [NEIGHBOURS["city"][0], NEIGHBOURS["land"][1]], [[], ["currency"]])
    assert peer_links(p, NEIGHBOURS, str) == []


TYPED = {
    # a firm's head office is a typed city: both have a `type` fact, which makes them of no one kind
    "firm": [fact("t1", "firm", "type", "company"), fact("f8", "firm", "head office", "town")],
    "town": [fact("f8", "firm", "head office", "town", "in"), fact("t2", "town", "type", "city"),
             fact("f9", "town", "country", "land")],
    # a fund and the firm it holds, typed alike and sharing no relation of their own
    "fund": [fact("t3", "fund", "type", "company"), fact("f10", "fund", "holds", "firm")],
}


def test_type_facts_tell_the_kind_and_are_no_shared_relation():
    p = plan("firm", [TYPED["firm"][1], TYPED["town"][2]], [[], ["country"]])
    assert peer_links(p, TYPED, str) == []
    neighbours = {**TYPED, "firm": [*TYPED["firm"], fact("f10", "fund", "holds", "firm", "in"),
                                    fact("f11", "firm", "chief executive", "oda")]}
    p = plan("fund", [TYPED["fund"][1], neighbours["firm"][3]], [[], ["chief", "executive"]])
    found = peer_links(p, neighbours, str)
    assert [fid for fid, _reason in found] == ["f10"] and "both are 'company'" in found[0][1]


def test_the_status_rule_does_not_answer_a_chain_through_a_peer_link():
    p = plan("holding", [NEIGHBOURS["holding"][0], NEIGHBOURS["firm"][1]], [[], ["chief", "executive"]])
    p.peer_links = peer_links(p, NEIGHBOURS, str)
    chain = [HopState(step_id=f"s{i}", hop=i + 1, query="?", entity=f.head, entity_id=f.head_id, answer=f.tail,
                      answer_id=f.tail_id,
                      fact=f) for i, f in enumerate([NEIGHBOURS["holding"][0], NEIGHBOURS["firm"][1]])]
    settled = settle("answered", "oda", chain, p, reading_gaps=lambda: [])
    assert settled.status == "no_answer" and "same kind" in settled.reason and settled.guess == "oda"
    # a chain that does not take the link is not judged by it
    settled = settle("answered", "oda", chain[1:], plan("firm", [NEIGHBOURS["firm"][1]], [["chief"]]),
                     reading_gaps=lambda: [])
    assert settled.status == "answered"


FACTS = [("Tamsk Holdings", "OWNS", "Verrin Cargo"), ("Tamsk Holdings", "BASED_IN", "Oslen"),
         ("Verrin Cargo", "BASED_IN", "Dravik"), ("Verrin Cargo", "CHIEF_EXECUTIVE", "Oda Brask")]


@pytest.fixture
def peer_kg(kg, tmp_path):
    ingest_triples(kg, tmp_path / "kg.jsonl", FACTS)
    return kg


@pytest.mark.parametrize("method", ["care", "c2rag"])
def test_no_method_answers_through_a_peer_link(peer_kg, method):
    result = peer_kg.answer("Who is the chief executive of Tamsk Holdings?", method=method, agents="offline")
    assert result.status != "answered", (result.answer, result.reason)
    result = peer_kg.answer("Who is the chief executive of Verrin Cargo?", method=method, agents="offline")
    assert (result.answer, result.status) == ("Oda Brask", "answered"), result.reason
    assert "same kind" in peer_kg.answer("Who is the chief executive of Tamsk Holdings?", method=method,
                                         agents="offline").reason
