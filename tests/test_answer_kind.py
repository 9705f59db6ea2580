"""The answer's kind, read from the graph's own relations (kgtool.reason.answer_kind), and the status
rule that uses it: an answer of another kind than the question asks for is not `answered`.
Invented graph; real Neo4j."""
from __future__ import annotations

import pytest

from kgtool.core.text import relation_key
from kgtool.reason.answer_kind import kind_gap, relations_of_kind
from helpers import ingest_triples

FACTS = [
    ("Mira Oltbek", "place_of_birth", "Corvel"),
    ("Corvel", "country", "Dastmark"),
    ("Dastmark", "currency", "dast pound"),
    ("Tolbek Mills", "founded_by", "Mira Oltbek"),
    ("Mira Oltbek", "country_of_citizenship", "Wendmoor"),
]
METHODS = ("care", "c2rag", "reagent", "safe", "vog")


@pytest.fixture
def kind_kg(kg, tmp_path):
    ingest_triples(kg, tmp_path / "kg.jsonl", FACTS)
    return kg


def entity_id(kg, name: str) -> str:
    rows = kg.query("MATCH (e:Entity {name: $name}) RETURN e.id AS id", {"name": name})[1]
    assert len(rows) == 1, name
    return rows[0]["id"]


def test_an_answer_no_fact_of_the_named_kind_ends_at_is_not_of_that_kind(kind_kg):
    kg = kind_kg
    vocabulary = kg.catalog.relation_vocabulary()
    born = relation_key("place of birth")
    gap = kind_gap(kg.db, vocabulary, "currency", born, "Corvel", entity_id(kg, "Corvel"))
    assert gap is not None and "currency" in gap and "Corvel" in gap
    currency = relation_key("currency")
    assert kind_gap(kg.db, vocabulary, "currency", currency, "dast pound", entity_id(kg, "dast pound")) is None
    # reached over another relation, the currency is still the object of a currency fact
    assert kind_gap(kg.db, vocabulary, "currency", born, "dast pound", entity_id(kg, "dast pound")) is None


def test_the_last_relation_naming_the_kind_is_enough(kind_kg):
    kg = kind_kg
    vocabulary = kg.catalog.relation_vocabulary()
    # Wendmoor is the object of no `country` fact, but the chain reached it over "country of citizenship"
    citizenship = relation_key("country of citizenship")
    assert citizenship in relations_of_kind(vocabulary, "country")
    assert kind_gap(kg.db, vocabulary, "country", citizenship, "Wendmoor", entity_id(kg, "Wendmoor")) is None
    assert kind_gap(kg.db, vocabulary, "country", relation_key("place of birth"), "Corvel",
                    entity_id(kg, "Corvel")) is not None


def test_a_relation_naming_the_kind_read_backwards_does_not_make_its_head_of_that_kind(kind_kg):
    kg = kind_kg
    vocabulary = kg.catalog.relation_vocabulary()
    # "Which country's currency is the dast pound?" read on past Dastmark, back over `country`, ends at
    # Corvel: the head of a `country` fact is what lies in the country, not a country
    country = relation_key("country")
    assert kind_gap(kg.db, vocabulary, "country", country, "Corvel", entity_id(kg, "Corvel"),
                    read_backwards=True) is not None
    assert kind_gap(kg.db, vocabulary, "country", country, "Dastmark", entity_id(kg, "Dastmark"),
                    read_backwards=True) is None


def test_the_type_of_which_x_s_y_is_a_hint_and_y_the_relation():
    from kgtool.reason.question import read_question

    q = "Which country's currency is the dast pound?"
    at = q.index("dast pound")
    reading = read_question(q, (at, at + len("dast pound")))
    assert reading.answer_type == "country"
    assert [s.content for s in reading.required] == [("currency",)]
    assert [s.content for s in reading.segments if s.optional] == [("country",)]


def test_a_graph_that_names_no_relation_after_the_kind_says_nothing():
    vocabulary = {"rel:official currency": ["official currency"], "rel:capital": ["capital"]}
    assert relations_of_kind(vocabulary, "currency") is None  # no relation IS "currency"
    assert relations_of_kind(vocabulary, "city") is None
    assert kind_gap(None, vocabulary, "city", "rel:capital", "Corvel", "e1") is None  # no read is made


NESTED = [("Dunmarsh", "LOCATED_IN", "Pellasca"), ("Edda Rowe", "BORN_IN", "Dunmarsh"),
          ("Pellasca", "CURRENCY", "pellan mark")]


def test_a_place_inside_another_is_no_country_where_no_relation_names_countries(kg, tmp_path):
    """"Which country" asks for the whole a people holds; the graph names no country, but it puts the
    birthplace inside another place: the birthplace may be a city of the country asked for."""
    ingest_triples(kg, tmp_path / "kg.jsonl", NESTED)
    vocabulary = kg.catalog.relation_vocabulary()
    born, located = relation_key("BORN_IN"), relation_key("LOCATED_IN")
    assert relations_of_kind(vocabulary, "country") is None
    gap = kind_gap(kg.db, vocabulary, "country", born, "Dunmarsh", entity_id(kg, "Dunmarsh"))
    assert gap is not None and "Dunmarsh" in gap
    assert kind_gap(kg.db, vocabulary, "country", located, "Pellasca", entity_id(kg, "Pellasca")) is None
    # a city is a place, inside another or not
    assert kind_gap(kg.db, vocabulary, "city", born, "Dunmarsh", entity_id(kg, "Dunmarsh")) is None
    for method in ("care", "c2rag", "vog"):
        got = kg.answer("In which country was Edda Rowe born?", method=method, agents="offline")
        assert got.answer == "Pellasca" or got.status != "answered", (method, got.answer, got.status)


def test_a_time_is_written_with_digits():
    assert kind_gap(None, {}, "year", "rel:founded by", "Mira Oltbek", "e1") is not None
    assert kind_gap(None, {}, "year", "rel:inception", "1887", "e2") is None
    assert kind_gap(None, {}, "time", "rel:date of birth", "12 May 1901", "e3") is None


def test_a_person_is_named_with_letters():
    assert kind_gap(None, {}, "person", "rel:founded", "2009", None) is not None  # "Who founded X?" -> a year
    assert kind_gap(None, {}, "person", "rel:founded", "1,200", "e1") is not None
    assert kind_gap(None, {}, "person", "rel:founded by", "Mira Oltbek", None) is None
    assert kind_gap(None, {}, "person", "rel:founded by", "Louis XIV", None) is None


def test_no_method_answers_a_year_with_a_founder(kind_kg):
    # the graph knows who founded the mill, not when: "founded" reads the founder's relation well
    for method in METHODS:
        got = kind_kg.answer("In what year was Tolbek Mills founded?", method=method, agents="offline")
        assert got.status != "answered", (method, got.answer, got.reason)


def test_a_chain_that_stops_at_the_birthplace_does_not_answer_a_currency(kind_kg):
    got = kind_kg.answer("What currency is used where Mira Oltbek was born?", method="care", agents="offline")
    assert got.status == "answered" and got.answer == "dast pound" or got.status != "answered", \
        (got.answer, got.status, got.reason)
    if got.answer == "Corvel":
        assert "currency" in (got.reason or "")


def test_a_common_noun_filed_elsewhere_is_not_of_the_asked_kind():
    """"Which club does X play for?" reached over a relation of positions: "goalkeeper" is a person or
    a position in WordNet, never a group or an artifact as a club is. Silent where the last relation
    names the kind (before its preposition), for a named answer, and for a practitioner asked as an
    occupation."""
    vocabulary = {"rel:position": ["position played on team / speciality"], "rel:works as": ["works as"],
                  "rel:occupation": ["occupation"], "rel:plays": ["plays"]}
    gap = kind_gap(None, vocabulary, "club", "rel:position", "goalkeeper", "e1")
    assert gap is not None and "club" in gap and "goalkeeper" in gap
    assert kind_gap(None, vocabulary, "club", "rel:position", "Felmoor United", "e2") is None
    assert kind_gap(None, vocabulary, "position", "rel:position", "goalkeeper", "e1") is None
    assert kind_gap(None, vocabulary, "profession", "rel:works as", "lawyer", "e3") is None
    assert kind_gap(None, vocabulary, "job", "rel:occupation", "singer", "e4") is None
    assert kind_gap(None, vocabulary, "instrument", "rel:plays", "violin", "e5") is None
    assert kind_gap(None, vocabulary, "sport", "rel:plays", "football", "e6") is None
    assert kind_gap(None, vocabulary, "club", "rel:plays", "chess", "e7") is not None


POSITIONS = [("Orrin Dask", "position played on team", "goalkeeper"),
             ("Orrin Dask", "date of birth", "1990")]


def test_no_method_answers_a_club_with_a_position(kg, tmp_path):
    ingest_triples(kg, tmp_path / "kg.jsonl", POSITIONS)
    for method in ("care", "c2rag", "vog"):
        got = kg.answer("Which club does Orrin Dask play for?", method=method, agents="offline")
        assert got.answer != "goalkeeper" or got.status != "answered", (method, got.answer, got.status)
