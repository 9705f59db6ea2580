"""Typed literal values: numbers, dates, booleans, quantities and URLs are values of their fact (an
(:Entity:Literal) of that fact alone, the typed value copied onto the (:Fact)), never shared entity
nodes; detection is conservative; a stated type (TSV column, JSONL field or object, xsd datatype) wins.
The graph is invented here (places that do not exist), so no dataset's names are used."""
from __future__ import annotations

import json
from datetime import date

import pytest

from kgtool.ingest.facts import read_facts
from kgtool.ingest.literals import detect, from_xsd, typed
from kgtool.reason.reading.form import answer_form, year_of_date_value

XSD = "http://www.w3.org/2001/XMLSchema#"


@pytest.mark.parametrize("text, datatype, lexical, precision, unit", [
    ("42", "integer", "42", None, None),
    ("-7", "integer", "-7", None, None),
    ("1,234,567", "integer", "1234567", None, None),
    ("3.25", "float", "3.25", None, None),
    ("41,290 km2", "integer", "41290", None, "km2"),
    ("12.5 kg", "float", "12.5", None, "kg"),
    ("1648-03-12", "date", "1648-03-12", "day", None),
    ("1648-03", "date", "1648-03", "month", None),
    ("12 March 1648", "date", "1648-03-12", "day", None),
    ("March 12, 1648", "date", "1648-03-12", "day", None),
    ("Mar 1648", "date", "1648-03", "month", None),
    ("2001-05-06T10:00:00Z", "date", "2001-05-06", "day", None),
    ("TRUE", "boolean", "true", None, None),
    ("https://example.org/page", "url", "https://example.org/page", None, None),
])
def test_detection_reads_whole_cells_of_the_documented_forms(text, datatype, lexical, precision, unit):
    found = detect(text)
    assert (found.datatype, found.lexical, found.text, found.precision, found.unit) == (
        datatype, lexical, text, precision, unit)


@pytest.mark.parametrize("text", ["Paris", "007", "02139", "yes", "no", "1648-13-40", "2 Fast 2 Furious",
                                  "12 apostles", "Route 66", "B-52", "", "http://has space"])
def test_detection_leaves_names_alone(text):
    assert detect(text) is None


def test_a_stated_type_is_followed_and_a_value_that_does_not_fit_it_is_refused():
    year = typed("1648", "year")
    assert (year.datatype, year.lexical, year.precision, year.value) == ("date", "1648", "year", date(1648, 1, 1))
    assert typed("yes", "boolean").value is True and typed("no", "boolean").value is False
    assert typed("12", "quantity", "km").unit == "km" and typed("12", "quantity", "km").value == 12
    assert typed("Paris", "entity") is None and typed("42", "string").datatype == "string"
    assert typed(2.5, "number").value == 2.5 and typed(True, "boolean").value is True
    with pytest.raises(ValueError, match="not a date"):
        typed("soon", "date")
    with pytest.raises(ValueError, match="unknown type"):
        typed("1", "colour")
    assert from_xsd("1968-08-26", XSD + "date").value == date(1968, 8, 26)
    assert from_xsd("1968", XSD + "gYear").precision == "year"
    assert from_xsd("12", XSD + "integer").value == 12 and from_xsd("x", XSD + "string") is None
    assert from_xsd("1", "http://example.org/own#type") is None


def test_readers_type_tails_in_tsv_jsonl_and_n_triples(tmp_path):
    tsv = tmp_path / "world.tsv"
    tsv.write_text("head\trelation\ttail\ttail_type\ttail_unit\n"
                   "Vardonia\tarea\t41,290 km2\t\t\n"
                   "Vardonia\tfounded\t1648\tyear\t\n"
                   "Vardonia\tmotto\t1648\tentity\t\n"
                   "Vardonia\theight\t12\tquantity\tm\n"
                   "Vardonia\tfounded\tsoon\tdate\t\n")
    result = read_facts(tsv)
    assert [str(b) for b in result.bad] == [f"{tsv}:6: field 'tail': 'soon' is not a date"]
    area, founded, motto, height = result.facts
    assert (area.object, area.object_literal.value, area.object_literal.unit) == ("41,290 km2", 41290, "km2")
    assert founded.object_literal.precision == "year" and motto.object_literal is None
    assert (height.object_literal.value, height.object_literal.unit) == (12, "m")

    jsonl = tmp_path / "world.jsonl"
    jsonl.write_text("\n".join(json.dumps(r) for r in [
        {"head": "Vardonia", "relation": "population", "tail": 230000},
        {"head": "Vardonia", "relation": "landlocked", "tail": "yes", "tail_type": "boolean"},
        {"head": "Vardonia", "relation": "area", "tail": {"value": 41290.5, "type": "quantity", "unit": "km2"}},
        {"head": "Vardonia", "relation": "capital", "tail": "1648", "tail_id": "Q5"},
        {"head": "Vardonia", "relation": "area", "tail": {"type": "number"}},
    ]) + "\n")
    result = read_facts(jsonl)
    assert "needs 'value'" in result.bad[0].reason
    population, landlocked, area, capital = result.facts
    assert (population.object, population.object_literal.value) == ("230000", 230000)
    assert landlocked.object_literal.value is True and landlocked.object == "yes"
    assert (area.object_literal.value, area.object_literal.unit) == (41290.5, "km2")
    assert capital.object_literal is None  # a tail with an id names an entity

    nt = tmp_path / "world.nt"
    nt.write_text("\n".join([
        f'<http://example.org/Vardonia> <http://example.org/founded> "1648"^^<{XSD}gYear> .',
        f'<http://example.org/Vardonia> <http://example.org/area> "41290.5"^^<{XSD}decimal> .',
        '<http://example.org/Vardonia> <http://example.org/motto> "Always 1648"@en .',
        '<http://example.org/Vardonia> <http://example.org/page> <http://example.org/Page> .',
        f'<http://example.org/Vardonia> <http://example.org/founded> "soon"^^<{XSD}date> .',
    ]) + "\n")
    result = read_facts(nt)
    assert len(result.bad) == 1 and "not a date" in result.bad[0].reason
    by_relation = {f.relation: f for f in result.facts}
    assert by_relation["founded"].object_literal.precision == "year"
    assert by_relation["area"].object_literal.value == 41290.5
    assert by_relation["motto"].object_literal is None and by_relation["page"].object_literal is None


def test_equal_values_of_different_facts_stay_apart_and_round_trip_typed(kg, tmp_path):
    facts = tmp_path / "world.tsv"
    facts.write_text("Vardonia\tarea\t41,290 km2\n"
                     "Ostrelia\tarea\t41,290 km2\n"
                     "Vardonia\tfounded\t12 March 1648\n"
                     "Vardonia\tfounded\t1648-03-12\n"  # one date written two ways: one value of one fact
                     "Vardonia\tlandlocked\ttrue\n"
                     "Vardonia\twebsite\thttps://vardonia.example\n"
                     "Vardonia\tcapital\tKelmarsh\n")
    summary = kg.ingest_facts(facts)
    assert (summary.entities, summary.values, summary.facts) == (3, 5, 6)
    rows = kg.query("MATCH (h:Entity)-[:SUBJECT_OF]->(f:Fact)-[:OBJECT]->(v:Literal) "
                    "RETURN h.name AS head, f.relation AS relation, v.name AS name, v.text AS text, "
                    "v.value AS value, v.datatype AS datatype, v.precision AS precision, v.unit AS unit, "
                    "f.value AS fact_value, f.value_text AS fact_text, v:Entity AS entity ORDER BY head, relation")[1]
    areas = [r for r in rows if r["relation"] == "area"]
    assert [(r["head"], r["value"], r["unit"], r["text"]) for r in areas] == [
        ("Ostrelia", 41290, "km2", "41,290 km2"), ("Vardonia", 41290, "km2", "41,290 km2")]
    assert kg.query("MATCH (v:Literal) WHERE v.value = 41290 RETURN count(v) AS n")[1] == [{"n": 2}]
    [founded] = [r for r in rows if r["relation"] == "founded"]
    assert founded["value"].to_native() == date(1648, 3, 12) and founded["precision"] == "day"
    assert founded["text"] == "12 March 1648" and founded["fact_value"] == founded["value"]
    assert all(r["entity"] and r["fact_text"] == r["text"] for r in rows)
    types = {r["relation"]: (r["datatype"], r["value"]) for r in rows}
    assert types["landlocked"] == ("boolean", True) and types["website"] == ("url", "https://vardonia.example")
    assert kg.query("MATCH (e:Entity) WHERE NOT e:Literal RETURN e.name AS n ORDER BY n")[1] == [
        {"n": "Kelmarsh"}, {"n": "Ostrelia"}, {"n": "Vardonia"}]
    before = kg.stats()["nodes"]
    kg.ingest_facts(facts)  # a re-run changes nothing
    assert kg.stats()["nodes"] == before
    listed = kg.query_file("kgtool/cypher/analyst/literals.cypher")[1]
    assert {(r["head"], r["relation"], r["datatype"]) for r in listed} >= {("Vardonia", "founded", "date"),
                                                                          ("Ostrelia", "area", "integer")}


def test_values_are_answered_by_the_offline_agents(kg, tmp_path):
    """Counts and areas come back as the values the file wrote. A day-precision date asked for its
    year: C2RAG answers the year; the other methods answer the date as written (which holds the year)
    until the runner shapes the answer with year_of_date_value (the runner is not this change's)."""
    facts = tmp_path / "world.tsv"
    facts.write_text("head\trelation\ttail\ttail_type\n"
                     "Vardonia\tcapital\tKelmarsh\t\n"
                     "Ostrelia\tcapital\tTarnby\t\n"
                     "Vardonia\tarea\t41,290 km2\t\n"
                     "Ostrelia\tarea\t41,290 km2\t\n"
                     "Kelmarsh\tpopulation\t230000\t\n"
                     "Tarnby\tpopulation\t81000\t\n"
                     "Kelmarsh\tfounded\t1201\tyear\n"
                     "Vardonia\tfounded\t12 March 1648\t\n")
    kg.ingest_facts(facts)
    for method in ("care", "c2rag", "safe", "vog", "reagent"):
        count = kg.answer("How many people live in the capital of Ostrelia?", method=method, agents="offline")
        assert (count.answer, count.status) == ("81000", "answered"), (method, count.answer, count.status)
        area = kg.answer("What is the area of Ostrelia?", method=method, agents="offline")
        assert (area.answer, area.status) == ("41,290 km2", "answered"), (method, area.answer, area.status)
        year = kg.answer("In what year was Vardonia founded?", method=method, agents="offline")
        assert (year.answer, year.status) == ("1648", "answered"), (method, year.answer, year.status)
        asked_year, asked_date = answer_form("In what year was Vardonia founded?"), answer_form("When was Vardonia founded?")
        assert year_of_date_value(year.answer, year.answer_id, asked_year) == "1648"
        assert year_of_date_value(year.answer, year.answer_id, asked_date) == year.answer
    assert kg.answer("In what year was Vardonia founded?", method="c2rag", agents="offline").answer == "1648"
    for method in ("c2rag", "safe", "vog"):
        year = kg.answer("In what year was the capital of Vardonia founded?", method=method, agents="offline")
        assert (year.answer, year.status) == ("1201", "answered"), (method, year.answer, year.status)
