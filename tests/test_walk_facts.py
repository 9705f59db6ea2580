"""The graph walk's query-to-triple seeds (kgtool.retrieve.fact_seeds) on a real Neo4j and a small invented corpus."""
from __future__ import annotations

import json

import numpy as np
import pytest

from kgtool.core.scope import Scope
from kgtool.errors import ConfigError
from kgtool.retrieve.fact_seeds import embed_facts, entity_weights, fact_entity_seeds, fact_text
from kgtool.retrieve.passages import _unit, make_retriever

# An invented corpus: the question asks for the river of a made-up composer's town, written in lower
# case (no name the linker would keep as a walk seed); only the facts tie the composer to the town.
CORPUS = {
    "Orvald Brennick": ["Orvald Brennick was a composer born in Kelmsworth.", " Brennick wrote three operas."],
    "Kelmsworth": ["Kelmsworth is a market town on the River Ashlow.", " Its bridge dates from 1410."],
    "River Ashlow": ["The River Ashlow is 40 miles long."],
    "Opera in Lund": ["An opera season runs in Lund, where composers meet every spring."],
    "Composer prizes": ["The composer prize of Tavern Hill is given to a composer of operas each year."],
    "Market towns": ["A market town holds a weekly market; many market towns stand on rivers."],
}
QUESTION = "which river runs through the town where orvald brennick was born?"


@pytest.fixture
def facts_kg(kg, tmp_path):
    path = tmp_path / "corpus.json"
    path.write_text(json.dumps(CORPUS), encoding="utf-8")
    kg.ingest_docs(path, format="hotpotqa", embed_relations=False)
    return kg


def _facts(kg) -> list[dict]:
    with kg.db.session() as session:
        return [dict(r) for r in session.run(
            "MATCH (h:Entity)-[:SUBJECT_OF]->(f:Fact)-[:OBJECT]->(t:Entity) "
            "RETURN f.id AS id, h.id AS head_id, h.name AS head, f.relation AS relation, t.id AS tail_id, "
            "t.name AS tail, f.embedding AS embedding, f.embedding_model AS model")]


def test_entity_weights_follow_hipporag2():
    rows = [{"score": 0.8, "head_id": "a", "head_degree": 1, "tail_id": "b", "tail_degree": 4},
            {"score": 0.4, "head_id": "a", "head_degree": 1, "tail_id": "c", "tail_degree": 0},
            {"score": 0.2, "head_id": "d", "head_degree": 2, "tail_id": "e", "tail_degree": 2}]
    weights = entity_weights(rows, entities=3)
    # scores over the best (1, 0.5, 0.25), divided by the passage degree, averaged per entity, best 3 kept
    assert weights == pytest.approx({"a": (1.0 + 0.5) / 2, "c": 0.5, "b": 0.25})
    assert entity_weights([]) == {}


def test_ingest_embeds_each_fact_once_as_its_triple(facts_kg):
    kg = facts_kg
    facts = _facts(kg)
    assert facts and all(f["embedding"] for f in facts)
    assert {f["model"] for f in facts} == {kg.embedder.name}
    one = facts[0]
    expected = _unit(kg.embedder.encode([fact_text(one["head"], one["relation"], one["tail"])]))[0]
    assert float(_unit(np.asarray(one["embedding"]))[0] @ expected) > 0.999
    assert embed_facts(kg.db, kg.embedder) == 0  # nothing left to embed: idempotent


def test_ingest_reports_the_fact_embedding_progress(kg, tmp_path):
    path = tmp_path / "corpus.json"
    path.write_text(json.dumps(CORPUS), encoding="utf-8")
    seen = []
    summary = kg.ingest_docs(path, format="hotpotqa", embed_relations=False,
                             fact_progress=lambda done, total: seen.append((done, total)))
    assert summary.facts_embedded > 0 and seen[-1] == (summary.facts_embedded, summary.facts_embedded)


def test_fact_seeds_are_the_nearest_facts_entities_and_anchors_filter_them(facts_kg):
    kg = facts_kg
    probe = _unit(kg.embedder.encode([QUESTION]))[0]
    scope = {"cases": None, "batches": None}
    with kg.db.session() as session:
        seeds = fact_entity_seeds(kg.db, session, probe, scope)
        rows = kg.db.run_in(session, "walk/fact_seeds", embedding=[float(x) for x in probe], limit=20, **scope)
        anchored = fact_entity_seeds(kg.db, session, probe, scope, anchors=["name:river ashlow"], facts=1)
    assert "name:orvald brennick" in seeds and 0 < len(seeds) <= 5
    assert [r["score"] for r in rows] == sorted((r["score"] for r in rows), reverse=True)
    # the anchor keeps only facts that touch it: the one fact left is the town's river
    ashlow = [r for r in rows if "name:river ashlow" in (r["head_id"], r["tail_id"])]
    assert ashlow and rows[0] not in ashlow
    assert set(anchored) == {ashlow[0]["head_id"], ashlow[0]["tail_id"]}


def test_fact_seeds_bring_the_far_hop_the_names_miss(facts_kg):
    kg = facts_kg
    by_names = make_retriever(kg.db, "dense+walk", embedder=kg.embedder, pool_size=1, walk={"seeds": "names"})
    by_facts = make_retriever(kg.db, "dense+walk", embedder=kg.embedder, pool_size=1, walk={"seeds": "facts"})
    with kg.db.session() as session:
        assert by_names._walk_entities(session, QUESTION, Scope()) == []  # nothing written as a name
        seeds = by_facts._walk_entities(session, QUESTION, Scope())
        names_top = [h.title for h in by_names.retrieve(session, QUESTION, Scope(), 2)]
        facts_top = [h.title for h in by_facts.retrieve(session, QUESTION, Scope(), 2)]
    assert {"name:orvald brennick", "name:kelmsworth"} <= set(seeds)
    # the names walk only spreads from the one pooled passage; the facts reach the town's river
    assert "River Ashlow" not in names_top
    assert "River Ashlow" in facts_top and "Kelmsworth" in facts_top


def test_walk_seed_options_are_checked(facts_kg):
    with pytest.raises(ConfigError, match="walk seeds"):
        make_retriever(facts_kg.db, "dense+walk", embedder=facts_kg.embedder, walk={"seeds": "words"})
    with pytest.raises(ConfigError, match="walk passage seeds"):
        make_retriever(facts_kg.db, "dense+walk", embedder=facts_kg.embedder, walk={"passage_seeds": "all"})


def test_a_store_without_fact_vectors_falls_back_to_the_names(facts_kg, tmp_path):
    kg = facts_kg
    questions = tmp_path / "dev.json"
    questions.write_text(json.dumps([{"_id": "q1", "question": QUESTION, "answer": "River Ashlow",
                                      "supporting_facts": [["Orvald Brennick", 0], ["Kelmsworth", 0]]}]))

    def unembedded(retrievers):
        return kg.evaluate_retrieval(questions, format="hotpotqa", k="2", retrievers=retrievers).as_dict()[
            "facts_without_embedding"]

    assert unembedded("dense+walk") == 0 and unembedded("dense") is None
    with kg.db.session() as session:
        session.run("MATCH (f:Fact) REMOVE f.embedding, f.embedding_model").consume()
    # the report says the walk could not seed from facts, so its figures are not read as the new walk's
    assert unembedded("dense+walk") == len(_facts(kg))
    walk = make_retriever(kg.db, "dense+walk", embedder=kg.embedder, walk={"seeds": "facts"})
    with kg.db.session() as session:
        assert walk._walk_entities(session, "Where was Orvald Brennick born?", Scope()) == ["name:orvald brennick"]
        hits = walk.retrieve(session, "Where was Orvald Brennick born?", Scope(), 2)
    assert hits and hits[0].title == "Orvald Brennick"


def test_a_store_without_the_fact_index_falls_back_to_the_names(facts_kg):
    # a store made before the fact index existed, read without applying the schema again
    kg = facts_kg
    walk = make_retriever(kg.db, "dense+walk", embedder=kg.embedder, walk={"seeds": "facts"})
    with kg.db.session() as session:
        session.run("DROP INDEX fact_embedding IF EXISTS").consume()
    try:
        with kg.db.session() as session:
            assert walk._walk_entities(session, "Where was Orvald Brennick born?", Scope()) == ["name:orvald brennick"]
    finally:
        kg.init_schema()
        with kg.db.session() as session:
            session.run("CALL db.awaitIndexes(300)").consume()


def test_facts_loaded_after_the_documents_are_embedded_at_their_own_ingest(facts_kg, tmp_path):
    kg = facts_kg
    extra = tmp_path / "extra.jsonl"
    extra.write_text(json.dumps({"head": "Kelmsworth", "relation": "twinned with", "tail": "Ostrava Nova"}) + "\n"
                     + json.dumps({"head": "Orvald Brennick", "relation": "pupil of", "tail": "Ilse Marr"}) + "\n")
    summary = kg.ingest_facts(extra)
    # the walk's fact seeds reach them now, not only after the next document ingest
    assert summary.facts_embedded == 2 and summary.as_dict()["facts_embedded"] == 2
    assert all(f["embedding"] for f in _facts(kg))
    assert kg.ingest_facts(extra).facts_embedded == 0  # a re-run embeds nothing again


def test_a_store_of_plain_facts_embeds_none(kg, tmp_path):
    plain = tmp_path / "plain.jsonl"
    plain.write_text(json.dumps({"head": "Kelmsworth", "relation": "twinned with", "tail": "Ostrava Nova"}) + "\n")
    assert kg.ingest_facts(plain).facts_embedded == 0
    assert not any(f["embedding"] for f in _facts(kg))
    assert kg.health().facts_without_embedding == 0  # by design, not a problem for the doctor


def test_the_doctor_finds_and_embeds_a_document_store_fact_without_a_vector(facts_kg):
    kg = facts_kg
    with kg.db.session() as session:
        session.run("MATCH (f:Fact) WITH f LIMIT 1 REMOVE f.embedding, f.embedding_model").consume()
    found = kg.health()
    assert found.facts_without_embedding == 1 and not found.ok
    assert any("fact(s) without an embedding" in p for p in found.problems())
    assert kg.repair().facts_embedded == 1
    assert kg.health().ok and all(f["embedding"] for f in _facts(kg))


def test_strict_recognition_counts_no_fact_that_misses_the_names(facts_kg):
    # HippoRAG 2's filter may keep no fact; offline, a fact "fits" when it touches a name the question links
    kg = facts_kg
    probe = _unit(kg.embedder.encode([QUESTION]))[0]
    scope = {"cases": None, "batches": None}
    with kg.db.session() as session:
        loose = fact_entity_seeds(kg.db, session, probe, scope, anchors=["name:no such entity"])
        strict = fact_entity_seeds(kg.db, session, probe, scope, anchors=["name:no such entity"], strict=True)
        unanchored = fact_entity_seeds(kg.db, session, probe, scope, strict=True)
        anchored = fact_entity_seeds(kg.db, session, probe, scope, anchors=["name:river ashlow"], strict=True)
    assert loose and "name:orvald brennick" in loose  # the plain top facts stand in for the missing match
    assert strict == {} and unanchored == {}
    assert "name:river ashlow" in anchored


def test_a_walk_nothing_recognised_keeps_the_first_stage_ranking(facts_kg):
    # QUESTION names nothing the linker keeps, and no anchor means no fact fits: by default the walk is not
    # run (HippoRAG 2 returns its dense ranking then); `loose` walks from the plain top facts as before
    # (here that walk put the town, the next hop, first: the price of not walking on unfiltered facts)
    kg = facts_kg
    dense = make_retriever(kg.db, "dense", embedder=kg.embedder)
    strict = make_retriever(kg.db, "dense+walk", embedder=kg.embedder)
    with kg.db.session() as session:
        first = [(h.passage_id, h.score) for h in dense.retrieve(session, QUESTION, Scope(), 4)]
        kept = [(h.passage_id, h.score) for h in strict.retrieve(session, QUESTION, Scope(), 4)]
    assert kept == first
    assert strict.walk["recognition"] == "strict" and strict.walk["seeds"] == "both"
    loose = make_retriever(kg.db, "dense+walk", embedder=kg.embedder, walk={"recognition": "loose"})
    with kg.db.session() as session:
        walked = loose.retrieve(session, QUESTION, Scope(), 4)
        named = strict.retrieve(session, "Which river runs through the town where Orvald Brennick was born?",
                                Scope(), 4)
    assert all("walk" in h.scores for h in walked) and loose.last_walk["passages"] > 0
    # a question that names its entity still walks under the default
    assert all("walk" in h.scores for h in named) and strict.last_walk["passages"] > 0
    with pytest.raises(ConfigError, match="walk recognition"):
        make_retriever(kg.db, "dense+walk", embedder=kg.embedder, walk={"recognition": "none"})
