"""Entity resolution on a real Neo4j: an edit corpus with Wikidata ids and a fact file with names
about the same people; merge records, the crossing question, undo, re-ingest and delete."""
from __future__ import annotations

import json
from collections import defaultdict

from click.testing import CliRunner

from kgtool.cli import main
from kgtool.core.text import normalize
from kgtool.ingest.graph_linker import GraphLinker
from kgtool.ingest.load import source_id

QUESTION = ("What is the official language of the country of citizenship of the spouse of the founder of "
            "Alliance for Climate Protection?")
EDITS = [
    {"id": "e1", "subject": "Alliance for Climate Protection", "subject_id": "Q118408", "relation": "founded by",
     "relation_id": "P112", "object": "Herbert Hoover", "object_id": "Q35236", "old_object": "Al Gore",
     "old_object_id": "Q19673", "object_aliases": ["Herbert Clark Hoover", "President Hoover"],
     "description": "Alliance for Climate Protection was founded by Herbert Hoover."},
    {"id": "e2", "subject": "Herbert Hoover", "subject_id": "Q35236", "relation": "spouse", "relation_id": "P26",
     "object": "Susan Roces", "object_id": "Q1870001", "old_object": "Lou Henry Hoover", "old_object_id": "Q233669",
     "description": "Herbert Hoover is married to Susan Roces."},
]
FACTS = [
    ("Alliance for Climate Protection", "founded by", "Al Gore"),  # the pre-edit world: the edit replaces it
    ("Al Gore", "spouse", "Tipper Gore"),
    ("Susan Roces", "country of citizenship", "Poland"),
    ("Poland", "official language", "German"),
    ("Herbert Clark Hoover", "occupation", "mining engineer"),  # an alias of the edit's entity
]


def write_sources(tmp_path):
    edits = tmp_path / "edits.jsonl"
    edits.write_text("".join(json.dumps(e) + "\n" for e in EDITS), encoding="utf-8")
    facts = tmp_path / "facts.tsv"
    facts.write_text("".join("\t".join(f) + "\n" for f in FACTS), encoding="utf-8")
    return edits, facts


def shared_names(kg) -> dict[str, set[str]]:
    holders: dict[str, set[str]] = defaultdict(set)
    for row in kg.db.read("resolve/entities", ids=None):
        for name in [row["name"], *row["aliases"]]:
            holders[normalize(name)].add(row["id"])
    return {k: v for k, v in holders.items() if len(v) > 1}


# the knowledge in the graph (answering adds runs, which an undo leaves alone)
KNOWLEDGE = {"Entity", "MergedEntity", "EntityMerge", "Fact", "Edit", "Passage", "Source", "Relation", "NameKey",
             "Document", "SUBJECT_OF", "OBJECT", "ASSERTS", "SUPERSEDES", "SUPPORTS", "STATES", "CONFLICTS_WITH",
             "OVERRIDES", "SAME_AS", "ABSORBED", "INTO", "NAMES", "MENTIONS", "ABOUT", "HAS_PASSAGE", "MAYBE_SAME_AS"}


def counts(kg) -> dict:
    GraphLinker(kg.db).sync()  # name keys current, so snapshots compare like with like
    stats = kg.stats()
    return {kind: {k: v for k, v in stats[kind].items() if k in KNOWLEDGE} for kind in stats}


def stated(kg, path) -> set[str]:
    return {r["id"] for r in kg.query("MATCH (:Source {id: $id})-[:STATES]->(f:Fact) RETURN f.id AS id",
                                      {"id": source_id(path)})[1]}


def from_edits(kg) -> set[str]:
    """The facts the edit corpus brought (what its edits assert and the pre-edit facts they name; not the
    file's facts an edit replaces because resolution put them in its slot)."""
    return {r["id"] for r in kg.query("MATCH (:Edit)-[r:ASSERTS|SUPERSEDES]->(f:Fact) WHERE r.by IS NULL "
                                      "RETURN DISTINCT f.id AS id")[1]}


def answer(kg) -> str:
    return (kg.answer(QUESTION, method="care", agents="offline").answer or "").strip()


def test_resolution_joins_the_two_sources_and_the_crossing_question_is_answered(kg, tmp_path):
    edits, facts = write_sources(tmp_path)
    kg.ingest_edits(edits)
    kg.ingest_facts(facts)
    assert {"susan roces", "herbert clark hoover", "alliance for climate protection"} <= set(shared_names(kg))
    assert answer(kg) != "German"  # the chain breaks where the edit's Susan Roces meets the file's
    before = counts(kg)

    dry = kg.resolve("fuzzy", dry_run=True)
    assert counts(kg) == before
    pairs = {(m["absorbed_id"], m["survivor_id"]): m for m in dry.merges}
    assert pairs[("name:susan roces", "Q1870001")]["score"] == 1.0
    assert pairs[("name:herbert clark hoover", "Q35236")]["resolver"] in ("exact", "fuzzy")

    report = kg.resolve("fuzzy")
    assert {m["merge_id"] for m in report.merges} == {m["merge_id"] for m in dry.merges}
    assert shared_names(kg) == {}  # one entity per name and alias
    # the file's "founded by Al Gore" shares the edit's slot now: the edit's policy (latest) replaces it
    assert [c["object"] for c in report.source_conflicts] == ["Al Gore"]
    assert answer(kg) == "German"

    listed = kg.merges()
    assert len(listed) == len(report.merges) and all(0.9 <= m["score"] <= 1.0 for m in listed)
    roces = next(m for m in listed if m["absorbed_id"] == "name:susan roces")
    info = kg.explain_merge(roces["merge_id"])
    assert info["survivor"]["id"] == "Q1870001"
    assert [f["sources"] for f in info["facts"]] == [["facts.tsv"]]

    # re-ingesting the file after the merges writes onto the survivors: no count changes
    merged = counts(kg)
    kg.ingest_facts(facts)
    assert counts(kg) == merged and shared_names(kg) == {}

    # undoing every merge gives back the counts of before, exactly
    for m in kg.merges():
        kg.undo_merge(m["merge_id"])
    assert counts(kg) == before
    assert answer(kg) != "German"


def test_deleting_either_source_after_a_merge_leaves_the_other_sources_facts(kg, tmp_path):
    edits, facts = write_sources(tmp_path)
    kg.ingest_edits(edits)
    kg.ingest_facts(facts)
    kg.resolve("fuzzy")
    edit_facts, file_facts = from_edits(kg), stated(kg, facts)
    kg.delete(source=str(facts))
    assert from_edits(kg) == edit_facts and stated(kg, facts) == set()
    assert kg.merges() == []  # every merge only joined the file's entities: nothing is left of them
    assert kg.query("MATCH (n:MergedEntity) RETURN count(n) AS n")[1][0]["n"] == 0
    # the file's facts are gone, the edits' in force as before
    statuses = {r["relation"]: r["status"] for r in kg.query(
        "MATCH (:Edit)-[:ASSERTS]->(f:Fact) RETURN f.relation AS relation, f.status AS status")[1]}
    assert statuses == {"founded by": "active", "spouse": "active"}

    kg.clear()
    kg.ingest_edits(edits)
    kg.ingest_facts(facts)
    kg.resolve("fuzzy")
    file_facts = stated(kg, facts)
    report = kg.delete(source=str(edits))
    assert stated(kg, facts) == file_facts and from_edits(kg) == set()
    # the file's fact the edit had replaced is in force again, and the merged people keep its facts
    rows = kg.query("MATCH (h:Entity)-[:SUBJECT_OF]->(f:Fact)-[:OBJECT]->(t:Entity) "
                    "RETURN h.id AS h, f.relation AS r, t.name AS t, f.status AS s ORDER BY r")[1]
    assert {(r["r"], r["t"], r["s"]) for r in rows} == {(r, t, "active") for _h, r, t in FACTS}
    assert "Q1870001" in {r["h"] for r in rows}  # Susan Roces kept the edit corpus' id
    assert not report.merges_dropped


def test_cli_ingest_with_resolve_and_dry_run_lists_merges_with_scores(kg, tmp_path, neo4j_settings):
    from helpers import env_for

    edits, facts = write_sources(tmp_path)
    runner = CliRunner()
    env = env_for(neo4j_settings)
    result = runner.invoke(main, ["ingest", "edits", str(edits), "--resolve", "none"], env=env)
    assert result.exit_code == 0, result.output
    result = runner.invoke(main, ["ingest", "facts", str(facts), "--resolve", "none"], env=env)
    assert result.exit_code == 0, result.output
    out = tmp_path / "dry.json"
    result = runner.invoke(main, ["resolve", "--dry-run", "--json", str(out)], env=env)
    assert result.exit_code == 0, result.output
    # the default merges on evidence only: the alias the edit states; the same names alone are suggestions
    report = json.loads(out.read_text())
    assert "would merge" in result.output and [m["absorbed"] for m in report["merges"]] == ["Herbert Clark Hoover"]
    assert "Susan Roces" in {s["absorbed"] for s in report["suggestions"]} | {s["survivor"] for s in report["suggestions"]}
    result = runner.invoke(main, ["resolve", "--resolver", "fuzzy", "--dry-run", "--json", str(out)], env=env)
    assert result.exit_code == 0 and "1.000" in result.output
    assert len(json.loads(out.read_text())["merges"]) >= 4 and kg.merges() == []
    # ingesting again with the default resolver compares only what no pass has checked yet
    result = runner.invoke(main, ["ingest", "facts", str(facts)], env=env)
    assert result.exit_code == 0, result.output
    assert "resolve (evidence, pass ingest-" in result.output
    result = runner.invoke(main, ["resolve", "list"], env=env)
    assert result.exit_code == 0 and "merge:" in result.output
    merge_id = kg.merges()[0]["merge_id"]
    result = runner.invoke(main, ["resolve", "--undo", merge_id], env=env)
    assert result.exit_code == 0 and "undid" in result.output
    result = runner.invoke(main, ["resolve", "--undo", merge_id], env=env)
    assert result.exit_code == 2 and "no merge" in result.output
