"""Homonyms: one name, two things. A fact file that gives ids (TSV header columns head_id/tail_id,
JSONL head_id/tail_id) keeps two entities of one name apart; without ids one name is one entity.
The places are invented."""
from __future__ import annotations

import json

from kgtool.ingest.facts import read_facts
from kgtool.ingest.linking import canonical_id

HEADER = "head\trelation\ttail\thead_id\ttail_id\n"
ROWS = [
    # a country and a city both called Marlow
    ("Marlow", "capital", "Fenwick", "marlow-country", "fenwick-city"),
    ("Marlow", "country", "Ostrelia", "marlow-city", "ostrelia-country"),
    ("Marlow", "population", "5000", "marlow-city", ""),
    ("Ostrelia", "capital", "Tarnby", "ostrelia-country", "tarnby-city"),
]


def _tsv(tmp_path):
    path = tmp_path / "places.tsv"
    path.write_text(HEADER + "".join("\t".join(row) + "\n" for row in ROWS))
    return path


def test_ids_in_tsv_and_jsonl_are_read_and_make_entity_ids():
    assert canonical_id("Marlow", "marlow-city") == "id:marlow-city"
    assert canonical_id("Marlow", "Q42") == "Q42" and canonical_id("Marlow") == "name:marlow"
    assert canonical_id("Marlow", "id:marlow-city") == "id:marlow-city"


def test_same_name_with_different_ids_stays_two_entities(kg, tmp_path):
    tsv = _tsv(tmp_path)
    result = read_facts(tsv)
    assert result.bad == [] and [f.subject_id for f in result.facts] == [
        "marlow-country", "marlow-city", "marlow-city", "ostrelia-country"]
    kg.ingest_facts(tsv)
    marlows = kg.query("MATCH (e:Entity {name: 'Marlow'}) RETURN e.id AS id ORDER BY id")[1]
    assert marlows == [{"id": "id:marlow-city"}, {"id": "id:marlow-country"}]
    capital = kg.query("MATCH (:Entity {id: 'id:marlow-country'})-[:SUBJECT_OF]->(f:Fact)-[:OBJECT]->(t) "
                       "RETURN f.relation AS r, t.name AS t")[1]
    assert capital == [{"r": "capital", "t": "Fenwick"}]

    jsonl = tmp_path / "more.jsonl"  # JSONL ids name the same entities as the TSV's
    jsonl.write_text(json.dumps({"head": "Marlow", "relation": "river", "tail": "Wend", "head_id": "marlow-city"})
                     + "\n")
    kg.ingest_facts(jsonl)
    assert kg.query("MATCH (e:Entity {name: 'Marlow'}) RETURN count(e) AS n")[1] == [{"n": 2}]

    plain = tmp_path / "plain.tsv"  # without ids, one name is one entity, as before
    plain.write_text("Brora\tcapital\tAlba\nBrora\tpopulation\t12\n")
    kg.ingest_facts(plain)
    assert kg.query("MATCH (e:Entity {name: 'Brora'}) RETURN count(e) AS n")[1] == [{"n": 1}]


def test_a_question_naming_a_homonym_is_answered_from_the_one_its_words_fit(kg, tmp_path):
    """Both entities called Marlow are read; the question's relation picks: a capital is the country's
    (the city has none), a population the city's (the country has none)."""
    kg.ingest_facts(_tsv(tmp_path))
    for method in ("care", "c2rag", "safe", "vog", "reagent"):
        capital = kg.answer("What is the capital of Marlow?", method=method, agents="offline")
        assert (capital.answer, capital.status) == ("Fenwick", "answered"), (method, capital.answer, capital.status)
        population = kg.answer("What is the population of Marlow?", method=method, agents="offline")
        assert (population.answer, population.status) == ("5000", "answered"), (method, population.answer)
