"""Entity resolution's part in ingestion.

Two things happen around each ingest:
- before a batch is written, the rows' entity ids that earlier merges absorbed are
  rewritten to their survivors (`redirect_rows`), so a file ingested again after a merge
  lands on the survivor: its facts keep their ids (the ids the merge moved), and no
  absorbed entity comes back;
- after the ingest, the entities it wrote are resolved against the whole store with the
  `--resolve` choice (`resolve_after`).
"""
from __future__ import annotations

from typing import Iterable

from kgtool.graph.db import Database
from kgtool.resolve import DEFAULT_RESOLVER, store  # noqa: F401  (DEFAULT_RESOLVER re-exported)
from kgtool.resolve.evidence import short_reason


class Redirector:
    """Rewrites GraphRows to the survivors of stored merges; asks the store only if it holds any."""

    def __init__(self, db: Database):
        self.db = db
        self.active = bool(db.read("resolve/has_merges")[0]["merges"])

    def __call__(self, rows):
        if self.active:
            redirect_rows(rows, store.redirects(self.db, rows.entities))
        return rows


def redirect_rows(rows, mapping: dict[str, str]) -> None:
    """Rewrite a kgtool.ingest.load.GraphRows in place: merged entity ids -> survivor ids.

    The absorbed entity's row becomes aliases of the survivor (which exists: only its
    aliases can change); facts keep their ids and point at the survivor; edits name the
    survivor as subject or object, and their slots follow."""
    if not mapping:
        return
    for old, new in mapping.items():
        row = rows.entities.pop(old, None)
        if row is None:
            continue
        target = rows.entities.setdefault(new, {"id": new, "name": row["name"], "norm": row["norm"], "qid": None,
                                                "aliases": []})
        # the survivor exists (its row only adds aliases; ingest/merge_entities skips its own name)
        for alias in [row["name"], *row["aliases"]]:
            if alias and alias not in target["aliases"]:
                target["aliases"].append(alias)
    for fact in rows.facts.values():
        fact["head_id"] = mapping.get(fact["head_id"], fact["head_id"])
        fact["tail_id"] = mapping.get(fact["tail_id"], fact["tail_id"])
    slots = set()
    for edit in rows.edits:
        props = edit["props"]
        old_subject = props.get("subject_id")
        if old_subject in mapping:
            props["subject_id"] = mapping[old_subject]
            if props.get("slot", "").startswith(old_subject + "\x1f"):
                props["slot"] = mapping[old_subject] + props["slot"][len(old_subject):]
        if props.get("object_id") in mapping:
            props["object_id"] = mapping[props["object_id"]]
        if props.get("slot"):
            slots.add(props["slot"])
    if rows.edits:
        rows.slots = slots | {s for s in rows.slots if s.split("\x1f", 1)[0] not in mapping}


SHOWN = 10  # merges an ingest's summary names one by one


def resolve_after(db: Database, choice: str | None, entity_ids: Iterable[str], **settings) -> dict:
    """Resolve what an ingest wrote against the store; returns `summarize` of the pass."""
    choice = choice or "none"
    if choice == "none":
        return {"resolver": "none", "merges": 0, "source_conflicts": 0}
    settings.setdefault("pass_id", store.new_pass_id("ingest"))
    return summarize(store.resolve(db, choice, focus=set(entity_ids), **settings))


def summarize(report) -> dict:
    """What an ingest's summary says of its resolution pass: the pass id, how many merges, the first
    SHOWN as "survivor <- absorbed (evidence)", how many suggestions and settled facts."""
    return {"resolver": report.resolver, "pass_id": report.pass_id, "merges": len(report.merges),
            "merged": [merge_line(m) for m in report.merges[:SHOWN]], "suggestions": len(report.suggestions),
            "source_conflicts": len(report.source_conflicts)}


def merge_line(merge: dict) -> str:
    return f"{merge['survivor']} <- {merge['absorbed']} ({short_reason(merge['reason'])})"
