"""Delete a knowledge source with what only it contributed, following provenance.

A deletion names edits (by id or batch), documents (by id) or source files (every
edit, document and stated fact that came from the file). In ONE transaction it:

1. removes the edits, the documents with their passages (and the edits' description
   passages), and the Source nodes;
2. removes every fact that was touched and has no support left (no edit asserts or
   supersedes it, no file states it, no live passage supports it); a fact a stored run
   used is kept for that run with status 'retracted', and so is a passage;
3. gives surviving facts back their remaining source's origin and sentence (a base fact
   an edit had re-asserted becomes base again);
4. re-applies the conflict policies of the touched slots (an edit overridden only by a
   deleted one is in force again) and recomputes fact status, so a fact a deleted edit
   had superseded is active again;
5. removes entities and relations nothing uses any more, and the records of entity merges
   (kgtool.resolve) nothing is left of.

With dry_run the same statements run and the transaction is rolled back, so the
report is exactly what the deletion would do. Entities keep aliases a deleted source
added (they do not change counts).
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from kgtool.errors import InputError
from kgtool.graph.db import Database
from kgtool.ingest import load

_SOURCES_QUERY = "cypher/analyst/sources.cypher"


@dataclass
class DeleteReport:
    """What a deletion removed or changed (or would, with dry_run)."""

    selection: dict
    dry_run: bool
    edits: list[dict] = field(default_factory=list)
    documents: list[dict] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    passages_deleted: int = 0
    passages_retracted: int = 0
    facts_deleted: list[dict] = field(default_factory=list)
    facts_retracted: list[dict] = field(default_factory=list)
    facts_reverted: list[dict] = field(default_factory=list)  # source / sentence taken back from a remaining source
    status_changes: list[dict] = field(default_factory=list)  # fact_id, before, after
    edit_changes: list[dict] = field(default_factory=list)  # edit_id, before, after, superseded_by
    entities_deleted: list[str] = field(default_factory=list)
    relations_deleted: list[str] = field(default_factory=list)
    merges_dropped: list[str] = field(default_factory=list)  # entity merges nothing was left of

    @property
    def facts_restored(self) -> list[dict]:
        """Facts in force again (a deleted edit had superseded them)."""
        return [c for c in self.status_changes if c["after"] == "active"]

    def as_dict(self) -> dict:
        return {
            "selection": self.selection, "dry_run": self.dry_run, "edits": self.edits,
            "documents": self.documents, "sources": self.sources, "passages_deleted": self.passages_deleted,
            "passages_retracted": self.passages_retracted, "facts_deleted": self.facts_deleted,
            "facts_retracted": self.facts_retracted, "facts_reverted": self.facts_reverted,
            "facts_restored": self.facts_restored, "status_changes": self.status_changes,
            "edit_changes": self.edit_changes, "entities_deleted": self.entities_deleted,
            "relations_deleted": self.relations_deleted, "merges_dropped": self.merges_dropped,
        }


def _names(values: str | Iterable[str] | None, what: str) -> list[str]:
    if values is None:
        return []
    items = [values] if isinstance(values, (str, Path)) else list(values)
    out = []
    for item in items:
        if not isinstance(item, (str, Path)) or not str(item).strip():
            raise InputError(f"{what} must be a non-empty string, got {item!r}")
        out.append(str(item).strip())
    return out


def delete(db: Database, *, edit=None, batch=None, document=None, source=None, dry_run: bool = False) -> DeleteReport:
    """Delete edits, batches, documents or source files (each a name or a list); see the module docstring."""
    edit_ids, batches = _names(edit, "an edit id"), _names(batch, "a batch name")
    document_ids = _names(document, "a document id")
    source_ids = [load.source_id(s) for s in _names(source, "a source file")]
    if not (edit_ids or batches or document_ids or source_ids):
        raise InputError("say what to delete: an edit id, a batch, a document id or a source file "
                         "(--edit, --batch, --document, --source)")
    selection = {"edits": edit_ids, "batches": batches, "documents": document_ids, "sources": source_ids}
    report = DeleteReport(selection, dry_run)
    reason = "; ".join(f"{k[:-1] if k != 'batches' else 'batch'} {v}" for k, vs in selection.items() for v in vs)

    with db.session() as session:
        tx = session.begin_transaction()
        try:
            _run(tx, report, edit_ids, batches, document_ids, source_ids, reason)
        except BaseException:
            tx.rollback()
            raise
        if dry_run:
            tx.rollback()
        else:
            tx.commit()
    return report


def _run(tx, report: DeleteReport, edit_ids, batches, document_ids, source_ids, reason: str) -> None:
    run = Database.run_in
    found = run(tx, "delete/select", edit_ids=edit_ids, batches=batches, source_ids=source_ids,
                document_ids=document_ids, edit_passage_prefix=load.EDIT_PASSAGE_PREFIX)[0]
    _check_found(found, edit_ids, batches, document_ids, source_ids)
    report.edits, report.documents, report.sources = found["edits"], found["documents"], found["sources"]

    passages = run(tx, "delete/passages", passage_ids=found["passage_ids"], reason=reason)
    report.passages_deleted = sum(1 for p in passages if p["action"] == "deleted")
    report.passages_retracted = sum(1 for p in passages if p["action"] == "retracted")
    run(tx, "delete/edits", edit_ids=[e["id"] for e in found["edits"]])
    run(tx, "delete/documents", document_ids=[d["id"] for d in found["documents"]])
    run(tx, "delete/sources", source_ids=found["sources"])
    run(tx, "delete/ingest_markers", source_ids=source_ids)

    gone = run(tx, "delete/facts", fact_ids=found["fact_ids"], reason=reason)
    report.facts_deleted = [f for f in gone if f["action"] == "deleted"]
    report.facts_retracted = [f for f in gone if f["action"] == "retracted"]
    removed = {f["fact_id"] for f in gone}
    survivors = [fid for fid in found["fact_ids"] if fid not in removed]
    report.facts_reverted = run(tx, "delete/restore_facts", fact_ids=survivors)
    # the conflict verdicts first: an edit no longer overridden asserts its facts again
    report.edit_changes = run(tx, "ingest/resolve_conflicts", slots=found["slots"])
    report.status_changes = run(tx, "ingest/update_fact_status", fact_ids=survivors, slots=found["slots"])
    report.entities_deleted = [r["entity_id"] for r in run(tx, "delete/orphan_entities",
                                                           entity_ids=found["entity_ids"])]
    report.relations_deleted = [r["relation_key"] for r in run(tx, "delete/orphan_relations",
                                                               relation_keys=found["relation_keys"])]
    report.merges_dropped = [r["merge_id"] for r in run(tx, "delete/orphan_merges")]


def _check_found(found: dict, edit_ids, batches, document_ids, source_ids) -> None:
    """Refuse (and write nothing) when a named edit, batch, document or file is not in the graph."""
    edits = {e["id"] for e in found["edits"]}
    edit_batches = {e["batch"] for e in found["edits"]}
    edit_files = {e["file"] for e in found["edits"]}
    docs = {d["id"] for d in found["documents"]}
    doc_files = {d["source"] for d in found["documents"]}
    problems = [f"no edit with id {x!r}" for x in edit_ids if x not in edits]
    problems += [f"no edit in batch {x!r}" for x in batches if x not in edit_batches]
    problems += [f"no document with id {x!r}" for x in document_ids if x not in docs]
    problems += [f"nothing in the graph came from {x}" for x in source_ids
                 if x not in found["sources"] and x not in edit_files and x not in doc_files]
    if problems:
        raise InputError("; ".join(problems) + f"; nothing was deleted. The stored sources, batches and documents "
                                               f"are listed by `kgtool cypher -f {_SOURCES_QUERY}`")
