"""Precision-first resolution on a real Neo4j, through the CLI: an ingest merges only on evidence and
names each merge; name-only near matches and contradicted pairs are not merged, the near matches are
suggestions a person accepts; undo by several ids, by ingest pass and all; an undone merge stays undone
after re-ingesting the same file and after `kgtool resolve`. Invented names (tests/data/resolve_review)."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

from click.testing import CliRunner

from kgtool.cli import main

DATA = Path(__file__).parent / "data" / "resolve_review" / "facts.tsv"
EVIDENCE_PAIRS = {frozenset(p) for p in [("name:velorn", "name:velorrn"), ("name:harrowmere", "name:harrowmeer"),
                                          ("name:quillonia", "name:quilonia")]}


def cli(neo4j_settings, *args):
    from helpers import env_for

    result = CliRunner().invoke(main, [str(a) for a in args], env=env_for(neo4j_settings))
    assert result.exit_code == 0, result.output
    return result.output


def merged_pairs(kg) -> set[frozenset]:
    return {frozenset((m["survivor_id"], m["absorbed_id"])) for m in kg.merges()}


def entities(kg) -> set[str]:
    return {r["id"] for r in kg.query("MATCH (e:Entity) RETURN e.id AS id")[1]}


def pass_of(output: str) -> str:
    return re.search(r"pass (ingest-[0-9]{8}-[0-9]{6}-[0-9a-f]{4})", output).group(1)


def test_an_ingest_merges_on_evidence_names_each_merge_and_leaves_name_matches_as_suggestions(
        kg, tmp_path, neo4j_settings):
    facts = tmp_path / "facts.tsv"
    shutil.copy(DATA, facts)
    out = cli(neo4j_settings, "ingest", "facts", facts)
    assert "3 merge(s), 1 suggestion(s)" in out
    for line in ("merged Velorn <- Velorrn (", "merged Harrowmeer <- Harrowmere (", "merged Quillonia <- Quilonia ("):
        assert line in out
    assert "both code vln" in out and "undo them: kgtool resolve --undo --ingest ingest-" in out
    assert merged_pairs(kg) == EVIDENCE_PAIRS
    # contradicted pairs: merged neither by the ingest nor by a full pass, and not suggested
    cli(neo4j_settings, "resolve")
    assert merged_pairs(kg) == EVIDENCE_PAIRS
    assert {"name:eastern brellin", "name:western brellin", "name:dalen orrik", "name:dalen t. orrik",
            "name:aldric vii", "name:aldric viii"} <= entities(kg)

    listed = cli(neo4j_settings, "resolve", "list", "--suggestions")
    assert "Tamsin Quorl" in listed and "Tamsin Qworl" in listed and "both member of guild of weavers" in listed
    assert "under 4 bits beyond the name" in listed and "Brellin" not in listed and "Orrik" not in listed
    suggestion = re.search(r"suggest:[0-9a-f]{12}", listed).group(0)
    accepted = cli(neo4j_settings, "resolve", "accept", suggestion)
    assert "merged Tamsin" in accepted and "1 merge(s)" in accepted
    assert frozenset(("name:tamsin quorl", "name:tamsin qworl")) in merged_pairs(kg)
    assert [m["resolver"] for m in kg.merges() if "name:tamsin qworl" in (m["survivor_id"], m["absorbed_id"])] \
        == ["accepted"]
    assert "Tamsin" not in cli(neo4j_settings, "resolve", "list", "--suggestions")
    # accepted merges are undone like any other
    cli(neo4j_settings, "resolve", "--undo", "--ingest", re.search(r"pass (accept-\S+);", accepted).group(1))
    assert merged_pairs(kg) == EVIDENCE_PAIRS


def test_undo_by_ids_by_ingest_and_all_and_an_undone_merge_stays_undone(kg, tmp_path, neo4j_settings):
    facts = tmp_path / "facts.tsv"
    shutil.copy(DATA, facts)
    first = pass_of(cli(neo4j_settings, "ingest", "facts", facts))
    assert len(kg.merges(ingest=first)) == 3 and len(kg.merges(ingest=str(facts))) == 3
    listed = cli(neo4j_settings, "resolve", "list", "--ingest", first)
    assert listed.count("merge:") == 3
    by_pair = {frozenset((m["survivor_id"], m["absorbed_id"])): m["merge_id"] for m in kg.merges()}
    velorn, harrow = (by_pair[frozenset(("name:velorn", "name:velorrn"))],
                      by_pair[frozenset(("name:harrowmere", "name:harrowmeer"))])
    out = cli(neo4j_settings, "resolve", "--undo", velorn, "--undo", harrow)
    assert "2 merge(s) undone" in out
    quill = {frozenset(("name:quillonia", "name:quilonia"))}
    assert merged_pairs(kg) == quill
    assert {r["a_id"] for r in kg.query("MATCH (x:MergeRejection) RETURN x.a_id AS a_id")[1]} == \
        {"name:velorn", "name:harrowmeer"}

    # the same unchanged file again, then a full pass: the undone pairs stay apart
    again = cli(neo4j_settings, "ingest", "facts", facts)
    assert "0 merge(s)" in again
    cli(neo4j_settings, "resolve")
    assert merged_pairs(kg) == quill
    assert {"name:velorn", "name:velorrn", "name:harrowmere", "name:harrowmeer"} <= entities(kg)

    # every merge of the first ingest, by its pass id
    assert "1 merge(s) undone" in cli(neo4j_settings, "resolve", "--undo", "--ingest", first)
    assert merged_pairs(kg) == set()
    cli(neo4j_settings, "ingest", "facts", facts)
    cli(neo4j_settings, "resolve")
    assert merged_pairs(kg) == set()

    # accepting a suggestion takes a rejection back only for its own pair; --all undoes everything
    kg.clear()
    cli(neo4j_settings, "ingest", "facts", facts)
    suggestion = re.search(r"suggest:[0-9a-f]{12}", cli(neo4j_settings, "resolve", "list", "--suggestions")).group(0)
    cli(neo4j_settings, "resolve", "accept", suggestion)
    assert len(kg.merges()) == 4
    out = cli(neo4j_settings, "resolve", "--undo", "--all")
    assert "4 merge(s) undone" in out and kg.merges() == []
    cli(neo4j_settings, "ingest", "facts", facts)
    cli(neo4j_settings, "resolve")
    assert kg.merges() == [] and kg.query("MATCH (x:MergeRejection) RETURN count(x) AS n")[1][0]["n"] == 4


def test_undo_refuses_unknown_ids_and_undo_options_without_undo(kg, tmp_path, neo4j_settings):
    from helpers import env_for

    facts = tmp_path / "facts.tsv"
    shutil.copy(DATA, facts)
    cli(neo4j_settings, "ingest", "facts", facts)
    runner = CliRunner()
    result = runner.invoke(main, ["resolve", "--undo", "merge:0000000000000000"], env=env_for(neo4j_settings))
    assert result.exit_code == 2 and "no merge 'merge:0000000000000000'" in result.output
    assert len(kg.merges()) == 3
    result = runner.invoke(main, ["resolve", "--all"], env=env_for(neo4j_settings))
    assert result.exit_code == 2 and "go with --undo" in result.output
    result = runner.invoke(main, ["resolve", "accept", "suggest:000000000000"], env=env_for(neo4j_settings))
    assert result.exit_code == 2 and "no open suggestion" in result.output
