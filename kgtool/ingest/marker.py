"""The (:Ingest) marker: an ingest records that it started before its first write and that it
finished after its last (embeddings and conflict verdicts included), so a store that a killed
client or server left half-written says so (kgtool.health.unfinished_ingests, `kgtool db doctor`).

One marker per (kind, source file): its id is derived from both, so re-running the same ingest
of the same file reopens and then finishes the same marker, and a finished re-run clears what a
killed run left. A refusal before the first write (a bad file, --strict) writes no marker.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

from kgtool.graph.db import Database

INGEST_KINDS = ("edits", "facts", "docs")


def ingest_id(kind: str, source: str) -> str:
    """The marker id of ingesting `source` (a resolved path) as `kind`."""
    return "ingest:" + hashlib.sha1(f"{kind}\x1f{source}".encode("utf-8")).hexdigest()[:20]


class IngestMarker:
    """Start (once, lazily: right before the first write) and finish one ingest's marker."""

    def __init__(self, db: Database, kind: str, path: str | Path):
        from kgtool.ingest.load import source_id

        if kind not in INGEST_KINDS:
            raise ValueError(f"unknown ingest kind {kind!r}")
        self.db, self.kind, self.source = db, kind, source_id(path)
        self.id = ingest_id(kind, self.source)
        self.started = False

    def start(self) -> None:
        if not self.started:
            self.db.write("ingest/start_ingest", id=self.id, kind=self.kind, source=self.source)
            self.started = True

    def finish(self) -> None:
        if self.started:
            self.db.write("ingest/finish_ingest", id=self.id)

    def row(self) -> dict:
        """The marker as a bulk import writes it: started, not finished."""
        return {"id": self.id, "kind": self.kind, "source": self.source}
