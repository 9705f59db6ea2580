"""Relationship types named the property-graph way: "(a)-[:ACQUIRED]->(b)" reads "a acquired b".

The role check (kgtool.reason.roles) reads who does what to whom from a relation's phrasings. A
label that is a verb alone, finite ("acquired", "operates", "bought"), makes its head the doer and
its tail the one done to; a verb whose sides do the same to each other ("married") gives neither a
role; a participle naming a state ("located", "born in") keeps its passive reading. In memory with
the packaged MiniLM and WordNet (test_explains' fixtures), then through the methods on a real graph.
"""
from __future__ import annotations

import pytest
from test_explains import hop, reading, reading_check, scorer  # noqa: F401  (fixtures)
from test_offline_agents import matcher  # noqa: F401  (the MiniLM matcher fixture)

from kgtool.reason.roles import AGENT, OBLIQUE, PATIENT, relation_role, segment_role
from helpers import ingest_triples

LABELS = {"rel:absorbed": ["absorbed"], "rel:operates": ["operates"], "rel:married": ["married"],
          "rel:based in": ["based in"], "rel:chief executive": ["chief executive"],
          "rel:founded by": ["founded by"]}


@pytest.fixture
def label_check(scorer, matcher):  # noqa: F811
    return reading_check(scorer, matcher, LABELS)


def test_a_verb_label_makes_its_head_the_doer():
    for label in ("absorbed", "operates", "bought", "wrote", "sponsors"):
        role = relation_role(label, ["{} " + label])  # the fact's own sentence reads the same
        assert (role.head, role.tail) == (AGENT, PATIENT), label
    # other shapes keep their readings: a passive with "by", a participle of place, a noun, a verb with its object
    assert (relation_role("founded by").head, relation_role("founded by").tail) == (PATIENT, AGENT)
    assert (relation_role("born in").tail, relation_role("born in").tail_place) == (OBLIQUE, True)
    assert relation_role("located in the administrative territorial entity").tail == OBLIQUE
    for label in ("has ceo", "sibling", "chief executive", "children", "members"):
        assert (relation_role(label).head, relation_role(label).tail) == (None, None), label


def test_a_reciprocal_or_stative_verb_label_does_not_make_its_head_the_doer():
    for label in ("married", "located", "based"):  # "a married b" is "b married a"; "a located b" is a state
        assert relation_role(label, ["{} " + label]).head != AGENT, label


def test_which_noun_then_a_verb_asks_for_its_doer():
    def role(question, topic):
        r = reading(question, topic)
        return segment_role(r.segments[-1], r.topic).answer

    assert role("Which company absorbed Pell Freight?", "Pell Freight") == AGENT
    assert role("Which firm operates the Orvo Dam?", "Orvo Dam") == AGENT
    assert role("Which company was absorbed by Pell Freight?", "Pell Freight") == PATIENT
    assert role("What did Pell Freight absorb?", "Pell Freight") == PATIENT
    assert role("Which country is Pell Freight in?", "Pell Freight") != AGENT  # a noun, not a verb, after "which"


def test_a_verb_label_read_the_wrong_way_round_is_a_gap(label_check):
    """X ABSORBED Y: 'Which company absorbed X?' is not answered by Y (X is the absorber), and is by
    whoever absorbed X."""
    q = "Which company absorbed Pell Freight?"
    assert label_check.check(reading(q, "Pell Freight"), [hop(1, "absorbed")]).reasons()
    assert label_check.check(reading(q, "Pell Freight"), [hop(1, "absorbed", "in")]).reasons() == []
    q = "What did Pell Freight absorb?"
    assert label_check.check(reading(q, "Pell Freight"), [hop(1, "absorbed")]).reasons() == []
    assert label_check.check(reading(q, "Pell Freight"), [hop(1, "absorbed", "in")]).reasons()
    q = "Who operates the Orvo Dam?"
    assert label_check.check(reading(q, "Orvo Dam"), [hop(1, "operates")]).reasons()
    assert label_check.check(reading(q, "Orvo Dam"), [hop(1, "operates", "in")]).reasons() == []


def test_a_reciprocal_verb_label_answers_the_way_the_question_reads_it(label_check):
    q = "Who married Ines Farrow?"
    assert label_check.check(reading(q, "Ines Farrow"), [hop(1, "married")]).reasons() == []
    q = "Whom did Ines Farrow marry?"
    assert label_check.check(reading(q, "Ines Farrow"), [hop(1, "married", "in")]).reasons() == []


DEALS = [("Tamsk Shipping", "ACQUIRED", "Verrin Cargo"), ("Holm Group", "ACQUIRED", "Tamsk Shipping"),
         ("Ada Brun", "FOUNDED", "Tamsk Shipping"), ("Tamsk Shipping", "HEADQUARTERED_IN", "Oslen")]


@pytest.mark.parametrize("question, names", [
    ("Which company acquired Tamsk Shipping?", ["Holm Group"]),  # its own "acquired" fact makes it the acquirer
    ("Which company did Tamsk Shipping acquire?", ["Verrin Cargo"]),
    # "based" shares WordNet's "establish" with "found": "where" asks for its place, not the founder
    ("Where is Tamsk Shipping based?", ["Oslen"]),
])
def test_the_planner_reads_a_verb_label_the_way_the_question_does(matcher, question, names):  # noqa: F811
    from test_plan_kinds import planned_path

    assert planned_path(matcher, question, DEALS) == names


FACTS = [("Tamsk Shipping", "ABSORBED", "Verrin Cargo"), ("Tamsk Shipping", "CHIEF_EXECUTIVE", "Oda Brask"),
         ("Verrin Cargo", "founded by", "Lio Fenn"), ("Holm Energy", "OPERATES", "Orvo Dam")]


@pytest.fixture
def label_kg(kg, tmp_path):
    ingest_triples(kg, tmp_path / "kg.jsonl", FACTS)
    return kg


@pytest.mark.parametrize("method", ["care", "c2rag"])
def test_no_method_answers_a_verb_label_read_backwards(label_kg, method):
    """The graph has Tamsk ABSORBED Verrin only: who absorbed Tamsk is not in it, and Verrin is no answer."""
    result = label_kg.answer("Which company absorbed Tamsk Shipping?", method=method, agents="offline")
    assert result.status != "answered", (result.answer, result.reason)
    result = label_kg.answer("Which company absorbed Verrin Cargo?", method=method, agents="offline")
    assert (result.answer, result.status) == ("Tamsk Shipping", "answered"), result.reason
    result = label_kg.answer("Who operates Holm Energy?", method=method, agents="offline")
    assert result.status != "answered", (result.answer, result.reason)
