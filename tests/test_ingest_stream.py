"""Streaming edit ingest: a JSONL file read as the batches need it, and the conflict
statements run only on the slots the store says are contested."""
from __future__ import annotations

import json

from kgtool.ingest import readers
from kgtool.ingest.linking import canonical_id
from kgtool.ingest.load import relation_key
from kgtool.ingest.readers import JsonlEdits, read_jsonl

MADONNA = {"id": "e1", "subject": "Hey Jude", "relation": "performer", "object": "Madonna",
           "old_object": "The Beatles", "description": "Hey Jude was performed by Madonna."}
PRINCE = {**MADONNA, "id": "e2", "object": "Prince", "description": "Hey Jude was performed by Prince."}
SAME = {**MADONNA, "id": "e4", "description": "Madonna performed Hey Jude."}
OTHER = {"id": "e3", "subject": "Let It Be", "relation": "performer", "object": "Adele",
         "old_object": "The Beatles", "description": "Let It Be was performed by Adele."}


def _edit(k: int) -> dict:
    return {"id": f"s{k}", "subject": f"Song {k}", "relation": "performer", "object": f"Singer {k}",
            "old_object": f"Band {k}", "description": f"Song {k} was performed by Singer {k}."}


def _lines(tmp_path, lines: list[str]):
    path = tmp_path / "edits.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_a_file_read_in_pieces_gives_what_a_whole_read_gives(tmp_path):
    lines = [json.dumps(_edit(0)), "", "{not json", json.dumps(_edit(1)), json.dumps({**_edit(2), "id": "s0"}),
             # an unpaired surrogate can only come from an escape; a pair of them is one character
             json.dumps({**_edit(3), "subject": "\ud800 alone"}), json.dumps({**_edit(4), "subject": "Smile \U0001F600"}),
             json.dumps({**_edit(5), "object_aliases": ["ok", "\udfff"]}), json.dumps(_edit(6))]
    path = _lines(tmp_path, lines)
    whole = read_jsonl(path)
    assert [e.id for e in whole.edits] == ["s0", "s1", "s4", "s6"]
    assert whole.edits[2].subject == "Smile \U0001F600"
    assert [str(b) for b in whole.bad] == [
        f"{path}:3: malformed JSON: Expecting property name enclosed in double quotes (column 2)",
        f"{path}:5: duplicate id 's0' (first used on line 1)",
        f"{path}:6: field 'subject' contains an unpaired surrogate and cannot be stored as UTF-8",
        f"{path}:8: field 'object_aliases'[1] contains an unpaired surrogate and cannot be stored as UTF-8",
    ]

    with JsonlEdits(path) as stream:
        assert stream.lines_left() == len(lines)
        stream.read_until(1)
        assert [e.id for e in stream.edits] == ["s0"] and not stream.done
        assert stream.lines_left() == len(lines) - 1
        stream.read_until(3)
        assert [e.id for e in stream.edits] == ["s0", "s1", "s4"] and not stream.done
        stream.read_all()
        assert stream.done and stream.lines_left() == 0
        assert stream.edits == whole.edits and stream.bad == whole.bad


def test_a_jsonl_ingest_writes_batches_while_the_file_is_still_being_read(kg, tmp_path, monkeypatch):
    path = _lines(tmp_path, [json.dumps(_edit(k)) for k in range(3)] + ["[1, 2]"]
                  + [json.dumps(_edit(k)) for k in range(3, 7)])
    asked: list[tuple[int, int]] = []  # (edits asked for, good edits read before the call)
    real = JsonlEdits.read_until

    def spy(self, n_edits):
        asked.append((n_edits, len(self.edits)))
        return real(self, n_edits)

    monkeypatch.setattr(readers.JsonlEdits, "read_until", spy)
    seen: list[tuple[int, int]] = []
    summary = kg.ingest_edits(path, embed_relations=False, batch_size=2,
                              progress=lambda done, total: seen.append((done, total)))
    # two edits more per batch, not the whole file before the first write
    assert asked == [(2, 0), (4, 2), (6, 4), (8, 6), (10, 7)]
    assert summary.edits_loaded == 7 and summary.records_read == 8
    assert [str(b) for b in summary.skipped] == [f"{path}:4: expected a JSON object, got a list"]
    assert seen[-1] == (7, 7) and [done for done, _ in seen] == [2, 4, 6, 7]
    assert all(total >= 7 for _, total in seen)  # until the end, the unread lines count as edits
    assert kg.query("MATCH (e:Edit) RETURN count(e) AS n")[1] == [{"n": 7}]

    again = kg.ingest_edits(path, embed_relations=False, batch_size=2)
    assert again.edits_loaded == 7
    assert kg.query("MATCH (e:Edit) RETURN count(e) AS n")[1] == [{"n": 7}]


def _slot(subject: str) -> str:
    return f"{canonical_id(subject)}\x1f{relation_key('performer')}"


def _statuses(kg):
    edits = kg.query("MATCH (e:Edit) RETURN e.id AS id, e.status AS status, e.conflict AS conflict ORDER BY id")[1]
    facts = kg.query("MATCH (f:Fact)-[:OBJECT]->(t:Entity) RETURN t.name AS tail, f.status AS status "
                     "ORDER BY tail")[1]
    return ({r["id"]: (r["status"], r["conflict"]) for r in edits}, {r["tail"]: r["status"] for r in facts})


def test_only_slots_with_two_objects_or_a_verdict_are_contested(kg, tmp_path):
    hey_jude, let_it_be = _slot("Hey Jude"), _slot("Let It Be")
    kg.ingest_edits(_lines(tmp_path, [json.dumps(MADONNA), json.dumps(SAME), json.dumps(OTHER)]),
                    embed_relations=False)
    # two edits, one object: nothing to flag or resolve, and the statuses say so
    assert kg.db.read("ingest/contested_slots", slots=[hey_jude, let_it_be]) == []
    assert _statuses(kg) == ({"e1": ("active", None), "e3": ("active", None), "e4": ("active", None)},
                             {"Adele": "active", "Madonna": "active", "The Beatles": "superseded"})

    second = tmp_path / "b.jsonl"
    second.write_text(json.dumps(PRINCE) + "\n")
    summary = kg.ingest_edits(second, embed_relations=False)
    assert summary.conflicts == 2 and summary.superseded_by_conflict == 2
    assert kg.db.read("ingest/contested_slots", slots=[hey_jude, let_it_be]) == [{"slot": hey_jude}]
    assert _statuses(kg) == (
        {"e1": ("superseded-by-conflict", True), "e2": ("active", True), "e3": ("active", None),
         "e4": ("superseded-by-conflict", True)},
        {"Adele": "active", "Madonna": "superseded", "Prince": "active", "The Beatles": "superseded"})

    # once the winner is gone the slot has one object again, but its verdicts keep it contested
    # until they are resolved (delete does that at once)
    kg.delete(edit="e2")
    assert _statuses(kg) == ({"e1": ("active", None), "e3": ("active", None), "e4": ("active", None)},
                             {"Adele": "active", "Madonna": "active", "The Beatles": "superseded"})
    assert kg.db.read("ingest/contested_slots", slots=[hey_jude, let_it_be]) == []


def test_the_fact_status_each_batch_settles_is_the_one_all_stored_edits_give(kg, tmp_path, mquake_dev):
    # merge_facts settles each batch's fact statuses from the batch and what is stored, and only
    # contested slots are recomputed afterwards: after base facts, edits over many batches that
    # share entities and facts, conflicts under two policies and a deletion, recomputing every
    # fact from all stored edits (ingest/update_fact_status) must change nothing
    kg.ingest_edits(mquake_dev, embed_relations=False, batch_size=40)
    first = _lines(tmp_path, [json.dumps(MADONNA), json.dumps(SAME), json.dumps(OTHER)])
    kg.ingest_edits(first, embed_relations=False, batch_size=1)
    second = tmp_path / "b.jsonl"
    second.write_text(json.dumps(PRINCE) + "\n" + json.dumps({**OTHER, "id": "e5", "object": "Adele"}) + "\n")
    kg.ingest_edits(second, embed_relations=False)
    kg.delete(edit="e1")
    kg.ingest_edits(first, embed_relations=False, conflicts="keep-all", batch_size=2)
    statuses = kg.query("MATCH (f:Fact) RETURN f.status AS status, count(*) AS n ORDER BY status")[1]
    assert {r["status"] for r in statuses} == {"active", "superseded"}

    fact_ids = [r["id"] for r in kg.query("MATCH (f:Fact) RETURN f.id AS id")[1]]
    slots = [r["slot"] for r in kg.query("MATCH (e:Edit) RETURN DISTINCT e.slot AS slot")[1]]
    assert kg.db.write("ingest/update_fact_status", fact_ids=fact_ids, slots=slots) == []


def test_re_ingesting_keeps_each_edits_first_order_stamp(kg, tmp_path):
    path = _lines(tmp_path, [json.dumps(_edit(k)) for k in range(3)])
    stamps = "MATCH (e:Edit) RETURN e.id AS id, e.ingested_at AS at, e.position AS position ORDER BY id"
    kg.ingest_edits(path, embed_relations=False)
    first = kg.query(stamps)[1]
    assert [r["position"] for r in first] == [0, 1, 2] and len({r["at"] for r in first}) == 1
    # an edit stored without a stamp (before stamps existed) gets the next run's
    with kg.db.session() as session:
        session.run("MATCH (e:Edit {id: 's1'}) REMOVE e.ingested_at, e.position").consume()
    kg.ingest_edits(path, embed_relations=False)
    again = {r["id"]: r for r in kg.query(stamps)[1]}
    assert again["s0"] == first[0] and again["s2"] == first[2]
    assert again["s1"]["position"] == 1 and again["s1"]["at"] > first[1]["at"]


class _NamesOtherTriple:
    """An extractor that reads, from each edit, a triple about another subject (as REBEL may)."""

    name = "other"

    def __init__(self, head: str, relation: str, tail: str):
        self.triple = (head, relation, tail)

    def extract_batch(self, edits):
        from kgtool.ingest.records import Candidate

        head, relation, tail = self.triple
        return [[Candidate(head, relation, tail, edit.description, self.name)] for edit in edits]


def test_a_superseded_fact_an_edit_in_force_asserts_again_is_active(kg, tmp_path):
    # MADONNA supersedes (Hey Jude, performer, The Beatles); an edit of another slot whose raw
    # candidate (no EATR) is that very triple asserts it again while in force
    kg.ingest_edits(_lines(tmp_path, [json.dumps(MADONNA)]), embed_relations=False)
    assert _statuses(kg)[1]["The Beatles"] == "superseded"
    second = tmp_path / "other.jsonl"
    second.write_text(json.dumps(OTHER) + "\n")
    kg.ingest_edits(second, embed_relations=False, eatr=False,
                    extractor=_NamesOtherTriple("Hey Jude", "performer", "The Beatles"))
    beatles = kg.query("MATCH (:Entity {name: 'Hey Jude'})-[:SUBJECT_OF]->(f:Fact)-[:OBJECT]->(:Entity {name: 'The Beatles'}) "
                       "RETURN f.status AS status, COUNT { (:Edit)-[:ASSERTS]->(f) } AS asserted")[1]
    assert beatles == [{"status": "active", "asserted": 1}]
