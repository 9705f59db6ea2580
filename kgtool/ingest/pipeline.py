"""Ingestion: read -> extract -> EATR -> load, in batches, with a summary.

Default mode skips bad records (each reported with file:line and reason) and
loads the good ones; strict mode validates the whole file first and writes
nothing if any record is bad. Each batch is one transaction. A JSONL file is
read as the batches need it (the first batches are written while the rest is
read); MQuAKE files, --strict and the `fail` policy read the whole file first.

Conflicting edits of one slot follow the `conflicts` policy (load.CONFLICT_POLICIES):
latest (default) lets the later edit win, keep-all keeps both in force, fail
refuses the file before anything is written.
"""
from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from kgtool.errors import IngestInterrupted, InputError, describe
from kgtool.graph.db import Database
from kgtool.ingest import load
from kgtool.ingest.eatr import Eatr
from kgtool.ingest.extract import get_extractor
from kgtool.ingest.linking import Gazetteer
from kgtool.ingest.readers import JsonlEdits, read_edits, stream_edits
from kgtool.ingest.records import BadRecord
from kgtool.ingest.write_behind import write_behind


@dataclass
class IngestSummary:
    path: str
    batch: str
    records_read: int = 0
    edits_loaded: int = 0
    base_facts: int = 0
    candidates: int = 0
    kept: int = 0
    rejected: Counter = field(default_factory=Counter)
    facts: int = 0
    conflicts: int = 0
    relations_embedded: int = 0
    facts_embedded: int = 0  # in a document store, for the graph walk (kgtool.retrieve.fact_seeds)
    skipped: list[BadRecord] = field(default_factory=list)
    seconds: float = 0.0
    conflict_policy: str = "latest"
    superseded_by_conflict: int = 0
    resolve: dict = field(default_factory=dict)  # entity resolution after the load (kgtool.resolve)

    @property
    def ok(self) -> bool:
        return not self.skipped

    def as_dict(self) -> dict:
        return {
            "path": self.path, "batch": self.batch, "records_read": self.records_read,
            "edits_loaded": self.edits_loaded, "base_facts": self.base_facts, "candidates": self.candidates,
            "kept": self.kept, "rejected": dict(self.rejected), "facts": self.facts, "conflicts": self.conflicts,
            "conflict_policy": self.conflict_policy, "superseded_by_conflict": self.superseded_by_conflict,
            "facts_embedded": self.facts_embedded, "skipped": [str(b) for b in self.skipped], "seconds": round(self.seconds, 3), "resolve": self.resolve,
        }


def ingest_edits(
    db: Database,
    path: str | Path,
    *,
    format: str | None = None,
    extractor="anchor",
    eatr: bool = True,
    strict: bool = False,
    batch: str | None = None,
    batch_size: int = 2000,
    delta_rel: float = 0.80,
    embedder=None,
    settings=None,
    progress: Callable[[int, int], None] | None = None,
    conflicts: str = "latest",
    resolve: str | None = None,
    marker=None,
) -> IngestSummary:
    """Load an edit corpus into the graph; see the module docstring for the modes.

    resolve: an entity resolver (kgtool.resolve: exact, fuzzy, embedding, id) run on the
    entities the file wrote once it is in, or None / "none"; ids that earlier merges
    absorbed are written to their survivors either way.
    marker: the run's IngestMarker (kgtool.ingest.marker) when the caller writes more afterwards
    and finishes it itself; without one the ingest starts and finishes its own."""
    from kgtool.ingest.marker import IngestMarker

    t0 = time.perf_counter()
    load.check_conflict_policy(conflicts)
    path = Path(path)
    # a JSONL file is read as the batches need it, so the first batches are written while
    # the rest is read; --strict and `fail` judge the whole file before any write, and a
    # MQuAKE file is one JSON list: those are read whole first
    stream = None if strict or conflicts == "fail" else stream_edits(path, format)
    own_marker = marker is None
    marker = IngestMarker(db, "edits", path) if own_marker else marker
    try:
        summary = _ingest(db, path, stream, format=format, extractor=extractor, eatr=eatr, strict=strict,
                          batch=batch, batch_size=batch_size, delta_rel=delta_rel, embedder=embedder,
                          settings=settings, progress=progress, conflicts=conflicts, resolve=resolve, t0=t0,
                          marker=marker)
        if own_marker:
            marker.finish()
        return summary
    finally:
        if stream is not None:
            stream.close()


def _ingest(db: Database, path: Path, stream: JsonlEdits | None, *, format, extractor, eatr, strict, batch,
            batch_size, delta_rel, embedder, settings, progress, conflicts, resolve, t0, marker) -> IngestSummary:
    from kgtool.resolve.ingest import Redirector, resolve_after

    result = read_edits(path, format) if stream is None else stream
    summary = IngestSummary(str(path), batch or path.stem, conflict_policy=conflicts)
    if strict and result.bad:
        raise strict_error(result.bad)
    if conflicts == "fail":
        check_no_conflicts(db, result.edits)
    front = EditRows(result, path, summary, extractor=extractor, eatr=eatr, delta_rel=delta_rel,
                     embedder=embedder, settings=settings, conflicts=conflicts, redirect=Redirector(db))

    # world knowledge first, in its own transaction, so edits can supersede it
    base = front.base_fact_rows()
    marker.start()  # before the first write; a file refused above wrote nothing
    if base is not None:
        load.write_rows(db, base)

    def total() -> int:  # exact once the file is read; until then the lines left count as edits
        return len(result.edits) + (stream.lines_left() if stream is not None else 0)

    committed = 0  # edits of the batches written so far (the next batch is prepared before that)

    def prepared_batches():
        """(first edit's index, rows, merge statements) per batch; the statements are built
        here, in the preparing thread, so the writer thread only sends them."""
        start = 0
        while True:
            if stream is not None:
                stream.read_until(start + batch_size)
            if start >= len(result.edits):
                return
            rows = front.batch(start, batch_size)
            yield start, rows, load.merge_steps(rows)
            start += batch_size

    def account(prepared, counts: load.WriteCounts) -> None:
        nonlocal committed
        committed = min(prepared[0] + batch_size, len(result.edits))
        summary.conflicts += counts.conflicts
        summary.superseded_by_conflict += len(counts.overridden)
        if progress:
            progress(committed, total())

    try:
        write_behind(prepared_batches(), lambda prepared: load.write_rows(db, prepared[1], prepared[2]), account,
                     thread_name="kgtool-ingest-write")
    except DRIVER_FAILURES as exc:
        if stream is not None:
            stream.read_all()  # to say how many edits the file holds
        raise interrupted(exc, path, committed=committed, total=len(result.edits), batch_size=batch_size,
                          unit="edits") from exc
    summary.records_read = len(result.edits) + len(result.bad)
    summary.skipped = list(result.bad)
    if embedder is not None:
        summary.relations_embedded = load.write_relation_embeddings(db, embedder)
    summary.resolve = resolve_after(db, resolve, front.entity_ids)
    db.run_autocommit("admin/await_fulltext")  # passage retrieval sees what was just written
    summary.seconds = time.perf_counter() - t0
    return summary


class EditRows:
    """The rows an edit file becomes, batch by batch: the front half that streaming and bulk ingest share.

    Reading is done by the caller; this extracts, refines (EATR) and builds the
    GraphRows the loader writes, and counts what it built into `summary`.
    """

    def __init__(self, result, path: Path, summary: IngestSummary, *, extractor, eatr: bool, delta_rel: float,
                 embedder, settings, conflicts: str, redirect=None):
        self.result, self.summary, self.conflicts = result, summary, conflicts
        # rows go to the survivors of stored entity merges (kgtool.resolve.ingest.Redirector)
        self.redirect = redirect or (lambda rows: rows)
        self.entity_ids: set[str] = set()  # what the rows wrote: ingest resolves these afterwards
        self.source = load.source_id(path)
        self.source_props = {"path": str(path), "name": path.name, "kind": "edits"}
        self.ingested_at = time.time_ns() // 1000  # one stamp per run: later runs win under `latest`
        # a name ("anchor", "rebel", "llm", "auto", a model directory) or an Extractor object
        self.extractor = get_extractor(extractor, settings=settings) if isinstance(extractor, str) else extractor
        # the gazetteer is built only if some candidate names an entity other than its edit's own
        self.refiner = Eatr(embedder, lambda: Gazetteer.from_records(*self._everything()),
                            delta_rel=delta_rel, enabled=eatr, embedder_spec=getattr(settings, "embedder", "auto"))

    def _everything(self):
        """All edits and base facts of the file, for the gazetteer: a file that is being
        streamed (readers.JsonlEdits) is read to its end first."""
        read_all = getattr(self.result, "read_all", None)
        if read_all is not None:
            read_all()
        return self.result.edits, self.result.base_facts

    def _rows(self) -> load.GraphRows:
        rows = load.GraphRows()
        rows.source(self.source, self.source_props)
        return rows

    def base_fact_rows(self) -> load.GraphRows | None:
        """The file's world knowledge (facts before any edit), or None when it states none."""
        if not self.result.base_facts:
            return None
        rows = self._rows()
        load.rows_for_base_facts(rows, self.result.base_facts, self.source)
        self.redirect(rows)
        self.entity_ids.update(rows.entities)
        self.summary.base_facts = len(self.result.base_facts)
        self.summary.facts += len(rows.facts)
        return rows

    def batch(self, start: int, size: int) -> load.GraphRows:
        """The rows of edits [start, start + size)."""
        chunk = self.result.edits[start:start + size]
        decisions = self.refiner.refine_batch(chunk, self.extractor.extract_batch(chunk))
        rows = self._rows()
        load.rows_for_edits(rows, chunk, decisions, self.summary.batch, source=self.source,
                            conflicts=self.conflicts, first_position=start, ingested_at=self.ingested_at)
        self.redirect(rows)
        self.entity_ids.update(rows.entities)
        summary = self.summary
        summary.edits_loaded += len(chunk)
        summary.facts += sum(1 for f in rows.facts.values() if f["source"] == "edit")
        for per_edit in decisions:
            summary.candidates += len(per_edit)
            for d in per_edit:
                if d.kept:
                    summary.kept += 1
                else:
                    summary.rejected[d.reason] += 1
        return rows


def _driver_failures() -> tuple[type[BaseException], ...]:
    from neo4j.exceptions import DriverError, Neo4jError

    return (DriverError, Neo4jError, ConnectionError)


DRIVER_FAILURES = _driver_failures()


def interrupted(exc: BaseException, path, *, committed: int, total: int, batch_size: int,
                unit: str) -> IngestInterrupted:
    """What a failed batch write means for the person who ran the ingest: what is in, and how to go on.

    `committed` counts the records (edits, facts, passages: `unit`) of the batches that were written."""
    batches = -(-total // batch_size) if total else 0
    done = -(-committed // batch_size) if committed else 0
    from kgtool.errors import resume_advice

    mapped = describe(exc)
    return IngestInterrupted(
        f"ingesting {path} stopped: {str(mapped).rstrip('.')}. {done} of {batches} batch(es) ({committed} of {total} "
        f"{unit}) were committed before the failure. {resume_advice(mapped)}",
        batches_committed=done, batches=batches, records_committed=committed)


def strict_error(bad: list[BadRecord], limit: int = 50) -> InputError:
    """The --strict refusal: every bad record (up to `limit`) as file:line: reason."""
    shown = "\n".join(f"  {b}" for b in bad[:limit])
    more = f"\n  ... and {len(bad) - limit} more" if len(bad) > limit else ""
    return InputError(f"{len(bad)} bad record(s); nothing was written (--strict):\n{shown}{more}")


def check_no_conflicts(db: Database, edits, limit: int = 50) -> None:
    """The `fail` policy: refuse edits that set a slot to another object than an edit of
    the same file or of the graph does (re-ingesting the same edit id is no conflict)."""
    first: dict[str, tuple[str, object]] = {}  # slot -> (object id, the edit that set it)
    problems: list[str] = []
    for edit in edits:
        slot, object_id = load.edit_slot(edit)
        seen = first.setdefault(slot, (object_id, edit))
        if seen[0] != object_id:
            problems.append(f"{edit.source}: edit {edit.id!r} sets {edit.subject!r} {edit.relation!r} to "
                            f"{edit.object!r}, but edit {seen[1].id!r} ({seen[1].source}) sets it to {seen[1].object!r}")
    ids = {edit.id for edit in edits}
    for row in db.read("ingest/slot_edits", slots=sorted(first)):
        object_id, edit = first[row["slot"]]
        if row["id"] not in ids and row["object_id"] != object_id:
            problems.append(f"{edit.source}: edit {edit.id!r} sets {edit.subject!r} {edit.relation!r} to "
                            f"{edit.object!r}, but edit {row['id']!r} in the graph (batch {row['batch']}) sets it "
                            f"to {row['object']!r}")
    if problems:
        shown = "\n".join(f"  {p}" for p in problems[:limit])
        more = f"\n  ... and {len(problems) - limit} more" if len(problems) > limit else ""
        raise InputError(f"{len(problems)} conflicting edit(s); nothing was written (--conflicts fail; use "
                         f"--conflicts latest to let the later edit win, or keep-all):\n{shown}{more}")
