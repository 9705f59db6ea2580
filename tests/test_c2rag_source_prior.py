"""C2RAG in a store that mixes sources: passage facts do not unsettle a constraint stated facts settle.

Invented data: a fact file states a person's country and that country's capital; a document corpus
beside it names three other cities as the capital of the same country. Without a source prior the
passage facts compete with the stated one for the capital constraint, N_eff rises above gamma and C2RAG
turns to textual recovery; with it (the default) the stated fact settles the constraint, and what only
the passages know is still answered from them.
"""
from __future__ import annotations

import json

import pytest

from kgtool.errors import ConfigError

FACTS = [
    {"head": "Orsk Tamber", "relation": "country of citizenship", "tail": "Norvale",
     "evidence": "Orsk Tamber is a citizen of Norvale."},
    {"head": "Norvale", "relation": "capital", "tail": "Pellin", "evidence": "The capital of Norvale is Pellin."},
]
PASSAGES = [
    {"id": "doc-lurnwick", "title": "Lurnwick",
     "text": "Lurnwick was the capital of Norvale. Lurnwick lies on the river Ost."},
    {"id": "doc-hasket", "title": "Hasket",
     "text": "Hasket is the capital of Norvale. Hasket is known for its bell foundries."},
    {"id": "doc-tovin", "title": "Tovin", "text": "Norvale has its capital at Tovin. Tovin is a market town."},
]
QUESTION = "What is the capital of the country of citizenship of Orsk Tamber?"


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def mixed(kg, tmp_path):
    kg.ingest_facts(_write(tmp_path / "facts.jsonl", FACTS))
    kg.ingest_docs(_write(tmp_path / "passages.jsonl", PASSAGES), format="jsonl")
    return kg


def _capital_step(kg, run_id):
    rows = kg.query("MATCH (:Run {id: $run})-[:HAS_STEP]->(s:Step {kind: 'constraint'}) "
                    "WHERE s.query CONTAINS 'capital' "
                    "RETURN s.neff AS neff, s.state AS state, "
                    "[(s)-[c:CANDIDATE]->(f:Fact) | [f.evidence, c.score, f.source]] AS candidates "
                    "ORDER BY s.created_at LIMIT 1", {"run": run_id})[1]
    assert rows, "no capital constraint step was recorded"
    return rows[0]


def test_stated_facts_settle_a_constraint_that_passages_also_claim(mixed):
    # the premise: the passages gave Norvale capitals of their own, read only from text
    tails = {r["tail"] for r in mixed.query(
        "MATCH (:Entity {name: 'Norvale'})<-[:OBJECT]-(f:Fact)<-[:SUBJECT_OF]-(h:Entity) "
        "WHERE NOT f.source IN ['edit', 'base'] RETURN h.name AS tail")[1]}
    assert {"Lurnwick", "Hasket"} <= tails, tails

    without = mixed.answer(QUESTION, method="c2rag", agents="offline", text_margin=0)
    step = _capital_step(mixed, without.run_id)
    assert step["state"] == "unresolved", step  # the passages unsettle it

    result = mixed.answer(QUESTION, method="c2rag", agents="offline")
    step = _capital_step(mixed, result.run_id)
    assert step["state"] == "resolved", step
    assert (result.answer, result.status) == ("Pellin", "answered"), result.reason
    # the behaviour changed with the prior, and so did the version the Run records
    settings = mixed.query("MATCH (r:Run {id: $run}) RETURN r.settings AS s", {"run": result.run_id})[1][0]["s"]
    assert json.loads(settings)["method_version"] == mixed.methods.entry("c2rag").version == "2"

    only_text = mixed.answer("Which river does Lurnwick lie on?", method="c2rag", agents="offline")
    assert only_text.answer == "Ost", (only_text.answer, only_text.reason)


def test_the_prior_is_a_checked_setting(kg):
    with pytest.raises(ConfigError, match="text_margin"):
        kg.answer(QUESTION, method="c2rag", agents="offline", text_margin=-1)
