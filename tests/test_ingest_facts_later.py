"""`ingest_docs(facts="later")`: passages searchable first, facts and relation labels embedded afterwards
(kgtool.ingest.docs.embed_pending, `kgtool db doctor --fix`), on a real Neo4j and a small invented corpus."""
from __future__ import annotations

import json

import pytest

from kgtool.core.scope import Scope
from kgtool.errors import ConfigError
from kgtool.retrieve.fact_seeds import fact_entity_seeds, facts_without_embedding
from kgtool.retrieve.passages import _scope_params, _unit, make_retriever, search_passages

CORPUS = {
    "Orvald Brennick": ["Orvald Brennick was a composer born in Kelmsworth.", " Brennick wrote three operas."],
    "Kelmsworth": ["Kelmsworth is a market town on the River Ashlow.", " Its bridge dates from 1410."],
    "River Ashlow": ["The River Ashlow is 40 miles long."],
}
QUESTION = "Where was Orvald Brennick born?"


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "corpus.json"
    path.write_text(json.dumps(CORPUS), encoding="utf-8")
    return path


def _unembedded_relations(kg) -> int:
    return len(kg.db.read("ingest/relations_without_embedding"))


def test_later_leaves_facts_and_labels_waiting_and_the_doctor_says_so(kg, corpus):
    summary = kg.ingest_docs(corpus, format="hotpotqa", facts="later")
    assert summary.passages == 3 and summary.passages_embedded == 3  # searchable: dense and full-text
    assert summary.facts > 0 and summary.facts_embedded == 0 and summary.relations_embedded == 0
    assert summary.facts_pending and summary.as_dict()["facts_pending"] is True
    assert facts_without_embedding(kg.db, kg.embedder) == summary.facts
    assert _unembedded_relations(kg) == summary.relations
    # no fact of the store has a vector yet, and the doctor still counts them (a document store)
    health = kg.health()
    assert health.facts_without_embedding == summary.facts and not health.ok
    assert any("doctor --fix" in p for p in health.problems())
    with kg.db.session() as session:  # the full-text index was awaited before returning
        assert search_passages(kg.db, session, "Ashlow market town", Scope(), 1)[0].title == "Kelmsworth"


def test_the_walk_works_while_facts_wait_and_seeds_from_facts_after_the_fix(kg, corpus):
    kg.ingest_docs(corpus, format="hotpotqa", facts="later")
    walk = make_retriever(kg.db, "dense+walk", embedder=kg.embedder, walk={"seeds": "facts"})
    probe = _unit(kg.embedder.encode([QUESTION]))[0]
    with kg.db.session() as session:
        # the names the question links, as in a store without fact vectors
        assert walk._walk_entities(session, QUESTION, Scope()) == ["name:orvald brennick"]
        assert walk.retrieve(session, QUESTION, Scope(), 2)[0].title == "Orvald Brennick"
        assert fact_entity_seeds(kg.db, session, probe, _scope_params(Scope())) == {}
    repaired = kg.repair()
    assert repaired.facts_embedded > 0 and repaired.relations_embedded > 0
    assert kg.health().ok and facts_without_embedding(kg.db, kg.embedder) == 0 and _unembedded_relations(kg) == 0
    with kg.db.session() as session:
        seeds = walk._walk_entities(session, QUESTION, Scope())
        assert fact_entity_seeds(kg.db, session, probe, _scope_params(Scope()))
    assert isinstance(seeds, dict) and seeds  # weighted entities of the nearest facts


def test_later_then_now_is_idempotent_and_ends_as_complete_as_now(kg, corpus):
    first = kg.ingest_docs(corpus, format="hotpotqa", facts="later")
    again = kg.ingest_docs(corpus, format="hotpotqa", facts="later")
    assert not any(again.new.values())  # nothing written twice
    assert again.passages_embedded == 0 and facts_without_embedding(kg.db, kg.embedder) == first.facts
    now = kg.ingest_docs(corpus, format="hotpotqa")  # the default embeds what the earlier runs left
    assert not any(now.new.values()) and not now.facts_pending
    assert now.facts_embedded == first.facts and now.relations_embedded == first.relations
    assert kg.health().ok and kg.ingest_docs(corpus, format="hotpotqa").facts_embedded == 0


def test_an_unknown_timing_is_refused_before_anything_is_written(kg, corpus):
    with pytest.raises(ConfigError, match="facts timing"):
        kg.ingest_docs(corpus, format="hotpotqa", facts="soon")
    assert kg.db.read("ingest/node_counts")[0]["passages"] == 0
