"""Bulk load into an empty local store: streaming's front half, Neo4j's offline importer for the writes.

`ingest_edits_bulk` / `ingest_facts_bulk` read, extract and refine exactly as
streaming ingest does (kgtool/ingest/pipeline.py EditRows, facts.py) and get
the same per-batch `GraphRows`. Instead of sending each batch through the
MERGE statements of cypher/ingest/, `StreamFold` applies the semantics of
those statements (first write creates, aliases and phrasings accumulate, an
edit fact stays an edit fact, the first ingestion stamp stays) and writes the
import files batch by batch as it goes (kgtool/graph/bulk_import.py
CsvTable), so the folded graph is the one streaming leaves behind and memory
does not grow with the file:

- edits, passages and every relationship of a batch are written at once (an
  edit id occurs once in a file: the readers refuse a second one);
- a fact's or an entity's first row goes to a spill file, because a later
  batch can still turn the fact into an edit fact, change its status or add
  aliases to the entity; what stays in memory is the id with a few flag bits
  (facts) or the aliases stated after the first row (entities), the
  relations, a slot's hash with the object its first edit sets (to find the
  slots set to two or more objects) and, for JSONL, the edit ids (the
  reader's duplicate check). The
  spill files become the Fact and Entity files, with the linking keys, at
  the end, while the server stops.

A JSONL file is read line by line; a MQuAKE file is one JSON document and is
read whole. Then the local server is stopped, `neo4j-admin database import
full` replaces the empty `neo4j` database, the server is started again
(kgtool/graph/bulk_import.py), and then:

- the schema (cypher/schema.cypher) is applied and its indexes awaited
  (Community's importer cannot build indexes itself: its --schema option
  needs the block format of Enterprise Edition);
- the empty lists the importer cannot write are set (cypher/bulk/);
- conflict flags and verdicts and the fact statuses they change are computed
  by streaming's own statements (ingest/flag_conflicts, resolve_conflicts,
  update_fact_status) for the slots whose edits set more than one object;
  every other edit is 'active' and every other fact's status follows from what asserts
  or supersedes it, which the files already carry;
- the entity-linking keys (NameKey, NAMES, LinkIndex) that GraphLinker.sync
  would write on the first answer are in the files already;
- relation embeddings when an embedder is given, and the full-text refresh.

A store that holds any node is refused, and so is a file with bad lines (all
of them listed, as streaming's --strict does) or, under --conflicts fail,
with conflicting edits, before the server is stopped.
"""
from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from kgtool.config import Settings
from kgtool.errors import InputError
from kgtool.graph.bulk_import import BackgroundStop, CsvTable, import_full, local_server
from kgtool.graph.db import Database
from kgtool.ingest import load
from kgtool.ingest.facts import FactsIngestSummary, fact_batches, read_facts
from kgtool.ingest.pipeline import EditRows, IngestSummary
from kgtool.ingest.readers import count_lines, edit_format, iter_jsonl
from kgtool.ingest.records import BadRecord, EditRecord, ReadResult
from kgtool.ingest.write_behind import fewer_collections
from kgtool.ingest.bulk_fold import StreamFold  # noqa: F401  (tests and callers import it from here)

Progress = Callable[[int, int], None]
Phase = Callable[[str], None]

# slots per transaction when the conflict statements run after the import
_CONFLICT_BATCH = 1000
_INDEX_WAIT_SECONDS = 3600

# --------------------------------------------------------------------------- reading edits as a stream


class _Window:
    """The edits EditRows sees: the batch being read, at its place in the file.

    EditRows asks for `edits[start:start + size]`, which is the batch now held; a whole
    pass (the gazetteer EATR builds when a candidate names another edit's entity)
    reads the file again rather than keeping every edit.
    """

    def __init__(self, again: Callable[[], Iterator[EditRecord]]):
        self.offset = 0
        self.edits: list[EditRecord] = []
        self._again = again

    def hold(self, offset: int, edits: list[EditRecord]) -> None:
        self.offset, self.edits = offset, edits

    def __getitem__(self, index: slice) -> list[EditRecord]:
        if not isinstance(index, slice) or index.start != self.offset:
            raise IndexError(f"a file read as a stream holds only the edits from {self.offset} on, not {index}")
        return self.edits[:index.stop - index.start]

    def __iter__(self) -> Iterator[EditRecord]:
        return self._again()


class _FailCheck:
    """The `fail` conflict policy over a stream: pipeline.check_no_conflicts, one batch at a time
    (the store is empty, so only edits of the file can conflict)."""

    def __init__(self):
        self.first: dict[str, tuple] = {}  # slot -> (object id, edit id, where, object)
        self.problems: list[str] = []

    def add(self, edits: list[EditRecord]) -> None:
        for edit in edits:
            slot, object_id = load.edit_slot(edit)
            seen = self.first.setdefault(slot, (object_id, edit.id, edit.source, edit.object))
            if seen[0] != object_id:
                self.problems.append(
                    f"{edit.source}: edit {edit.id!r} sets {edit.subject!r} {edit.relation!r} to {edit.object!r}, "
                    f"but edit {seen[1]!r} ({seen[2]}) sets it to {seen[3]!r}")

    def refuse(self, limit: int = 50) -> None:
        if self.problems:
            shown = "\n".join(f"  {p}" for p in self.problems[:limit])
            more = f"\n  ... and {len(self.problems) - limit} more" if len(self.problems) > limit else ""
            raise InputError(f"{len(self.problems)} conflicting edit(s); nothing was imported and the store is "
                             "unchanged (--conflicts fail; use --conflicts latest to let the later edit win, or "
                             f"keep-all):\n{shown}{more}")


# --------------------------------------------------------------------------- the load


@dataclass
class BulkPhases:
    """Seconds per phase of a bulk load, in the order they ran."""

    seconds: dict[str, float] = field(default_factory=dict)
    import_report: str = ""
    import_log: str = ""

    def timed(self, name: str, since: float) -> float:
        now = time.perf_counter()
        self.seconds[name] = round(now - since, 3)
        return now


@dataclass
class BulkIngestSummary(IngestSummary):
    phases: BulkPhases = field(default_factory=BulkPhases)

    def as_dict(self) -> dict:
        return {**super().as_dict(), "bulk": True, "phases": dict(self.phases.seconds),
                "import_report": self.phases.import_report}


def _refuse_bad(bad: list[BadRecord], limit: int = 50) -> None:
    if not bad:
        return
    shown = "\n".join(f"  {b}" for b in bad[:limit])
    more = f"\n  ... and {len(bad) - limit} more" if len(bad) > limit else ""
    raise InputError(f"{len(bad)} bad record(s); nothing was imported and the store is unchanged (--bulk loads a "
                     f"file whole: fix these lines, or load without --bulk to skip them):\n{shown}{more}")


def check_empty(db: Database, settings: Settings) -> None:
    """Refuse a store that holds anything: the import replaces the whole database."""
    nodes = db.read("bulk/store_nodes")[0]["nodes"]
    if nodes:
        server = local_server(settings)
        raise InputError(
            f"the store at {server.home} ({server.uri}) holds {nodes:,} node(s); --bulk only loads into an empty "
            "store because the import replaces the whole database. Load into a fresh home (set KGTOOL_HOME to a "
            "new directory), or ingest this file without --bulk to add it to this store"
        )


def _check_local_and_empty(settings: Settings) -> None:
    local_server(settings)  # refuses NEO4J_URI before anything starts
    with Database.connect(settings) as db:
        check_empty(db, settings)


def _import_and_finish(settings: Settings, fold: StreamFold, work: Path, phases: BulkPhases, *, embedder,
                       phase: Phase | None) -> tuple[int, int, int]:
    """Last files, import, schema, post-processing; returns (conflict pairs, overridden edits, relations embedded)."""
    say = phase or (lambda _name: None)
    t = time.perf_counter()
    say("writing the last import files while Neo4j stops")
    stopping = BackgroundStop(settings)
    try:
        files = fold.finish()
    except BaseException:
        stopping.undo()  # nothing was imported: the store is as it was
        raise
    t = phases.timed("import files (last)", t)
    stopped_in = stopping.wait()
    # the part of the stop the last files did not cover
    t = phases.timed("server stop", t)
    say("running neo4j-admin database import full")
    outcome = import_full(settings, files, work_dir=work, stopped_in=stopped_in)
    phases.seconds["import"] = round(outcome.seconds_import, 3)
    phases.seconds["server start"] = round(outcome.seconds_start, 3)
    phases.import_report, phases.import_log = str(outcome.report_file), str(outcome.log_file)
    t = time.perf_counter()
    with Database.connect(settings) as db:
        say("applying the schema")
        db.apply_schema()
        db.read("bulk/await_indexes", seconds=_INDEX_WAIT_SECONDS)
        t = phases.timed("schema", t)
        say("conflicts, empty lists, embeddings")
        db.run_autocommit("bulk/empty_entity_aliases")
        db.run_autocommit("bulk/empty_relation_phrases")
        pairs, overridden = 0, 0
        slots = fold.conflicted_slots()
        for start in range(0, len(slots), _CONFLICT_BATCH):
            chunk = slots[start:start + _CONFLICT_BATCH]
            flagged, resolved, _ = db.write_many([
                ("ingest/flag_conflicts", {"slots": chunk}),
                ("ingest/resolve_conflicts", {"slots": chunk}),
                ("ingest/update_fact_status", {"fact_ids": [], "slots": chunk}),
            ])
            pairs += flagged[0]["conflicts"] if flagged else 0
            overridden += sum(1 for r in resolved if r["after"] == "superseded-by-conflict")
        for start in range(0, len(fold.literals), _CONFLICT_BATCH):
            db.write("ingest/merge_literals", rows=fold.literals[start:start + _CONFLICT_BATCH])
        embedded = load.write_relation_embeddings(db, embedder) if embedder is not None else 0
        db.run_autocommit("admin/await_fulltext")
        if fold.marker is not None:  # the import wrote it as started
            db.write("ingest/finish_ingest", id=fold.marker["id"])
        phases.timed("post-processing", t)
    return pairs, overridden, embedded


def _marker(kind: str, path: Path) -> dict:
    """The (:Ingest) marker a bulk load imports: the same id a streaming ingest of the file uses, so
    re-running it without --bulk (the store is no longer empty) finishes it."""
    from kgtool.ingest.marker import ingest_id

    source = load.source_id(path)
    return {"id": ingest_id(kind, source), "kind": kind, "source": source}


def _private_import_dir(settings: Settings) -> Path:
    # next to the store (same disk), readable by the owner only, like the store itself
    path = local_server(settings).home / "import"
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path


@dataclass
class _Clock:
    """Seconds spent per part of the streamed front half, summed over the batches."""

    read: float = 0.0
    rows: float = 0.0
    files: float = 0.0

    def record(self, phases: BulkPhases) -> None:
        phases.seconds["read"] = round(self.read, 3)
        phases.seconds["extract + EATR + rows"] = round(self.rows, 3)
        phases.seconds["import files (streamed)"] = round(self.files, 3)


def _fold_batch(front: EditRows, fold: StreamFold, start: int, size: int, clock: _Clock) -> None:
    t = time.perf_counter()
    rows = front.batch(start, size)
    t1 = time.perf_counter()
    fold.add(rows)
    clock.rows += t1 - t
    clock.files += time.perf_counter() - t1


def _fold_jsonl(path: Path, front_of: Callable[[ReadResult], EditRows], fold: StreamFold, summary: IngestSummary,
                *, batch_size: int, fail: _FailCheck | None, progress: Progress | None) -> _Clock:
    """Read, extract, refine and write a JSONL file batch by batch; every bad line is listed first."""
    clock = _Clock()
    window = _Window(lambda: (edit for _, edit in iter_jsonl(path)))
    front = front_of(ReadResult(edits=window))  # type: ignore[arg-type]  # a stream, sliced batch by batch
    bad: list[BadRecord] = []
    batch: list[EditRecord] = []
    offset, lineno = 0, 0

    def flush() -> None:
        nonlocal offset, batch
        if fail is not None:
            fail.add(batch)
        # after a bad line or a conflict nothing is imported: the rest is only read, to list them all
        if not bad and not (fail is not None and fail.problems):
            window.hold(offset, batch)
            _fold_batch(front, fold, offset, len(batch), clock)
        offset += len(batch)
        batch = []
        if progress:
            progress(lineno, total)

    t = time.perf_counter()
    total = count_lines(path)
    for lineno, edit in iter_jsonl(path, bad):
        batch.append(edit)
        if len(batch) >= batch_size:
            flush()
    if batch:
        flush()
    clock.read += time.perf_counter() - t - clock.rows - clock.files
    summary.records_read = offset
    _refuse_bad(bad)
    if fail is not None:
        fail.refuse()
    return clock


def _fold_whole(path: Path, format: str | None, front_of: Callable[[ReadResult], EditRows], fold: StreamFold,
                summary: IngestSummary, *, batch_size: int, fail: _FailCheck | None,
                progress: Progress | None) -> _Clock:
    """A file read whole (a MQuAKE JSON document), then extracted, refined and written batch by batch."""
    from kgtool.ingest.readers import read_edits

    clock = _Clock()
    t = time.perf_counter()
    result = read_edits(path, format)
    _refuse_bad(result.bad)
    if fail is not None:
        fail.add(result.edits)
        fail.refuse()
    summary.records_read = total = len(result.edits)
    clock.read = time.perf_counter() - t
    front = front_of(result)
    t = time.perf_counter()
    base = front.base_fact_rows()
    if base is not None:
        fold.add(base)
    clock.files += time.perf_counter() - t
    for start in range(0, total, batch_size):
        _fold_batch(front, fold, start, batch_size, clock)
        if progress:
            progress(min(start + batch_size, total), total)
    return clock


@fewer_collections()  # rows, import files and name keys: millions of small acyclic objects
def ingest_edits_bulk(
    settings: Settings,
    path: str | Path,
    *,
    format: str | None = None,
    extractor="anchor",
    eatr: bool = True,
    batch: str | None = None,
    batch_size: int = 2000,
    embedder=None,
    progress: Progress | None = None,
    phase: Phase | None = None,
    conflicts: str = "latest",
) -> BulkIngestSummary:
    """Bulk-load an edit corpus into the empty local store; see the module docstring."""
    t0 = time.perf_counter()
    load.check_conflict_policy(conflicts)
    path = Path(path)
    fmt = edit_format(path, format)
    _check_local_and_empty(settings)
    phases = BulkPhases()
    summary = BulkIngestSummary(str(path), batch or path.stem, conflict_policy=conflicts, phases=phases)

    def front_of(result: ReadResult) -> EditRows:  # streaming's front half, batch for batch
        return EditRows(result, path, summary, extractor=extractor, eatr=eatr, delta_rel=settings.delta_rel,
                        embedder=embedder, settings=settings, conflicts=conflicts)

    fail = _FailCheck() if conflicts == "fail" else None
    work = Path(tempfile.mkdtemp(prefix="bulk-", dir=_private_import_dir(settings)))
    try:
        fold = StreamFold(work, _marker("edits", path))
        try:
            if fmt == "jsonl":
                clock = _fold_jsonl(path, front_of, fold, summary, batch_size=batch_size, fail=fail,
                                    progress=progress)
            else:
                clock = _fold_whole(path, fmt, front_of, fold, summary, batch_size=batch_size, fail=fail,
                                    progress=progress)
        except BaseException:
            fold.discard()
            raise
        clock.record(phases)
        summary.conflicts, summary.superseded_by_conflict, summary.relations_embedded = _import_and_finish(
            settings, fold, work, phases, embedder=embedder, phase=phase)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    summary.seconds = time.perf_counter() - t0
    return summary


@dataclass
class BulkFactsSummary(FactsIngestSummary):
    """What `ingest_facts_bulk` loaded: streaming's summary plus the phases."""

    phases: BulkPhases = field(default_factory=BulkPhases)

    def as_dict(self) -> dict:
        return {**super().as_dict(), "bulk": True, "phases": dict(self.phases.seconds),
                "import_report": self.phases.import_report}


@fewer_collections()
def ingest_facts_bulk(
    settings: Settings,
    path: str | Path,
    *,
    format: str | None = None,
    batch_size: int = 5000,
    embedder=None,
    progress: Progress | None = None,
    phase: Phase | None = None,
) -> BulkFactsSummary:
    """Bulk-load a fact file (TSV, JSONL, N-Triples) into the empty local store.

    The file is read whole (facts.read_facts); its rows are folded and written batch by batch.
    """
    t0 = t = time.perf_counter()
    phases = BulkPhases()
    path = Path(path)
    _check_local_and_empty(settings)
    result = read_facts(path, format)
    _refuse_bad(result.bad)
    summary = BulkFactsSummary(str(path), result.format, load.source_id(path), records_read=result.records_read,
                               facts_read=len(result.facts), phases=phases)
    t = phases.timed("read", t)
    work = Path(tempfile.mkdtemp(prefix="bulk-", dir=_private_import_dir(settings)))
    try:
        fold = StreamFold(work, _marker("facts", path))
        try:
            total, size = len(result.facts), max(1, batch_size)
            for start, rows in fact_batches(result, path, size):  # streaming's batches
                fold.add(rows)
                if progress:
                    progress(min(start + size, total), total)
        except BaseException:
            fold.discard()
            raise
        result = None  # the facts are in the files now
        summary.facts, summary.entities, summary.relations = len(fold.facts), len(fold.entities), len(fold.relations)
        summary.values = len(fold.literals)
        summary.entities -= summary.values  # a value is no entity
        phases.timed("rows + import files (streamed)", t)
        _pairs, _overridden, summary.relations_embedded = _import_and_finish(settings, fold, work, phases,
                                                                             embedder=embedder, phase=phase)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    summary.seconds = time.perf_counter() - t0
    return summary
