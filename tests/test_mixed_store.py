"""Stores that mix sources: namesakes from two edit corpora, passages beside stated facts.

Own fictional data in tests/data/mixed/:
- namesake_first.jsonl / namesake_second.jsonl: two edit corpora that each bring
  a singer called "Ilsa Varn" (the second with Wikidata-style ids, so the two are
  different entities). The question is about the first one's path; the second
  one's entity has more relations and wins the name by id order.
"""
from __future__ import annotations

from pathlib import Path

from kgtool.core.scope import Scope
from kgtool.core.types import CandidateFact
from kgtool.reason.agents.offline.common import StatedOnly, reads_passages
from kgtool.reason.graphview import GraphView

DATA = Path(__file__).resolve().parent / "data" / "mixed"
METHODS = ("care", "c2rag", "reagent", "safe", "vog")
NAMESAKE_QUESTION = "Who is the spouse of the head of state of the country Ilsa Varn is a citizen of?"


def _singers(kg) -> list[str]:
    rows = kg.query("MATCH (e:Entity) WHERE e.name = 'Ilsa Varn' RETURN e.id AS id ORDER BY id")[1]
    return [r["id"] for r in rows]


def test_the_agents_view_offers_every_entity_of_a_shared_name(kg):
    kg.ingest_edits(DATA / "namesake_first.jsonl")
    kg.ingest_edits(DATA / "namesake_second.jsonl")
    singers = _singers(kg)
    assert len(singers) == 2  # two sources, two entities of one name (the premise of this test)
    start = NAMESAKE_QUESTION.index("Ilsa Varn")
    at_span = [m for m in kg.catalog.link_mentions(NAMESAKE_QUESTION) if m[0] == start]
    assert len(at_span) == 1  # the linker settles the name on one of them
    view = GraphView(kg.db, kg.catalog, Scope.parse(None))
    offered = [m for m in view.link_mentions(NAMESAKE_QUESTION) if m[0] == start]
    assert offered[0] == at_span[0]  # the linker's choice first
    assert sorted(m[2] for m in offered) == singers
    assert {(m[0], m[1], m[3]) for m in offered} == {(start, start + len("Ilsa Varn"), "Ilsa Varn")}


def test_a_namesake_from_another_corpus_does_not_take_the_question(kg):
    kg.ingest_edits(DATA / "namesake_first.jsonl")
    for method in METHODS:
        before = kg.answer(NAMESAKE_QUESTION, method=method, agents="offline")
        assert (before.answer, before.status) == ("Greta Hollin", "answered"), (method, before.reason)
    kg.ingest_edits(DATA / "namesake_second.jsonl")
    assert len(_singers(kg)) == 2
    for method in METHODS:
        after = kg.answer(NAMESAKE_QUESTION, method=method, agents="offline")
        relations = [h.get("relation") for h in after.chain]
        assert (after.answer, after.status) == ("Greta Hollin", "answered"), (method, after.reason, relations)
        assert relations == ["country of citizenship", "head of state", "spouse"], method
    # the other singer's own path still answers its own question
    other = kg.answer("What is the capital of the country of citizenship of the director of Ilsa Varn?",
                      method="care", agents="offline")
    assert other.answer == "Port Amsel", other.reason


# facts.jsonl states a citizenship and an employer; passages.jsonl says otherwise about the same people
# (another country with its own capital, another employer with its own seat), adds what only they know,
# and describes the stated answer with a relation of its own ("Tessit is a city on the river Lune")
STATED_QUESTIONS = [
    ("What is the capital of the country Brannoch Ives is a citizen of?", "Tessit"),
    ("Where is the headquarters of the employer of Odile Marsh?", "Tessit"),
    # a passage about the answer names it "a city": no hop further for the answer's type
    ("Which city is the capital of the country Brannoch Ives is a citizen of?", "Tessit"),
    # a document titled "Citizenship" made an entity of the word, a longer name than "Ivo Tal"
    ("What is the capital of the country of citizenship of Ivo Tal?", "Tessit"),
]


def test_a_document_corpus_does_not_overrule_the_stated_facts(kg):
    kg.ingest_facts(DATA / "facts.jsonl")
    kg.ingest_docs(DATA / "passages.jsonl", format="jsonl")
    # the premise: the passages gave the same people relations of their own, read only from text
    rows = kg.query("MATCH (:Entity {name: 'Brannoch Ives'})-[:SUBJECT_OF]->(f:Fact)-[:OBJECT]->(t:Entity) "
                    "RETURN f.relation AS relation, f.source AS source, t.name AS tail")[1]
    assert any(r["tail"] == "Drelland" and r["source"] not in ("edit", "base") for r in rows), rows
    for question, expected in STATED_QUESTIONS:
        for method in METHODS:
            result = kg.answer(question, method=method, agents="offline")
            relations = [h.get("relation") for h in result.chain]
            assert result.answer == expected, (question, method, result.answer, relations)
            assert result.status == "answered", (question, method, result.reason)
    # the premise of the "Citizenship" question: a document made an entity of the word, and the linker
    # reads the question's lower-case "citizenship" as the ordinary word (so does the agents' view)
    question = STATED_QUESTIONS[-1][0]
    assert kg.catalog.entity_name(kg.catalog.link("Citizenship")) == "Citizenship"
    assert [m[3] for m in kg.catalog.link_mentions(question)] == ["Ivo Tal"]
    view = GraphView(kg.db, kg.catalog, Scope.parse(None))
    assert [m[3] for m in view.link_mentions(question)] == ["Ivo Tal"]
    assert "citizenship" in [m[3] for m in view.link_mentions(question.lower())]  # an uncased text keeps all
    # what only the passages know is still answered from them
    born = kg.answer("Where was Brannoch Ives born?", method="care", agents="offline")
    assert born.answer == "Hollow Reach", (born.answer, born.reason)


def _fact(fact_id: str, stated: bool) -> CandidateFact:
    return CandidateFact(fact_id, "h", "H", "rel", "t", "T", "", None, "out", stated=stated)


def test_the_source_prior_search_sees_only_stated_facts():
    neighbours = {"h": [_fact("s1", True), _fact("p1", False)]}
    stated = StatedOnly(neighbours)
    assert [f.fact_id for f in stated["h"]] == ["s1"]
    stated.update({"t": [_fact("p2", False), _fact("s2", True)]})  # a neighbourhood read later
    assert [f.fact_id for f in stated["t"]] == ["s2"]
    assert [f.fact_id for f in neighbours["h"]] == ["s1", "p1"]  # the answer's own cache is untouched
    assert reads_passages(["s1", "p1"], neighbours) and not reads_passages(["s1"], neighbours)
    assert not reads_passages([], neighbours)


# strangers.jsonl: passages about other people and places only. One says whose father was Spanish; one
# is a catalogue line ("Lantern Parade - place: Brisk Harbour") from which extraction makes a relation
# labelled "place", the kind word of a "where" question; one is about a composer who studied somewhere.
def test_passages_about_other_things_neither_answer_nor_type_a_stated_chain(kg):
    kg.ingest_facts(DATA.parent / "handwritten" / "kg.jsonl")
    kg.ingest_docs(DATA / "strangers.jsonl", format="jsonl")
    rows = kg.query("MATCH (f:Fact {relation: 'place'}) RETURN f.source AS source")[1]
    assert rows and all(r["source"] not in ("edit", "base") for r in rows)  # the premise
    # the graph's two parents leave the hop ambiguous (N_eff above gamma); text recovery may read only
    # passages that name the person, and none does, so the graph's own candidates stay
    father = kg.answer("What is the occupation of Ilse Varnok's father?", method="c2rag", agents="offline")
    assert father.answer == "shipwright", (father.answer, father.reason)
    # a chain of stated facts that ends short of the answer (at an occupation) is not completed by a
    # page about another composer: the word "composer" is no link to the graph's entity
    study = kg.answer("Where did the husband of Ilse Varnok study?", method="c2rag", agents="offline")
    assert "Conservatory" not in (study.answer or "") and study.status != "answered", (study.answer, study.reason)
    # a stated birthplace is not judged by the documents' "place" relation, which the user's graph lacks
    for method in ("care", "c2rag"):
        born = kg.answer("Where was Ilse Varnok born?", method=method, agents="offline")
        assert (born.answer, born.status) == ("Harnbury", "answered"), (method, born.reason)
