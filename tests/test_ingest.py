"""Ingestion into a real Neo4j: counts, idempotence, bad input, conflicts, scopes."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kgtool.cli import main
from kgtool.errors import InputError
from kgtool.core.scope import Scope
from kgtool.retrieve.hop import HopRetriever


def _counts(kg):
    st = kg.stats()
    return {k: v for k, v in st["nodes"].items() if v}, {k: v for k, v in st["relationships"].items() if v}


def _line(**fields):
    return json.dumps(fields, ensure_ascii=False)


GOOD = dict(id="e1", subject="Hey Jude", relation="performer", object="Madonna", old_object="The Beatles",
            description="Hey Jude was performed by Madonna.")


def test_mquake_dev_builds_the_post_edit_graph_and_rerun_changes_nothing(kg, mquake_dev):
    summary = kg.ingest_edits(mquake_dev, embed_relations=False)
    assert summary.edits_loaded == 392 and summary.ok
    assert summary.kept == 392 and not summary.rejected
    nodes, rels = _counts(kg)
    assert nodes["Edit"] == 392
    assert rels["ASSERTS"] == 392 and rels["SUPERSEDES"] == 392
    assert rels["SUBJECT_OF"] == nodes["Fact"] == rels["OBJECT"]
    again = kg.ingest_edits(mquake_dev, embed_relations=False)
    assert again.edits_loaded == 392
    assert _counts(kg) == (nodes, rels)
    # every edit's fact is active; every superseded pre-edit fact is marked so
    rows = kg.query("MATCH (:Edit)-[:ASSERTS]->(f:Fact) RETURN DISTINCT f.status AS status")[1]
    assert rows == [{"status": "active"}]
    rows = kg.query("MATCH (e:Edit)-[:SUPERSEDES]->(f:Fact) WHERE NOT (:Edit)-[:ASSERTS]->(f) "
                    "RETURN DISTINCT f.status AS status")[1]
    assert rows == [{"status": "superseded"}]


def test_jsonl_with_one_good_and_two_bad_lines(kg, tmp_path, neo4j_settings):
    path = tmp_path / "edits.jsonl"
    path.write_text("\n".join([_line(**GOOD), '{"id": "e2", "subject": ', _line(id="e3", subject="X", relation="r")]) + "\n")
    env = {"KGTOOL_HOME": str(neo4j_settings.home), "KGTOOL_NEO4J_PORT": str(neo4j_settings.neo4j_port),
           "KGTOOL_RUNTIME_DIR": str(neo4j_settings.runtime_dir)}
    result = CliRunner().invoke(main, ["ingest", "edits", str(path)], env=env, catch_exceptions=False)
    assert result.exit_code == 1
    assert f"{path}:2" in result.output and "JSON" in result.output
    assert f"{path}:3" in result.output and "object" in result.output
    assert _counts(kg)[0]["Edit"] == 1


def test_strict_mode_writes_nothing(kg, tmp_path):
    path = tmp_path / "edits.jsonl"
    path.write_text(_line(**GOOD) + "\n" + _line(**{**GOOD, "id": "e2", "subject": ""}) + "\n")
    with pytest.raises(InputError, match=r"edits.jsonl:2.*empty"):
        kg.ingest_edits(path, strict=True, embed_relations=False)
    assert _counts(kg) == ({}, {})


def test_hostile_and_unusual_text_is_stored_verbatim(kg, tmp_path):
    evil = '"}) DETACH DELETE n //'
    rows = [
        {**GOOD},
        dict(id="e2", subject=evil, relation="performer", object="Zoë ‘Ω’ 東京 🎵",
             description=f"{evil} was performed by Zoë ‘Ω’ 東京 🎵."),
        dict(id="e3", subject="Long", relation="performer", object="Y", description="x" * 9000 + "."),
        dict(id="e4", subject="Too long", relation="performer", object="Y", description="x" * 20000),
    ]
    path = tmp_path / "edits.jsonl"
    path.write_text("\n".join(_line(**r) for r in rows) + "\n")
    summary = kg.ingest_edits(path, embed_relations=False)
    assert [str(b).split(": ", 1)[0] for b in summary.skipped] == [f"{path}:4"]
    assert "characters long" in str(summary.skipped[0])
    names = {r["name"] for r in kg.query("MATCH (e:Entity) RETURN e.name AS name")[1]}
    assert evil in names and "Zoë ‘Ω’ 東京 🎵" in names
    assert _counts(kg)[0]["Edit"] == 3  # nothing was deleted by the hostile name


def test_second_edit_of_a_slot_is_a_flagged_conflict(kg, tmp_path):
    path = tmp_path / "edits.jsonl"
    path.write_text(_line(**GOOD) + "\n" + _line(**{**GOOD, "id": "e2", "object": "Prince",
                                                     "description": "Hey Jude was performed by Prince."}) + "\n")
    summary = kg.ingest_edits(path, embed_relations=False)
    assert summary.conflicts == 1
    rows = kg.query("MATCH (a:Edit)-[:CONFLICTS_WITH]->(b:Edit) RETURN a.id AS a, b.id AS b, a.conflict AS ca, b.conflict AS cb")[1]
    assert rows == [{"a": "e1", "b": "e2", "ca": True, "cb": True}]
    objects = {r["o"] for r in kg.query("MATCH (:Edit)-[:ASSERTS]->(f:Fact)-[:OBJECT]->(o) RETURN o.name AS o")[1]}
    assert objects == {"Madonna", "Prince"}


def test_aliases_accumulate_across_files_and_superseded_facts_are_marked(kg, tmp_path):
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    first.write_text(_line(**GOOD, subject_aliases=["Jude"]) + "\n")
    second.write_text(_line(**{**GOOD, "id": "e2", "subject_aliases": ["Hey Jude (song)", "Jude"]}) + "\n")

    def entity():
        rows = kg.query("MATCH (e:Entity {name: 'Hey Jude'}) RETURN e.aliases AS aliases, e.alias_text AS text")[1]
        return rows[0]

    kg.ingest_edits(first, embed_relations=False)
    assert entity() == {"aliases": ["Jude"], "text": "Jude"}
    kg.ingest_edits(second, embed_relations=False)
    kg.ingest_edits(second, embed_relations=False)
    assert entity() == {"aliases": ["Jude", "Hey Jude (song)"], "text": "Jude | Hey Jude (song)"}
    status = {r["o"]: r["status"] for r in kg.query(
        "MATCH (:Entity {name: 'Hey Jude'})-[:SUBJECT_OF]->(f:Fact)-[:OBJECT]->(o) RETURN o.name AS o, f.status AS status")[1]}
    assert status == {"Madonna": "active", "The Beatles": "superseded"}


def test_scopes_switch_edits_without_reingesting(kg, tmp_path):
    path = tmp_path / "edits.jsonl"
    path.write_text(_line(**{**GOOD, "case_id": "c1"}) + "\n")
    kg.ingest_edits(path, embed_relations=False)
    retriever = HopRetriever(kg.db)
    entity = kg.catalog.link("Hey Jude")
    with kg.db.session() as session:
        in_scope = {c.tail for c in retriever.pool(session, entity, Scope.parse({"cases": ["c1"]}))}
        other = {c.tail for c in retriever.pool(session, entity, Scope.parse({"cases": ["c2"]}))}
        everything = {c.tail for c in retriever.pool(session, entity, Scope.parse("all"))}
        by_batch = {c.tail for c in retriever.pool(session, entity, Scope.parse({"batches": ["edits"]}))}
    assert in_scope == everything == by_batch == {"Madonna"}
    assert other == {"The Beatles"}  # the pre-edit fact is back when the edit is out of scope


def test_pools_of_several_entities_in_one_read_capped_per_relation_and_direction(kg):
    from kgtool.ingest import load
    from kgtool.ingest.records import BaseFact
    from kgtool.retrieve.hop import read_pools

    facts = [BaseFact(f"Town {k}", "country", "Hubland") for k in range(7)]
    facts += [BaseFact("Hubland", "capital", "Hub City"), BaseFact("Hubland", "official language", "Hubbish")]
    rows = load.GraphRows()
    load.rows_for_base_facts(rows, facts)
    load.write_rows(kg.db, rows)
    hub, town = kg.catalog.link("Hubland"), kg.catalog.link("Town 0")
    with kg.db.session() as session:
        capped, cut = read_pools(kg.db, session, [hub, town, "no-such-entity"], Scope(), per_group=3)
        whole, none_cut = read_pools(kg.db, session, [hub], Scope())
    assert cut == {hub} and none_cut == set()
    assert sorted((f.relation, f.direction) for f in capped[hub]) == [
        ("capital", "out"), ("country", "in"), ("country", "in"), ("country", "in"), ("official language", "out")]
    assert [(f.head, f.tail) for f in capped[town]] == [("Town 0", "Hubland")]
    assert capped["no-such-entity"] == []
    assert len(whole[hub]) == 9


def test_no_eatr_loads_raw_candidates_and_eatr_rejects_mismatches(kg, tmp_path):
    from kgtool.ingest.pipeline import ingest_edits
    from kgtool.ingest.records import Candidate

    class NoisyExtractor:
        name = "noisy"

        def extract_batch(self, edits):
            return [[Candidate(e.subject, e.relation, e.object, e.description, "noisy"),
                     Candidate(e.subject, e.relation, "Somebody Else", e.description, "noisy")] for e in edits]

    # a stand-in for an extraction model's output: one faithful and one drifted triple
    path = tmp_path / "edits.jsonl"
    path.write_text(_line(**GOOD) + "\n")
    refined = ingest_edits(kg.db, path, extractor=NoisyExtractor())
    assert refined.kept == 1 and dict(refined.rejected) == {"tail_mismatch": 1}
    kg.clear()
    raw = ingest_edits(kg.db, path, extractor=NoisyExtractor(), eatr=False)
    assert raw.kept == 2 and not raw.rejected
    tails = {r["t"] for r in kg.query("MATCH (:Edit)-[:ASSERTS]->(:Fact)-[:OBJECT]->(t) RETURN t.name AS t")[1]}
    assert tails == {"Madonna", "Somebody Else"}
    audit = json.loads(kg.query("MATCH (e:Edit) RETURN e.eatr_decisions AS d")[1][0]["d"])
    assert {d["reason"] for d in audit} == {"no_eatr"}
