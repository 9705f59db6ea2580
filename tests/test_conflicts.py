"""Conflicting edits of one (subject, relation) slot under each policy: latest, keep-all, fail."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kgtool.cli import main
from kgtool.errors import InputError
from kgtool.ingest.linking import canonical_id

MADONNA = {"id": "e1", "subject": "Hey Jude", "relation": "performer", "object": "Madonna",
           "old_object": "The Beatles", "description": "Hey Jude was performed by Madonna."}
PRINCE = {**MADONNA, "id": "e2", "object": "Prince", "description": "Hey Jude was performed by Prince."}
OTHER = {"id": "e3", "subject": "Let It Be", "relation": "performer", "object": "Adele",
         "old_object": "The Beatles", "description": "Let It Be was performed by Adele."}


def _write(path, *records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def _env(settings):
    return {"KGTOOL_HOME": str(settings.home), "KGTOOL_NEO4J_PORT": str(settings.neo4j_port),
            "KGTOOL_RUNTIME_DIR": str(settings.runtime_dir)}


def _performers(kg, batches=None):
    """The objects of Hey Jude's performer slot that answering sees (every edit, or only these batches)."""
    rows = kg.db.read("hop/candidates", entity_ids=[canonical_id("Hey Jude")], per_group=None, cases=None,
                      batches=batches, perturbation=None)
    return sorted(f["tail"] for f in rows[0]["facts"]) if rows else []


def _edits(kg):
    rows = kg.query("MATCH (e:Edit) RETURN e.id AS id, e.status AS status, e.superseded_by AS by, "
                    "e.conflict AS conflict ORDER BY id")[1]
    return {r["id"]: (r["status"], r["by"], r["conflict"]) for r in rows}


def _counts(kg):
    st = kg.stats()
    return {k: v for k, v in st["nodes"].items() if v}, {k: v for k, v in st["relationships"].items() if v}


def test_latest_the_later_file_wins_and_deleting_the_winner_restores_the_earlier_edit(kg, tmp_path):
    first, second = _write(tmp_path / "a.jsonl", MADONNA), _write(tmp_path / "b.jsonl", PRINCE)
    kg.ingest_edits(first, embed_relations=False)
    summary = kg.ingest_edits(second, embed_relations=False)
    assert summary.conflict_policy == "latest" and summary.conflicts == 1 and summary.superseded_by_conflict == 1
    assert _edits(kg) == {"e1": ("superseded-by-conflict", "e2", True), "e2": ("active", None, True)}
    assert _performers(kg) == ["Prince"]  # one active object per slot
    assert _performers(kg, batches=["a"]) == ["Madonna"]  # the winner is out of this scope
    assert kg.answer("Who performed Hey Jude?", agents="offline").answer == "Prince"

    # re-ingesting the earlier file does not make it the later one
    again = kg.ingest_edits(first, embed_relations=False)
    assert again.superseded_by_conflict == 0
    assert _edits(kg)["e1"] == ("superseded-by-conflict", "e2", True)

    report = kg.delete(edit="e2")
    assert report.edit_changes == [{"edit_id": "e1", "before": "superseded-by-conflict", "after": "active",
                                    "superseded_by": None}]
    assert _edits(kg) == {"e1": ("active", None, None)}
    assert _performers(kg) == ["Madonna"]


def test_latest_within_one_file_the_later_line_wins(kg, tmp_path):
    path = _write(tmp_path / "edits.jsonl", PRINCE, OTHER, MADONNA)
    summary = kg.ingest_edits(path, embed_relations=False)
    assert summary.superseded_by_conflict == 1
    assert _edits(kg) == {"e1": ("active", None, True), "e2": ("superseded-by-conflict", "e1", True),
                          "e3": ("active", None, None)}
    assert _performers(kg) == ["Madonna"]


def test_keep_all_keeps_both_objects_in_force_and_flagged(kg, tmp_path, neo4j_settings):
    first, second = _write(tmp_path / "a.jsonl", MADONNA), _write(tmp_path / "b.jsonl", PRINCE)
    runner = CliRunner()
    for path in (first, second):
        out = runner.invoke(main, ["ingest", "edits", str(path), "--conflicts", "keep-all"],
                            env=_env(neo4j_settings), catch_exceptions=False)
        assert out.exit_code == 0, out.output
    assert "0 (policy keep-all)" in out.output
    assert _edits(kg) == {"e1": ("active", None, True), "e2": ("active", None, True)}
    assert _performers(kg) == ["Madonna", "Prince"]
    rows = kg.query("MATCH (a:Edit)-[:CONFLICTS_WITH]->(b:Edit) RETURN a.id AS a, b.id AS b")[1]
    assert rows == [{"a": "e1", "b": "e2"}]


def test_fail_refuses_a_conflicting_file_and_writes_nothing(kg, tmp_path, neo4j_settings):
    first = _write(tmp_path / "a.jsonl", MADONNA)
    kg.ingest_edits(first, embed_relations=False, conflicts="fail")
    snapshot = _counts(kg)

    second = _write(tmp_path / "b.jsonl", OTHER, PRINCE)
    with pytest.raises(InputError) as err:
        kg.ingest_edits(second, embed_relations=False, conflicts="fail")
    message = str(err.value)
    assert f"{second}:2" in message and "'e2'" in message and "'e1' in the graph" in message
    assert "nothing was written" in message and _counts(kg) == snapshot

    inside = _write(tmp_path / "c.jsonl", {**OTHER, "id": "c1"}, {**OTHER, "id": "c2", "object": "Sting"})
    out = CliRunner().invoke(main, ["ingest", "edits", str(inside), "--conflicts", "fail"], env=_env(neo4j_settings))
    assert out.exit_code == 2 and f"{inside}:2" in out.output and "'c1'" in out.output
    assert _counts(kg) == snapshot

    # the same edit again, or an edit of another slot, is no conflict
    kg.ingest_edits(first, embed_relations=False, conflicts="fail")
    kg.ingest_edits(_write(tmp_path / "d.jsonl", OTHER), embed_relations=False, conflicts="fail")
    assert set(_edits(kg)) == {"e1", "e3"}

    with pytest.raises(InputError, match="unknown conflict policy 'newest'"):
        kg.ingest_edits(first, embed_relations=False, conflicts="newest")
