"""Turn edits, base facts and EATR decisions into graph rows, and write them.

Every write is a batched `UNWIND $rows` statement from cypher/ingest/, and one
batch of edits is written in ONE transaction, so a failure leaves nothing of
that batch behind. Ids are content-derived (entities: Wikidata Q-id or
normalised name; facts: hash of head, relation key and tail), and every write
is a MERGE, so re-running a file changes no counts.

Provenance, so a source can be deleted with what only it supports: a file's
base facts are linked from its (:Source {id: resolved path})-[:STATES {evidence}]
node, an edit's facts from the Edit (ASSERTS, SUPERSEDES) and its description
Passage (SUPPORTS). Conflicting edits of one slot are resolved by the policy
stored on the later edit (see CONFLICT_POLICIES).
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

from kgtool.errors import InputError
from kgtool.graph.db import Database
from kgtool.ingest.linking import NAME_PREFIX, canonical_id, normalize
from kgtool.ingest.literals import LITERAL_PREFIX, day_of
from kgtool.ingest.records import BaseFact, Decision, EditRecord


# What happens when an edit sets a (subject, relation) slot that another edit set to a
# different object. keep-all: both stay in force, flagged (conflict = true, CONFLICTS_WITH).
# latest: the edit ingested later (a later run, or a later line of the same file) wins;
# the earlier one is marked status 'superseded-by-conflict' (OVERRIDES from the winner)
# and its facts stop counting as asserted, so the slot has one active object.
# fail: ingestion refuses a file with such an edit and writes nothing.
CONFLICT_POLICIES = ("latest", "keep-all", "fail")


def check_conflict_policy(policy: str) -> None:
    if policy not in CONFLICT_POLICIES:
        raise InputError(f"unknown conflict policy {policy!r}; use one of: {', '.join(CONFLICT_POLICIES)}")

# an edit's description is stored as the Passage with this prefix + the edit id
EDIT_PASSAGE_PREFIX = "p:"


def source_id(path: str | Path) -> str:
    """The id of a file as a knowledge source: its absolute path, so any spelling of it finds it."""
    return str(Path(path).expanduser().resolve())


def relation_key(label: str, relation_id: str | None = None) -> str:
    """Facts of one relation share this key: its id when known, else its normalised label."""
    return relation_id.strip() if relation_id and relation_id.strip() else "rel:" + normalize(label)


def fact_id(head_id: str, rel_key: str, tail_id: str) -> str:
    digest = hashlib.sha1(f"{head_id}\x1f{rel_key}\x1f{tail_id}".encode("utf-8")).hexdigest()
    return "f:" + digest[:20]


def template(text: str | None, subject: str) -> str | None:
    """A phrasing of the relation with the subject as `{}` ("Who founded {}?")."""
    if not text:
        return None
    if "{}" in text:
        return text
    return text.replace(subject, "{}") if subject and subject in text else None


@dataclass
class GraphRows:
    """Rows for one transaction, keyed so duplicates inside a batch merge early."""

    entities: dict[str, dict] = field(default_factory=dict)
    relations: dict[str, dict] = field(default_factory=dict)
    facts: dict[str, dict] = field(default_factory=dict)
    edits: list[dict] = field(default_factory=list)
    supersedes: list[dict] = field(default_factory=list)
    passages: dict[str, dict] = field(default_factory=dict)
    slots: set[str] = field(default_factory=set)
    # source id -> {id, props, facts: [{fact_id, evidence}]}: which file states which base facts
    sources: dict[str, dict] = field(default_factory=dict)
    # first-ingestion order of edits ({id, ingested_at, position}), which conflict policies read
    edit_order: list[dict] = field(default_factory=list)
    # literal entity id -> its typed value and its fact ({id, fact_id, datatype, lexical, day, text,
    # precision, unit}): ingest/merge_literals types the node and copies the value onto the fact
    literals: dict[str, dict] = field(default_factory=dict)

    def entity(self, name: str, qid: str | None, aliases: Iterable[str] = ()) -> str:
        eid = canonical_id(name, qid)
        row = self.entities.get(eid)
        if row is None:
            row = self.entities[eid] = {
                "id": eid, "name": name, "norm": normalize(name), "qid": qid if eid == qid else None, "aliases": [],
            }
        for alias in aliases:
            if alias and alias != row["name"] and alias not in row["aliases"]:
                row["aliases"].append(alias)
        return eid

    def literal(self, head_id: str, rel_key: str, literal) -> str:
        """The node of one fact's typed value (kgtool.ingest.literals.Literal): its id comes from the
        head, the relation and the value, so equal values of other facts are other nodes, and one
        value written two ways ("12 March 1990", "1990-03-12") for the same fact is one."""
        key = f"{head_id}\x1f{rel_key}\x1f{literal.datatype}\x1f{literal.lexical}\x1f{literal.unit or ''}"
        lid = LITERAL_PREFIX + hashlib.sha1(key.encode("utf-8")).hexdigest()[:20]
        if lid not in self.entities:
            self.entities[lid] = {"id": lid, "name": literal.text, "norm": normalize(literal.text), "qid": None,
                                  "aliases": []}
            self.literals[lid] = {
                "id": lid, "fact_id": None, "datatype": literal.datatype, "lexical": literal.lexical,
                "day": day_of(literal.lexical) if literal.datatype == "date" else None, "text": literal.text,
                "precision": literal.precision, "unit": literal.unit}
        return lid

    def relation(self, label: str, relation_id: str | None, phrases: Iterable[str | None] = ()) -> str:
        key = relation_key(label, relation_id)
        row = self.relations.get(key)
        if row is None:
            row = self.relations[key] = {"key": key, "label": label, "relation_id": relation_id, "phrases": []}
        for phrase in phrases:
            if phrase and phrase not in row["phrases"]:
                row["phrases"].append(phrase)
        return key

    def fact(self, head_id: str, label: str, rel_key: str, relation_id: str | None, tail_id: str,
             evidence: str, source: str, case_id: str | None) -> str:
        fid = fact_id(head_id, rel_key, tail_id)
        if fid not in self.facts:
            self.facts[fid] = {
                "id": fid, "head_id": head_id, "tail_id": tail_id, "relation": label, "relation_key": rel_key,
                "relation_id": relation_id, "evidence": evidence, "source": source, "case_id": case_id,
            }
        return fid

    def source(self, sid: str, props: dict) -> dict:
        row = self.sources.get(sid)
        if row is None:
            row = self.sources[sid] = {"id": sid, "props": props, "facts": {}}
        return row

    def states(self, sid: str | None, fact_id: str, evidence: str) -> None:
        if sid is not None:
            self.sources[sid]["facts"].setdefault(fact_id, evidence)

    def source_rows(self) -> list[dict]:
        return [
            {"id": row["id"], "props": row["props"],
             "facts": [{"fact_id": fid, "evidence": ev} for fid, ev in row["facts"].items()]}
            for row in self.sources.values()
        ]


# json.dumps(..., ensure_ascii=False) builds a new encoder on every call; one is enough
_json_text = json.JSONEncoder(ensure_ascii=False).encode


def _str(value) -> str | None:
    return None if value is None else str(value)


def edit_slot(edit: EditRecord) -> tuple[str, str]:
    """(slot, new object id) of an edit: the slot is "subject id<US>relation key"."""
    subject_id = canonical_id(edit.subject, edit.subject_id)
    return f"{subject_id}\x1f{relation_key(edit.relation, edit.relation_id)}", canonical_id(edit.object, edit.object_id)


def rows_for_base_facts(rows: GraphRows, facts: Sequence[BaseFact], source: str | None = None) -> None:
    """Rows for base facts; `source` (a source id already added with rows.source) states them."""
    for bf in facts:
        head = rows.entity(bf.subject, bf.subject_id, bf.subject_aliases)
        key = rows.relation(bf.relation, bf.relation_id)
        literal = bf.object_literal
        tail = rows.entity(bf.object, bf.object_id, bf.object_aliases) if literal is None else \
            rows.literal(head, key, literal)
        # without a sentence of its own, a plain statement of the triple is what
        # retrieval and the critic can check against
        evidence = bf.evidence or f"{bf.subject} {bf.relation} {bf.object}."
        fid = rows.fact(head, bf.relation, key, bf.relation_id, tail, evidence, "base", _str(bf.case_id))
        if literal is not None:
            rows.literals[tail]["fact_id"] = fid
        rows.states(source, fid, evidence)


def rows_for_edits(rows: GraphRows, edits: Sequence[EditRecord], decisions: Sequence[Sequence[Decision]],
                   batch: str, *, source: str | None = None, conflicts: str = "keep-all", first_position: int = 0,
                   ingested_at: int | None = None) -> None:
    """Rows for a batch of edits; `source` (added with rows.source) states the pre-edit facts they name.

    conflicts is the policy this batch applies against earlier edits of its slots;
    first_position is the index of edits[0] in its file and ingested_at the ingestion
    run's time, which together order edits for the `latest` policy.
    """
    for offset, (edit, edit_decisions) in enumerate(zip(edits, decisions)):
        subject_id = rows.entity(edit.subject, edit.subject_id, edit.subject_aliases)
        object_id = rows.entity(edit.object, edit.object_id, edit.object_aliases)
        key = rows.relation(edit.relation, edit.relation_id,
                            (template(edit.prompt, edit.subject), template(edit.question, edit.subject)))
        asserted = []
        for decision in edit_decisions:
            if not decision.kept:
                continue
            cand = decision.candidate
            head_id = decision.head_id or canonical_id(cand.head)
            tail_id = decision.tail_id or canonical_id(cand.tail)
            # an id the source gave (a Q-id or "id:...") stays the entity's; a name id comes from the name
            rows.entity(cand.head, None if head_id.startswith(NAME_PREFIX) else head_id)
            rows.entity(cand.tail, None if tail_id.startswith(NAME_PREFIX) else tail_id)
            if decision.reason == "kept":
                # EATR kept it: the relation is consistent with the anchor's
                fid = rows.fact(head_id, cand.relation, key, edit.relation_id, tail_id, cand.evidence, "edit", _str(edit.case_id))
            else:  # --no-eatr: the raw candidate keeps its own relation
                raw_key = rows.relation(cand.relation, None)
                fid = rows.fact(head_id, cand.relation, raw_key, None, tail_id, cand.evidence, "edit", _str(edit.case_id))
            if fid not in asserted:
                asserted.append(fid)
        superseded = None
        if edit.old_object:
            old_id = rows.entity(edit.old_object, edit.old_object_id, edit.old_object_aliases)
            evidence = f"{edit.subject} {edit.relation} {edit.old_object}."
            superseded = rows.fact(subject_id, edit.relation, key, edit.relation_id, old_id, evidence, "base", _str(edit.case_id))
            rows.supersedes.append({"edit_id": edit.id, "fact_id": superseded})
            # the file that names the pre-edit fact is its source: deleting the edit
            # alone restores it, deleting the file removes it
            rows.states(source, superseded, evidence)
        slot = f"{subject_id}\x1f{key}"
        rows.slots.add(slot)
        if ingested_at is not None:
            rows.edit_order.append({"id": edit.id, "ingested_at": ingested_at, "position": first_position + offset})
        passage_id = EDIT_PASSAGE_PREFIX + edit.id
        rows.passages[passage_id] = {"id": passage_id, "title": edit.subject, "text": edit.description, "fact_ids": asserted}
        audit = [
            {"head": d.candidate.head, "relation": d.candidate.relation, "tail": d.candidate.tail,
             "extractor": d.candidate.extractor, "kept": d.kept, "reason": d.reason,
             "cosine": None if d.cosine is None else round(d.cosine, 4)}
            for d in edit_decisions
        ]
        rows.edits.append({
            "id": edit.id, "fact_ids": asserted,
            "props": {
                "case_id": _str(edit.case_id), "batch": batch, "description": edit.description,
                "subject": edit.subject, "subject_id": subject_id, "relation": edit.relation, "relation_key": key,
                "relation_id": edit.relation_id, "object": edit.object, "object_id": object_id,
                "old_object": edit.old_object, "source": edit.source, "slot": slot,
                "file": source, "conflict_policy": conflicts,
                "eatr_kept": sum(1 for d in edit_decisions if d.kept),
                "eatr_rejected": sum(1 for d in edit_decisions if not d.kept),
                "eatr_decisions": _json_text(audit),
            },
        })


@dataclass
class WriteCounts:
    conflicts: int = 0
    # edits this write marked superseded-by-conflict (policy latest)
    overridden: list[str] = field(default_factory=list)


def write_rows(db: Database, rows: GraphRows, steps: list[tuple[str, dict]] | None = None) -> WriteCounts:
    """Write one batch in one transaction (write_batch), conflict verdicts of its slots included;
    `steps` are merge_steps(rows) when the caller has built them already."""
    steps = merge_steps(rows) if steps is None else steps
    return db.write_transaction(lambda run: write_batch(run, rows, steps))


def write_batch(run, rows: GraphRows, steps: list[tuple[str, dict]]) -> WriteCounts:
    """The statements of one batch (`steps` = merge_steps(rows), then the conflict statements),
    through `run(name, params) -> rows` (one transaction's; bench/ passes one that also times
    each statement).

    The merges come first, and they settle the status of the facts the batch writes
    or links (ingest/merge_facts). Then the store names the slots of the batch whose
    conflict verdicts can change (ingest/contested_slots), and only those go through the
    conflict statements and the slot-wide fact status recomputation.
    """
    for name, params in steps:
        run(name, params, rows=False)  # sent back to back: packing the next overlaps this one's execution
    counts = WriteCounts()
    if not rows.slots:  # base facts only: no edit, no verdict
        return counts
    contested = [r["slot"] for r in run("ingest/contested_slots", {"slots": sorted(rows.slots)})]
    if contested:
        flagged = run("ingest/flag_conflicts", {"slots": contested})
        resolved = run("ingest/resolve_conflicts", {"slots": contested})
        counts.conflicts = flagged[0]["conflicts"] if flagged else 0
        counts.overridden = [r["edit_id"] for r in resolved if r["after"] == "superseded-by-conflict"]
        # after the verdicts: the facts of an overridden edit no longer count as asserted
        run("ingest/update_fact_status", {"fact_ids": [], "slots": contested})
    return counts


def merge_steps(rows: GraphRows) -> list[tuple[str, dict]]:
    """The named merge statements and parameters of one batch, in order."""
    entities = [
        {**row, "alias_text": " | ".join(row["aliases"])} for row in rows.entities.values()
    ]
    stamps: dict[str, dict] = {}
    for row in rows.edit_order:
        stamps.setdefault(row["id"], row)  # the first stamp of an id stays, as in the store
    asserted = {fid for row in rows.edits for fid in row["fact_ids"]}
    superseded = {row["fact_id"] for row in rows.supersedes}
    replaced: dict[str, list[str]] = {}
    for row in rows.supersedes:
        replaced.setdefault(row["edit_id"], []).append(row["fact_id"])
    edits = [{**row, "ingested_at": stamps.get(row["id"], {}).get("ingested_at"),
              "position": stamps.get(row["id"], {}).get("position"), "superseded": replaced.get(row["id"], [])}
             for row in rows.edits]
    steps = [
        ("ingest/merge_entities", {"rows": entities}),
        ("ingest/merge_relations", {"rows": list(rows.relations.values())}),
        ("ingest/merge_facts", {"rows": [{**row, "asserted": fid in asserted, "superseded": fid in superseded}
                                         for fid, row in rows.facts.items()]}),
    ]
    if rows.literals:  # a batch without values sends no statement for them
        steps.append(("ingest/merge_literals", {"rows": list(rows.literals.values())}))
    return steps + [
        ("ingest/merge_edits", {"rows": edits}),
        ("ingest/merge_passages", {"rows": list(rows.passages.values())}),
        ("ingest/merge_sources", {"rows": rows.source_rows()}),
    ]


def write_relation_embeddings(db: Database, embedder) -> int:
    """Embed the labels of relations that have no embedding yet (one model call)."""
    missing = db.read("ingest/relations_without_embedding")
    if not missing:
        return 0
    vectors = embedder.encode([r["label"] for r in missing])
    db.write("ingest/set_relation_embeddings", rows=[
        {"key": r["key"], "embedding": [float(x) for x in vec], "model": getattr(embedder, "name", "")}
        for r, vec in zip(missing, vectors)
    ])
    return len(missing)
