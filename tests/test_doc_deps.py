"""The dependency-parse extractor (kgtool.ingest.doc_deps): spaCy's small English model, for real.

Invented passages; the comparison with the default `mentions` extractor on the dev corpora is in
bench/README.md.
"""
from __future__ import annotations

import json

import pytest

from kgtool.ingest.doc_deps import DependencyExtractor
from kgtool.ingest.doc_extract import MentionExtractor

TEXT = ("Arthur Kessel was born in Dornwick and studied at the University of Lisle. He later founded Kessel "
        "Motors, which is headquartered in Brampton. Kessel Motors was acquired by Vantor Group in 1998. "
        "Brampton is the capital of Eastmere.")


@pytest.fixture(scope="module")
def deps():
    return DependencyExtractor()


def triples(extractor, title: str, text: str) -> set[tuple[str, str, str]]:
    return {(t.head, t.relation, t.tail) for t in extractor.extract_passage(title, text).triples}


def test_subject_verb_object_with_the_sentences_own_words(deps):
    found = triples(deps, "Arthur Kessel", TEXT)
    assert ("Arthur Kessel", "was born in", "Dornwick") in found
    # a coordinated verb keeps its subject; a pronoun subject is the passage's topic
    assert ("Arthur Kessel", "studied at", "University of Lisle") in found
    assert ("Arthur Kessel", "founded", "Kessel Motors") in found
    # a relative clause is said of the noun it hangs on; an agent keeps its preposition
    assert ("Kessel Motors", "is headquartered in", "Brampton") in found
    assert ("Kessel Motors", "was acquired by", "Vantor Group") in found
    # a predicate noun is part of the relation
    assert ("Brampton", "is capital of", "Eastmere") in found


def test_only_what_the_grammar_relates(deps):
    # the mention extractor relates the sentence's first name to every later one; the parse does not
    assert ("Arthur Kessel", "which is headquartered in", "Brampton") in triples(MentionExtractor(), "Arthur Kessel", TEXT)
    assert not any(h == "Arthur Kessel" and t == "Brampton" for h, _r, t in triples(deps, "Arthur Kessel", TEXT))


def test_a_name_said_of_a_common_noun_stands_for_it(deps):
    # "the Orlen river": the preposition's object is "river", the name its modifier
    found = triples(deps, "Tamsa", "Tamsa lies on the Orlen river. It was settled by Vikings in 870.")
    assert ("Tamsa", "lies on", "Orlen") in found
    assert ("Tamsa", "was settled by", "Vikings") in found and ("Tamsa", "was settled in", "870") in found


def test_a_fronted_preposition_follows_its_verb(deps):
    found = triples(deps, "Ormsby Hall", "In 1931, Ormsby Hall became a museum.")
    assert ("Ormsby Hall", "became in", "1931") in found


def test_ingest_docs_with_deps_is_idempotent(kg, tmp_path):
    corpus = tmp_path / "corpus.json"
    corpus.write_text(json.dumps({"Arthur Kessel": [TEXT]}), encoding="utf-8")
    summary = kg.ingest_docs(corpus, format="hotpotqa", extractor="deps", embed_relations=False)
    assert summary.ok and summary.extractor == "deps" and summary.facts >= 6
    query = ("MATCH (h:Entity)-[:SUBJECT_OF]->(f:Fact)-[:OBJECT]->(t:Entity) "
             "RETURN h.name AS head, f.relation AS rel, t.name AS tail ORDER BY head, rel, tail")
    facts = kg.query(query)[1]
    assert {"head": "Kessel Motors", "rel": "is headquartered in", "tail": "Brampton"} in facts
    again = kg.ingest_docs(corpus, format="hotpotqa", extractor="deps", embed_relations=False)
    assert again.facts == summary.facts and kg.query(query)[1] == facts
