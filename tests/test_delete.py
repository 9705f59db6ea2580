"""Deletion with provenance on a real Neo4j: edits, documents, batches and files go with what only they support."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kgtool.cli import main
from kgtool.errors import InputError
from kgtool.ingest.linking import canonical_id

QUESTION = "What is the capital of the country of citizenship of the composer of Hey Jude?"
BASE = [
    ("Hey_Jude", "composer", "Paul_McCartney", "Hey Jude was written by Paul McCartney."),
    ("Paul_McCartney", "country_of_citizenship", "United_Kingdom", ""),
    ("Bob_Dylan", "country_of_citizenship", "United_States_of_America", ""),
    ("United_Kingdom", "capital", "London", ""),
    ("United_States_of_America", "capital", "Washington, D.C.", ""),
]
EDIT = {"id": "x1", "subject": "Hey Jude", "relation": "composer", "object": "Bob Dylan",
        "old_object": "Paul McCartney", "description": "Hey Jude was composed by Bob Dylan."}
DOCS = [
    {"id": "d1", "title": "Paul McCartney",
     "text": "Paul McCartney is an English singer born in Liverpool. Bob Dylan lives in London."},
    {"id": "d2", "title": "Bob Dylan",
     "text": "Bob Dylan is an American singer born in Duluth. Bob Dylan lives in London."},
]


def _env(settings):
    return {"KGTOOL_HOME": str(settings.home), "KGTOOL_NEO4J_PORT": str(settings.neo4j_port),
            "KGTOOL_RUNTIME_DIR": str(settings.runtime_dir)}


def _write_tsv(path, rows):
    path.write_text("".join("\t".join(r if r[3] else r[:3]) + "\n" for r in rows), encoding="utf-8")
    return path


def _write_jsonl(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _counts(kg):
    st = kg.stats()
    return {k: v for k, v in st["nodes"].items() if v}, {k: v for k, v in st["relationships"].items() if v}


def _content(kg):
    """What the graph holds, beyond counts: every node of the knowledge part and how facts link."""
    queries = {
        "entities": "MATCH (e:Entity) RETURN e.id AS id, e.name AS name ORDER BY id",
        "facts": "MATCH (h:Entity)-[:SUBJECT_OF]->(f:Fact)-[:OBJECT]->(t:Entity) "
                 "RETURN f.id AS id, h.id AS h, f.relation AS r, t.id AS t, f.status AS status, f.source AS source, "
                 "f.evidence AS evidence ORDER BY id",
        "relations": "MATCH (r:Relation) RETURN r.key AS key ORDER BY key",
        "support": "MATCH (n)-[x:SUPPORTS|STATES|ASSERTS|SUPERSEDES|MENTIONS|ABOUT|HAS_PASSAGE]->(m) "
                   "RETURN n.id AS a, type(x) AS type, m.id AS b ORDER BY a, type, b",
    }
    return {key: kg.query(text)[1] for key, text in queries.items()}


def _status(kg, fact_id):
    rows = kg.query("MATCH (f:Fact {id: $id}) RETURN f.status AS status", {"id": fact_id})[1]
    return rows[0]["status"] if rows else None


def test_deleting_an_edit_brings_back_the_pre_edit_answer_and_stored_runs_stay_readable(kg, tmp_path, neo4j_settings):
    base = _write_tsv(tmp_path / "base.tsv", BASE)
    edits = _write_jsonl(tmp_path / "edits.jsonl", [EDIT])
    kg.ingest_facts(base, embed_relations=False)
    kg.ingest_edits(edits, embed_relations=False)
    before = kg.answer(QUESTION, agents="offline")
    assert before.answer == "Washington, D.C."
    edit_fact = before.chain[0]["fact_id"]

    # the dry run reports exactly what the deletion does, and writes nothing
    snapshot = (_counts(kg), _content(kg))
    out = CliRunner().invoke(main, ["delete", "--edit", "x1", "--dry-run", "--json", str(tmp_path / "dry.json")],
                             env=_env(neo4j_settings), catch_exceptions=False)
    assert out.exit_code == 0, out.output
    assert "dry run" in out.output and "superseded -> active" in out.output
    assert (_counts(kg), _content(kg)) == snapshot
    dry = json.loads((tmp_path / "dry.json").read_text())

    report = kg.delete(edit="x1")
    assert {k: v for k, v in report.as_dict().items() if k != "dry_run"} == {
        k: v for k, v in dry.items() if k != "dry_run"}
    assert [e["id"] for e in report.edits] == ["x1"] and report.passages_deleted == 1
    # the edit's fact was used by the stored run: kept for it, retracted
    assert [f["fact_id"] for f in report.facts_retracted] == [edit_fact] and not report.facts_deleted
    assert [c["before"] for c in report.facts_restored] == ["superseded"]
    assert _status(kg, edit_fact) == "retracted"

    after = kg.answer(QUESTION, agents="offline")
    assert after.answer == "London"
    assert [hop["tail"] for hop in after.chain] == ["Paul McCartney", "United Kingdom", "London"]
    trace = kg.trace(before.run_id)
    assert trace["run"]["answer"] == "Washington, D.C."
    assert edit_fact in {s["chosen"] for s in trace["steps"]}
    _, rows = kg.query_file("kgtool/cypher/analyst/retracted.cypher")
    assert [(r["id"], r["retracted_by"], r["runs"]) for r in rows] == [(edit_fact, "edit x1", [before.run_id])]
    assert _counts(kg)[0].get("Edit", 0) == 0

    # stated again, the retracted fact is in force again
    kg.ingest_edits(edits, embed_relations=False)
    assert _status(kg, edit_fact) == "active"
    pool = kg.db.read("hop/candidates", entity_ids=[canonical_id("Hey Jude")], per_group=None, cases=None,
                      batches=None, perturbation=None)
    assert [f["tail"] for f in pool[0]["facts"]] == ["Bob Dylan"]


def test_deleting_a_document_removes_the_facts_only_it_supported_and_counts_match_a_store_without_it(kg, tmp_path):
    base = _write_tsv(tmp_path / "base.tsv", BASE)
    docs = _write_jsonl(tmp_path / "docs.jsonl", DOCS)
    kg.ingest_facts(base, embed_relations=False)
    kg.ingest_docs(docs, format="jsonl", embed_relations=False)
    support = kg.query(
        "MATCH (:Document {id: 'd2'})-[:HAS_PASSAGE]->(p:Passage)-[:SUPPORTS]->(f:Fact) "
        "RETURN f.id AS id, EXISTS { MATCH (q:Passage)-[:SUPPORTS]->(f) WHERE q <> p } "
        "OR EXISTS { (:Source)-[:STATES]->(f) } AS shared")[1]
    only_d2 = {r["id"] for r in support if not r["shared"]}
    shared = {r["id"] for r in support if r["shared"]}
    assert only_d2 and shared  # the corpus has both kinds, so the test can tell them apart

    report = kg.delete(document="d2")
    assert [d["id"] for d in report.documents] == ["d2"] and report.passages_deleted == 1
    assert {f["fact_id"] for f in report.facts_deleted} == only_d2
    ids = {r["id"] for r in kg.query("MATCH (f:Fact) RETURN f.id AS id")[1]}
    assert not ids & only_d2 and shared <= ids
    assert report.entities_deleted  # e.g. the birthplace only d2 named
    after = (_counts(kg), _content(kg))
    # the file is the documents' source: deleting it would take the rest
    rest = kg.delete(source=str(docs), dry_run=True)
    assert [d["id"] for d in rest.documents] == ["d1"] and rest.dry_run
    assert (_counts(kg), _content(kg)) == after

    # a store that never had d2
    kg.clear()
    kg.ingest_facts(base, embed_relations=False)
    _write_jsonl(docs, DOCS[:1])
    kg.ingest_docs(docs, format="jsonl", embed_relations=False)
    assert (_counts(kg), _content(kg)) == after


def test_deleting_a_fact_file_keeps_what_another_file_also_states(kg, tmp_path):
    first = _write_tsv(tmp_path / "first.tsv", BASE[:3])
    second = _write_tsv(tmp_path / "second.tsv", [
        ("Paul_McCartney", "country_of_citizenship", "United_Kingdom", "McCartney is British."), *BASE[3:]])
    kg.ingest_facts(first, embed_relations=False)
    kg.ingest_facts(second, embed_relations=False)
    report = kg.delete(source=str(first))
    assert report.sources == [str(first.resolve())]
    assert len(report.facts_deleted) == 2
    # the shared fact now carries the sentence of the file that still states it
    assert [r["fact_id"] for r in report.facts_reverted] and report.facts_reverted[0]["evidence"] == "McCartney is British."
    after = (_counts(kg), _content(kg))
    kg.clear()
    kg.ingest_facts(second, embed_relations=False)
    assert (_counts(kg), _content(kg)) == after


def test_deleting_a_batch_and_clear_errors_for_what_is_not_there(kg, tmp_path, neo4j_settings):
    one = _write_jsonl(tmp_path / "one.jsonl", [EDIT])
    two = _write_jsonl(tmp_path / "two.jsonl", [{**EDIT, "id": "y1", "subject": "Let It Be",
                                                   "description": "Let It Be was composed by Bob Dylan."}])
    kg.ingest_edits(one, embed_relations=False)
    kg.ingest_edits(two, embed_relations=False)
    snapshot = (_counts(kg), _content(kg))
    with pytest.raises(InputError) as err:
        kg.delete(edit=["x1", "nope"], batch="missing")
    assert "no edit with id 'nope'" in str(err.value) and "no edit in batch 'missing'" in str(err.value)
    assert "nothing was deleted" in str(err.value)
    assert (_counts(kg), _content(kg)) == snapshot

    out = CliRunner().invoke(main, ["delete", "--document", "nope"], env=_env(neo4j_settings))
    assert out.exit_code == 2 and "no document with id 'nope'" in out.output
    out = CliRunner().invoke(main, ["delete"], env=_env(neo4j_settings))
    assert out.exit_code == 2 and "--edit" in out.output

    report = kg.delete(batch="two")
    assert [e["id"] for e in report.edits] == ["y1"]
    assert {r["id"] for r in kg.query("MATCH (e:Edit) RETURN e.id AS id")[1]} == {"x1"}
    # the file of a deleted batch still states the fact its edit replaced, now in force again
    rows = kg.query("MATCH (:Entity {name: 'Let It Be'})-[:SUBJECT_OF]->(f:Fact)-[:OBJECT]->(t:Entity) "
                    "RETURN t.name AS tail, f.status AS status")[1]
    assert rows == [{"tail": "Paul McCartney", "status": "active"}]
