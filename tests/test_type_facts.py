"""Type facts (rdf:type read as `type`, Wikidata's `instance of`) say what kind an entity is.

An N-Triples export carries `rdf:type` triples beside its facts; kgtool ingests them as facts of a
`type` relation. "Which company published Vell Abbey?" names the answer's kind, and the publisher the
graph names is typed a company: no hop for the word "company" may be added after it, however well a
relation of the graph ("parent company") fits the word. Invented names, a real Neo4j.
"""
from __future__ import annotations

import pytest

from helpers import ingest_triples
from kgtool.core.types import CandidateFact
from kgtool.reason.kinds import kinds_of, type_kind, typing_relation

FACTS = [
    ("Vell Abbey", "publisher", "Orrin Books"), ("Orrin Books", "parent company", "Tallis Group"),
    ("Orrin Books", "headquarter", "Maresk"), ("Tallis Group", "headquarter", "Duvra"),
    ("Vell Abbey", "author", "Ines Corr"), ("Ines Corr", "birth place", "Maresk"),
    ("Orrin Books", "type", "Company"), ("Tallis Group", "type", "Company"),
    ("Vell Abbey", "type", "Book"), ("Maresk", "type", "City"), ("Duvra", "type", "City"),
]


def _fact(relation: str, tail: str, direction: str = "out") -> CandidateFact:
    return CandidateFact("f", "a", "A", relation, "b", tail, "", direction=direction)


def test_a_type_fact_names_its_subjects_kind():
    assert typing_relation("type") and typing_relation("instance of") and typing_relation("rdf:type")
    assert not typing_relation("parent company") and not typing_relation("blood type")
    assert type_kind("Company") == type_kind("public companies")
    kinds = kinds_of([_fact("type", "Company"), _fact("parent company", "Tallis Group")], lambda f: f.relation)
    assert type_kind("company") in kinds
    # read backwards the fact says what the other entity is, not this one
    assert type_kind("company") not in kinds_of([_fact("type", "Company", "in")], lambda f: f.relation)


@pytest.fixture
def typed_kg(kg, tmp_path):
    ingest_triples(kg, tmp_path / "kg.jsonl", FACTS)
    return kg


@pytest.mark.parametrize("method", ["care", "c2rag"])
def test_no_hop_for_the_kind_a_type_fact_already_gives(typed_kg, method):
    result = typed_kg.answer("Which company published Vell Abbey?", method=method, agents="offline")
    assert (result.answer, result.status) == ("Orrin Books", "answered"), result.reason
