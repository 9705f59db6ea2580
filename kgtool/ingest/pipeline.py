"""Ingestion: read -> extract -> EATR -> load, in batches, with a summary.

Default mode skips bad records (each reported with file:line and reason) and
loads the good ones; strict mode validates the whole file first and writes
nothing if any record is bad. Each batch is one transaction.
"""
from __future__ import annotations

import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from kgtool.errors import InputError
from kgtool.graph.db import Database
from kgtool.ingest import load
from kgtool.ingest.eatr import Eatr
from kgtool.ingest.extract import get_extractor
from kgtool.ingest.linking import Gazetteer
from kgtool.ingest.readers import read_edits
from kgtool.ingest.records import BadRecord


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
    skipped: list[BadRecord] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.skipped

    def as_dict(self) -> dict:
        return {
            "path": self.path, "batch": self.batch, "records_read": self.records_read,
            "edits_loaded": self.edits_loaded, "base_facts": self.base_facts, "candidates": self.candidates,
            "kept": self.kept, "rejected": dict(self.rejected), "facts": self.facts, "conflicts": self.conflicts,
            "skipped": [str(b) for b in self.skipped], "seconds": round(self.seconds, 3),
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
) -> IngestSummary:
    """Load an edit corpus into the graph; see the module docstring for the modes."""
    t0 = time.perf_counter()
    path = Path(path)
    result = read_edits(path, format)
    summary = IngestSummary(str(path), batch or path.stem)
    summary.records_read = len(result.edits) + len(result.bad)
    summary.skipped = list(result.bad)
    if strict and result.bad:
        shown = "\n".join(f"  {b}" for b in result.bad[:50])
        more = f"\n  ... and {len(result.bad) - 50} more" if len(result.bad) > 50 else ""
        raise InputError(f"{len(result.bad)} bad record(s); nothing was written (--strict):\n{shown}{more}")

    # a name ("anchor", "rebel", "llm", "auto", a model directory) or an Extractor object
    ext = get_extractor(extractor, settings=settings) if isinstance(extractor, str) else extractor
    # the gazetteer is built only if some candidate names an entity other than its edit's own
    refiner = Eatr(embedder, lambda: Gazetteer.from_records(result.edits, result.base_facts),
                   delta_rel=delta_rel, enabled=eatr,
                   embedder_spec=getattr(settings, "embedder", "auto"))

    # world knowledge first, in its own transaction, so edits can supersede it
    if result.base_facts:
        rows = load.GraphRows()
        load.rows_for_base_facts(rows, result.base_facts)
        load.write_rows(db, rows)
        summary.base_facts = len(result.base_facts)
        summary.facts += len(rows.facts)

    total = len(result.edits)

    def prepare(start: int):
        chunk = result.edits[start:start + batch_size]
        decisions = refiner.refine_batch(chunk, ext.extract_batch(chunk))
        rows = load.GraphRows()
        load.rows_for_edits(rows, chunk, decisions, summary.batch)
        return start, chunk, decisions, rows

    def account(prepared, counts: load.WriteCounts) -> None:
        start, chunk, decisions, rows = prepared
        summary.edits_loaded += len(chunk)
        summary.conflicts += counts.conflicts
        summary.facts += sum(1 for f in rows.facts.values() if f["source"] == "edit")
        for per_edit in decisions:
            summary.candidates += len(per_edit)
            for d in per_edit:
                if d.kept:
                    summary.kept += 1
                else:
                    summary.rejected[d.reason] += 1
        if progress:
            progress(min(start + batch_size, total), total)

    # Extraction and EATR of the next batch (client CPU) overlap the write of
    # this one (server work); writes stay one at a time and in file order, and
    # a failed write stops the run before any later batch is written.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="kgtool-ingest-write") as writer:
        pending = None  # (prepared batch, its write)
        for start in range(0, total, batch_size):
            prepared = prepare(start)
            if pending is not None:
                account(pending[0], pending[1].result())
            pending = (prepared, writer.submit(load.write_rows, db, prepared[3]))
        if pending is not None:
            account(pending[0], pending[1].result())
    if embedder is not None:
        summary.relations_embedded = load.write_relation_embeddings(db, embedder)
    db.run_autocommit("admin/await_fulltext")  # passage retrieval sees what was just written
    summary.seconds = time.perf_counter() - t0
    return summary
